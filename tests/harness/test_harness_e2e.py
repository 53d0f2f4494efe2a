"""An offline end-to-end experiment: 10 IPC-2000 Blocksworld tasks, a scripted
model for each LLM approach behind the fake HTTP server, driven through the
real SDKs (direct over the Anthropic API, agentic over the OpenAI API) and the
real MCP server, plus Fast Downward records in the shared schema; then the
report, whose figures are recomputed here independently from the records."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from fake_server import FakeModelServer
from harness_scripts import AgentScript, DirectScript, run_with_fake_server
from scipy.stats import binomtest

from pypddl_experiments.cli import experiment
from pypddl_experiments.llm.clock import FakeClock
from pypddl_experiments.llm.mcp_bridge import PAPER_TOOLS, Toolbox, ToolboxSettings
from pypddl_experiments.llm.replay import compare_records, replay_run
from pypddl_experiments.llm.runner import ExperimentConfig
from pypddl_experiments.llm.tasks import resolve_tasks
from pypddl_experiments.llm.types import CallParams

DATA = Path(__file__).resolve().parent / "data"
TASKS = [f"instance-{i}" for i in range(1, 11)]
DIRECT = dict(zip(TASKS, ["oracle", "prose", "second", "oracle", "rate_limit", "never", "oracle", "garbage",
                          "oracle", "second"], strict=True))
AGENTIC = dict(zip(TASKS, ["oracle", "malformed", "illegal_then_reset", "history", "early_exit", "endless",
                           "one_line", "wrong_problem", "val_format", "peek"], strict=True))
PINNED = {"initialise_session": {"feedback": "paper", "rendering": "plain"}}  # the harness's defaults
STEP_S = 5.0  # each model call "takes" 5 s on the fake clock: 36 calls fill a 180 s budget


def _run(method: str, provider_name: str, blocks: Path, out: Path) -> tuple[list[dict[str, Any]], FakeModelServer]:
    clock = FakeClock()
    script = (DirectScript if method == "direct" else AgentScript)(
        blocks, DIRECT if method == "direct" else AGENTIC, clock=clock, step_s=STEP_S)
    tasks = resolve_tasks(str(blocks / "instance-*.pddl"), limit=10)
    assert [t.instance_id for t in tasks] == TASKS

    config = ExperimentConfig(
        method, CallParams("scripted-model", 0.2 if method == "direct" else None, 4096),
        experiment_id=f"e2e-{method}", budget_s=180.0, concurrency=1,
    )
    return run_with_fake_server(script, provider_name, config, tasks, out, clock=clock)


@pytest.fixture(scope="module")
def experiment_dirs(blocks: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("e2e")
    direct, direct_server = _run("direct", "anthropic", blocks, root / "direct")
    agentic, agentic_server = _run("agentic", "openai", blocks, root / "agentic")
    (root / "fd").mkdir()
    shutil.copy(DATA / "fd_blocks10.jsonl", root / "fd" / "runs.jsonl")
    result = CliRunner().invoke(
        experiment, ["report", str(root / "fd"), str(root / "direct"), str(root / "agentic"), "--out",
                     str(root / "report")])
    assert result.exit_code == 0, result.output
    return {"root": root, "direct": direct, "agentic": agentic, "direct_server": direct_server,
            "agentic_server": agentic_server, "cli_output": result.output}


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


# ----------------------------------------------------------------------------- the runs


def test_direct_outcomes(experiment_dirs: dict[str, Any]) -> None:
    by_id = {r["instance_id"]: r for r in _records(experiment_dirs["root"] / "direct" / "runs.jsonl")}
    assert set(by_id) == set(TASKS)
    outcome = {k: (r["outcome"], r["attempts"]) for k, r in by_id.items()}
    assert outcome == {
        "instance-1": ("solved", 1), "instance-2": ("solved", 1), "instance-3": ("solved", 2),
        "instance-4": ("solved", 1), "instance-5": ("solved", 1), "instance-6": ("timeout", 36),
        "instance-7": ("solved", 1), "instance-8": ("timeout", 36), "instance-9": ("solved", 1),
        "instance-10": ("solved", 2),
    }
    # the rate-limited run: retried after the server's retry-after, flagged, logged
    r5 = by_id["instance-5"]
    assert r5["contaminated"] is True and r5["retries"] == 1
    assert [e["kind"] for e in r5["errors"]] == ["rate_limit"]
    assert r5["usage"]["calls"] == 2 and r5["usage"]["failed_calls"] == 1
    assert not any(r["contaminated"] for k, r in by_id.items() if k != "instance-5")
    for r in by_id.values():
        assert r["schema"] == "pypddl.run/1" and r["method"] == "direct"
        assert r["llm"]["temperature"] == 0.2 and r["llm"]["provider"] == "anthropic"
        if r["outcome"] == "timeout":
            assert r["wall_s"] == pytest.approx(180.0) and r["plan"] is None
    # every request: temperature 0.2, no tools, a fresh two-message context
    for req in experiment_dirs["direct_server"].requests:
        assert req.body["temperature"] == 0.2 and "tools" not in req.body
        assert len(req.body["messages"]) == 1 and req.body["system"]


def test_solved_plans_are_valid_and_are_the_scripted_ones(experiment_dirs: dict[str, Any], blocks: Path) -> None:
    from harness_scripts import lama_plan

    from pypddlengine import load_task, validate_plan

    for method in ("direct", "agentic"):
        for r in _records(experiment_dirs["root"] / method / "runs.jsonl"):
            if r["outcome"] != "solved":
                continue
            task = load_task(blocks / "domain.pddl", blocks / f"{r['instance_id']}.pddl")
            assert validate_plan(task, r["plan"]).valid
            assert [a.lower() for a in r["plan"]] == [a.lower() for a in lama_plan(blocks, r["instance_id"])]
            assert r["plan_length"] == len(r["plan"]) and r["plan_valid"] is True


def test_agentic_outcomes(experiment_dirs: dict[str, Any]) -> None:
    by_id = {r["instance_id"]: r for r in _records(experiment_dirs["root"] / "agentic" / "runs.jsonl")}
    got = {k: (r["outcome"], r["outcome_detail"]) for k, r in by_id.items()}
    assert got == {
        "instance-1": ("solved", "validated"), "instance-2": ("solved", "validated"),
        "instance-3": ("solved", "validated"), "instance-4": ("solved", "validated"),
        "instance-5": ("early_exit", "declared_unsolvable"), "instance-6": ("timeout", "budget_exhausted"),
        "instance-7": ("solved", "validated"), "instance-8": ("early_exit", "invalid_final"),
        "instance-9": ("solved", "validated"), "instance-10": ("solved", "validated"),
    }
    assert "cannot be solved" in by_id["instance-5"]["final_text"]
    assert by_id["instance-8"]["plan_valid"] is False and by_id["instance-8"]["agent"]["rejected_validations"] == 1
    malformed = by_id["instance-2"]["agent"]
    assert malformed["malformed_calls"] == 2 and malformed["by_tool"]["teleport"] == 1
    reset = by_id["instance-3"]["agent"]
    assert reset["illegal_actions"] == 1 and reset["resets"] == 1
    endless = by_id["instance-6"]["agent"]
    assert endless["turns"] == 36 and endless["tool_calls"] == 35  # the 36th call ends at the deadline
    assert by_id["instance-1"]["agent"]["turns"] == len(by_id["instance-1"]["plan"]) + 2
    # the plan file of its own task is refused to the agent, which then solves the task as usual
    assert by_id["instance-10"]["agent"]["error_codes"] == {"FILE_ACCESS_DENIED": 1}


def test_agentic_requests_use_the_listed_tools_one_call_at_a_time(experiment_dirs: dict[str, Any]) -> None:
    async def listing() -> dict[str, Any]:
        async with Toolbox(ToolboxSettings(tools=None)) as tb:
            return {t["name"]: t for t in tb.listing}

    listed = anyio.run(listing)
    requests = experiment_dirs["agentic_server"].requests
    assert requests
    for req in requests:
        assert req.body["parallel_tool_calls"] is False and req.body["tool_choice"] == "auto"
        assert "temperature" not in req.body
        tools = {t["function"]["name"]: t["function"] for t in req.body["tools"]}
        assert list(tools) == list(PAPER_TOOLS)
        for name, fn in tools.items():
            assert fn["description"] == listed[name]["description"]
            schema = dict(listed[name]["input_schema"])
            if name == "initialise_session":  # the pinned settings are hidden from the model
                props = {k: v for k, v in schema["properties"].items() if k not in ("feedback", "rendering")}
                assert fn["parameters"]["properties"] == props
            else:
                assert fn["parameters"] == schema


def test_the_pinned_feedback_reaches_the_server(experiment_dirs: dict[str, Any]) -> None:
    trace = experiment_dirs["root"] / "agentic" / "traces" / "agentic" / "instance-1" / "r0.jsonl"
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    init = next(e for e in events if e["type"] == "tool_result" and e["name"] == "initialise_session")
    assert init["structured"]["feedback_level"] == "paper" and init["structured"]["rendering"] == "plain"
    # the paper's signals and nothing else
    step = next(e for e in events if e["type"] == "tool_result" and e["name"] == "execute_single_action")
    assert set(step["structured"]) == {"success", "state", "goal_reached"}
    verdict = next(e for e in events if e["type"] == "tool_result" and e["name"] == "validate_complete_plan")
    assert verdict["structured"] == {"valid": True}


# ----------------------------------------------------------------------------- traces and manifest


@pytest.mark.parametrize("method", ["direct", "agentic"])
def test_usage_in_records_is_the_sum_over_the_trace(experiment_dirs: dict[str, Any], method: str) -> None:
    root = experiment_dirs["root"] / method
    for r in _records(root / "runs.jsonl"):
        events = [json.loads(line) for line in (root / r["trace_file"]).read_text().splitlines()]
        calls = [e for e in events if e["type"] == "llm_call"]
        turns = [e["turn"]["usage"] for e in calls if e.get("turn")]
        assert r["usage"]["calls"] == len(calls)
        assert r["usage"]["input_total"] == sum(u["input_total"] for u in turns)
        assert r["usage"]["output_total"] == sum(u["output_total"] for u in turns)
        assert r["usage"]["total"] == r["usage"]["input_total"] + r["usage"]["output_total"]
        assert {e["run_id"] for e in events} == {r["run_id"]}
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def test_manifest(experiment_dirs: dict[str, Any]) -> None:
    manifest = json.loads((experiment_dirs["root"] / "agentic" / "manifest.json").read_text())
    assert manifest["schema"] == "pypddl.manifest/1"
    assert manifest["config"]["prompts"]["version"] == "agentic-v2" and len(manifest["config"]["prompts"]["sha256"]) == 64
    assert manifest["config"]["feedback"] == "paper" and manifest["config"]["rendering"] == "plain"
    assert manifest["config"]["tools"]["shown"] == list(PAPER_TOOLS)
    assert manifest["config"]["tools"]["pinned"] == PINNED
    assert {"anthropic", "openai", "mcp"} <= set(manifest["versions"]["sdk"])
    assert [t["instance_id"] for t in manifest["tasks"]] == TASKS
    assert manifest["sessions"][-1]["finished_at"]


@pytest.mark.parametrize("method", ["direct", "agentic"])
def test_replaying_each_trace_reproduces_its_record(experiment_dirs: dict[str, Any], method: str) -> None:
    root = experiment_dirs["root"] / method
    for r in _records(root / "runs.jsonl"):
        old, new = anyio.run(replay_run, root, r["trace_file"])
        assert old["run_id"] == r["run_id"]
        assert compare_records(old, new) == {}, r["instance_id"]
        assert new["wall_s"] == pytest.approx(r["wall_s"])


# ----------------------------------------------------------------------------- the report, recomputed


def _all_records(root: Path) -> dict[str, list[dict[str, Any]]]:
    """The counted records per method: contaminated runs are left out."""
    out: dict[str, list[dict[str, Any]]] = {}
    for d in ("fd", "direct", "agentic"):
        for r in _records(root / d / "runs.jsonl"):
            if not r.get("contaminated"):
                out.setdefault(r["method"], []).append(r)
    return out


LABELS = {"fd-lama-first": "FD lama-first", "fd-seq-sat-lama-2011": "FD seq-sat-lama-2011", "direct": "Direct LLM",
          "agentic": "Agentic LLM"}


def test_report_table2_recomputed(experiment_dirs: dict[str, Any]) -> None:
    root = experiment_dirs["root"]
    rows = {row["approach"]: row for row in _csv(root / "report" / "table2_outcomes.csv")}
    assert list(rows) == list(LABELS.values())  # the paper's order
    for method, recs in _all_records(root).items():
        row = rows[LABELS[method]]
        solved = sum(r["outcome"] == "solved" for r in recs)
        ci = binomtest(solved, len(recs)).proportion_ci(method="wilson")
        assert int(row["n"]) == len(recs) == (9 if method == "direct" else 10)  # direct's instance-5: excluded
        assert int(row["solved"]) == solved
        assert int(row["timeout"]) == sum(r["outcome"] == "timeout" for r in recs)
        assert int(row["early_exit"]) == sum(r["outcome"] == "early_exit" for r in recs)
        assert float(row["ci_low"]) == pytest.approx(ci.low, abs=1e-6)
        assert float(row["ci_high"]) == pytest.approx(ci.high, abs=1e-6)
    assert (rows["Direct LLM"]["solved"], rows["Agentic LLM"]["solved"], rows["Agentic LLM"]["early_exit"]) == \
        ("7", "7", "2")
    assert json.loads(rows["Agentic LLM"]["early_exit_kinds"]) == {"declared_unsolvable": 1, "invalid_final": 1}
    assert rows["Direct LLM"]["excluded"] == "1"
    md = (root / "report" / "report.md").read_text()
    assert "| Agentic LLM | 10 | 7 (70.0 %) |" in md and "| Direct LLM | 9 | 7 (77.8 %) |" in md
    assert "declared unsolvable 1, invalid final 1" in md
    # the rate-limited direct run is listed, not counted, with the way to redo it
    excluded = _csv(root / "report" / "excluded.csv")
    assert [(x["approach"], x["instance_id"], x["errors"]) for x in excluded] == [("Direct LLM", "instance-5",
                                                                                   "rate_limit")]
    assert "--rerun-contaminated" in md


def test_report_difficulty_order_recomputed(experiment_dirs: dict[str, Any]) -> None:
    """The benchmark order by default (the paper's); by lama-first plan
    length with --order lama, its own rule printed."""
    root = experiment_dirs["root"]
    difficulty = json.loads((root / "report" / "difficulty.json").read_text())
    assert [e["instance_id"] for e in difficulty["order"]] == TASKS and difficulty["rule"] == "benchmark"
    assert [row["instance_id"] for row in _csv(root / "report" / "per_instance.csv")] == TASKS
    assert "benchmark order" in experiment_dirs["cli_output"].splitlines()[0]

    lama = {r["instance_id"]: r["plan_length"] for r in _records(root / "fd" / "runs.jsonl")
            if r["method"] == "fd-lama-first" and r["outcome"] == "solved"}
    number = {k: int(k.split("-")[1]) for k in TASKS}
    expected = sorted(lama, key=lambda k: (lama[k], number[k])) + [k for k in TASKS if k not in lama]
    result = CliRunner().invoke(experiment, ["report", str(root / "fd"), str(root / "direct"), str(root / "agentic"),
                                             "--order", "lama", "--out", str(root / "report-lama")])
    assert result.exit_code == 0, result.output
    difficulty = json.loads((root / "report-lama" / "difficulty.json").read_text())
    assert [e["instance_id"] for e in difficulty["order"]] == expected and difficulty["rule"] == "lama"
    assert expected[:4] == ["instance-1", "instance-3", "instance-2", "instance-5"]  # ties in benchmark order
    per_instance = _csv(root / "report-lama" / "per_instance.csv")
    assert [row["instance_id"] for row in per_instance] == expected
    assert {row["block"] for row in per_instance} == {"0–10"}
    assert "lama-first plan length" in (root / "report-lama" / "report.md").read_text()


def test_report_table3_recomputed(experiment_dirs: dict[str, Any]) -> None:
    root = experiment_dirs["root"]
    recs = _all_records(root)
    solved = {m: {r["instance_id"]: r["plan_length"] for r in rs if r["outcome"] == "solved"} for m, rs in recs.items()}
    cosolved = set.intersection(*(set(s) for s in solved.values()))
    assert cosolved == {"instance-1", "instance-2", "instance-3", "instance-4", "instance-7", "instance-9"}
    rows = {row["block"]: row for row in _csv(root / "report" / "table3_plan_length.csv")}
    for block in ("0–10", "all"):
        assert int(rows[block]["n"]) == len(cosolved)
        for method, label in LABELS.items():
            mean = sum(solved[method][k] for k in cosolved) / len(cosolved)
            assert float(rows[block][label]) == pytest.approx(mean)


def test_report_tokens_recomputed(experiment_dirs: dict[str, Any]) -> None:
    root = experiment_dirs["root"]
    recs = _all_records(root)
    rows = {row["approach"]: row for row in _csv(root / "report" / "tokens.csv")}
    assert set(rows) == {"Direct LLM", "Agentic LLM"}  # Fast Downward uses no tokens
    per_run = {}
    per_solved = {}
    for method in ("direct", "agentic"):
        totals = [r["usage"]["input_total"] + r["usage"]["output_total"] for r in recs[method]]
        n_solved = sum(r["outcome"] == "solved" for r in recs[method])
        per_run[method] = sum(totals) / len(totals)
        per_solved[method] = sum(totals) / n_solved
        row = rows[LABELS[method]]
        assert float(row["tokens_per_run"]) == pytest.approx(per_run[method])
        assert float(row["tokens_per_solved"]) == pytest.approx(per_solved[method])
    agentic = rows["Agentic LLM"]
    assert float(agentic["ratio_per_run"]) == pytest.approx(per_run["agentic"] / per_run["direct"])
    assert float(agentic["ratio_per_solved"]) == pytest.approx(per_solved["agentic"] / per_solved["direct"])


def test_report_mcnemar_recomputed(experiment_dirs: dict[str, Any]) -> None:
    root = experiment_dirs["root"]
    recs = _all_records(root)
    solved = {m: {r["instance_id"] for r in rs if r["outcome"] == "solved"} for m, rs in recs.items()}
    rows = _csv(root / "report" / "mcnemar.csv")
    assert len(rows) == 6  # every pair of the four approaches
    label_to_method = {v: k for k, v in LABELS.items()}
    for row in rows:
        ma, mb = label_to_method[row["a"]], label_to_method[row["b"]]
        common = {r["instance_id"] for r in recs[ma]} & {r["instance_id"] for r in recs[mb]}
        a, b = solved[ma] & common, solved[mb] & common
        only_a, only_b = len(a - b), len(b - a)
        assert int(row["n"]) == len(common)
        assert (int(row["only_a"]), int(row["only_b"])) == (only_a, only_b)
        expected = 1.0 if only_a + only_b == 0 else binomtest(only_a, only_a + only_b, 0.5).pvalue
        assert float(row["p"]) == pytest.approx(expected)
    direct_vs_agentic = next(r for r in rows if {r["a"], r["b"]} == {"Direct LLM", "Agentic LLM"})
    # instance-5 (direct solved it after a rate limit, agentic exited early) is not compared: contaminated
    assert (direct_vs_agentic["n"], direct_vs_agentic["only_a"], direct_vs_agentic["only_b"]) == ("9", "0", "0")


def test_report_figure(experiment_dirs: dict[str, Any]) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.image as mpimg

    from pypddl_experiments.report.report import COLOURS

    png = experiment_dirs["root"] / "report" / "fig_outcomes.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = mpimg.imread(png)[:, :, :3].reshape(-1, 3)
    present = {tuple(round(float(c) * 255) for c in p) for p in pixels[:: max(1, len(pixels) // 200000)]}

    def has(colour: str) -> bool:
        rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        return any(all(abs(a - b) <= 2 for a, b in zip(rgb, p, strict=True)) for p in present)

    assert has(COLOURS["solved"]) and has(COLOURS["timeout"]) and has(COLOURS["early_exit"])
    assert "fig_outcomes.png" in (experiment_dirs["root"] / "report" / "report.md").read_text()


def test_report_markdown_tables_are_well_formed(experiment_dirs: dict[str, Any]) -> None:
    md = (experiment_dirs["root"] / "report" / "report.md").read_text()
    tables: list[list[str]] = []
    previous = False
    for line in md.splitlines():
        is_row = line.startswith("|")
        if is_row and not previous:
            tables.append([])
        if is_row:
            tables[-1].append(line)
        previous = is_row
    assert len(tables) >= 7
    for table in tables:
        widths = {row.count("|") for row in table}
        assert len(widths) == 1, table[0]
        assert set(table[1]) <= {"|", "-"}
