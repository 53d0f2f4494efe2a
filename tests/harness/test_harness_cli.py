"""``pypddl experiment run|report|replay`` from the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fake_server import FakeModelServer
from harness_scripts import AgentScript, DirectScript
from sigint_support import needs_sigint

from pypddl_experiments.cli import experiment


def test_help_lists_the_commands() -> None:
    result = CliRunner().invoke(experiment, ["--help"])
    assert result.exit_code == 0
    assert all(name in result.output for name in ("run", "report", "replay"))


def test_the_lazy_command_is_registered() -> None:
    from pypddlengine.cli import main

    result = CliRunner().invoke(main, ["experiment", "run", "--help"])
    assert result.exit_code == 0 and "--budget" in result.output


@pytest.mark.parametrize(("method", "provider"), [("direct", "openai"), ("agentic", "anthropic")])
def test_run_resume_report_replay(tmp_path: Path, blocks: Path, method: str, provider: str) -> None:
    behaviours = {"instance-1": "oracle", "instance-2": "second" if method == "direct" else "early_exit"}
    script = (DirectScript if method == "direct" else AgentScript)(blocks, behaviours)
    out = tmp_path / method
    runner = CliRunner()
    with FakeModelServer(script) as server:
        url = server.openai_base_url if provider == "openai" else server.anthropic_base_url
        args = ["run", "--method", method, "--provider", provider, "--model", "scripted", "--tasks",
                str(blocks / "instance-*.pddl"), "--limit", "2", "--budget", "60", "--out", str(out),
                "--base-url", url, "--concurrency", "2"]
        first = runner.invoke(experiment, args)
        assert first.exit_code == 0, first.output
        assert "2 run(s) made" in first.output and "instance-1 r0: solved" in first.output
        again = runner.invoke(experiment, args)
        assert again.exit_code == 0 and "0 run(s) made (0 solved), 2 already recorded" in again.output
        changed = runner.invoke(experiment, [*args[:-4], "--budget", "30", *args[-2:]])
        assert changed.exit_code == 2 and "another configuration" in changed.output
    records = [json.loads(x) for x in (out / "runs.jsonl").read_text().splitlines()]
    assert len(records) == 2
    report = runner.invoke(experiment, ["report", str(out), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    assert (tmp_path / "report" / "report.md").is_file()
    replay = runner.invoke(experiment, ["replay", str(out), *[r["trace_file"] for r in records]])
    assert replay.exit_code == 0, replay.output
    assert replay.output.count("replay reproduces the record") == 2


def test_replay_reports_a_difference(tmp_path: Path, blocks: Path) -> None:
    script = DirectScript(blocks, {"instance-1": "oracle"})
    out = tmp_path / "d"
    with FakeModelServer(script) as server:
        result = CliRunner().invoke(experiment, [
            "run", "--method", "direct", "--provider", "openai", "--model", "m", "--tasks",
            str(blocks / "instance-1.pddl"), "--out", str(out), "--base-url", server.openai_base_url])
    assert result.exit_code == 0, result.output
    record = json.loads((out / "runs.jsonl").read_text())
    record["plan_length"] = 999  # a record its trace does not explain
    (out / "runs.jsonl").write_text(json.dumps(record) + "\n")
    replay = CliRunner().invoke(experiment, ["replay", str(out), record["trace_file"]])
    assert replay.exit_code == 1 and "plan_length: recorded 999 / replayed 6" in replay.output


def test_run_refuses_without_a_key(tmp_path: Path, blocks: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = CliRunner().invoke(experiment, [
        "run", "--method", "direct", "--provider", "anthropic", "--model", "claude-haiku-4-5-20251001",
        "--tasks", str(blocks / "instance-1.pddl"), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "ANTHROPIC_API_KEY" in result.output
    assert not (tmp_path / "x").exists()


def test_run_with_no_tasks_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(experiment, [
        "run", "--method", "direct", "--provider", "openai", "--model", "m", "--tasks", str(tmp_path / "*.pddl"),
        "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "no problem files" in result.output


def test_a_tool_the_server_does_not_list_is_refused(tmp_path: Path, blocks: Path) -> None:
    with FakeModelServer(AgentScript(blocks, {})) as server:  # reachable, never called
        result = CliRunner().invoke(experiment, [
            "run", "--method", "agentic", "--provider", "openai", "--model", "m", "--tasks",
            str(blocks / "instance-1.pddl"), "--out", str(tmp_path / "x"), "--base-url", server.openai_base_url,
            "--tools", "execute_single_action,teleport"])
    assert result.exit_code == 2 and "does not list the tool(s) teleport" in result.output


@contextmanager
def _run_with_a_slow_model(blocks: Path, out: Path, delay_s: float) -> Iterator[tuple[list[str], Any, Any]]:
    """`pypddl experiment run` (direct, one task) in another process whose model
    answers after ``delay_s``: yields its arguments, the fake server and the
    process once the model call is under way (it holds the --out lock)."""
    inner = DirectScript(blocks, {"instance-1": "oracle"})

    def slow(request):  # type: ignore[no-untyped-def]
        reply = inner(request)
        reply.delay_s = delay_s
        return reply

    with FakeModelServer(slow) as server:
        args = ["run", "--method", "direct", "--provider", "openai", "--model", "scripted", "--tasks",
                str(blocks / "instance-1.pddl"), "--budget", "60", "--out", str(out), "--base-url",
                server.openai_base_url]
        env = {**os.environ, "OPENAI_API_KEY": "test-key-not-real"}
        process = subprocess.Popen([sys.executable, "-m", "pypddlengine.cli", "experiment", *args], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while not server.requests and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert server.requests, process.communicate()
            yield args, server, process
        finally:
            if process.poll() is None:
                process.kill()


def test_a_second_run_on_the_same_out_is_refused(tmp_path: Path, blocks: Path) -> None:
    """Two `pypddl experiment run` on one --out: while the first (another
    process, its model slow to answer) runs, the second is refused with a
    clear message and exit code 2 and writes nothing; the first ends with
    its one record."""
    out = tmp_path / "shared"
    with _run_with_a_slow_model(blocks, out, 4.0) as (args, server, first):
        manifest = (out / "manifest.json").read_text()
        second = CliRunner().invoke(experiment, args)
        assert second.exit_code == 2
        assert "in use by another 'pypddl experiment run'" in second.output and "another --out" in second.output
        assert (out / "manifest.json").read_text() == manifest and len(server.requests) == 1
        stdout, stderr = first.communicate(timeout=60)
    assert first.returncode == 0, stderr
    records = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert [(r["instance_id"], r["outcome"]) for r in records] == [("instance-1", "solved")]


@needs_sigint
def test_ctrl_c_exits_130_like_batch(tmp_path: Path, blocks: Path) -> None:
    """Issue 25 item 9: `experiment run` interrupted by Ctrl-C (SIGINT) exits
    130 with a word on resuming, as `pypddl batch` does, not 1 'Aborted!'."""
    with _run_with_a_slow_model(blocks, tmp_path / "out", 30.0) as (_, _, run):
        run.send_signal(signal.SIGINT)
        _, stderr = run.communicate(timeout=30)
    assert run.returncode == 130, stderr
    assert "interrupted" in stderr and "run the same command again to resume" in stderr and "Aborted" not in stderr


# ----------------------------------------------------------------------------- issue 25 item 12


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("method", ["direct", "agentic"])
def test_a_wrong_base_url_is_refused_before_any_run(tmp_path: Path, method: str) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(experiment, [
        "run", "--method", method, "--provider", "openai", "--model", "m", "--tasks", "blocksworld/p01",
        "--base-url", f"http://127.0.0.1:{_closed_port()}/v1", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "cannot reach --base-url" in result.output and "ConnectionRefusedError" in result.output
    assert not (out / "runs.jsonl").exists() or not (out / "runs.jsonl").read_text()


def test_runs_that_say_nothing_about_the_model_exit_non_zero(tmp_path: Path) -> None:
    """The endpoint answers, but every call is refused (a bad key): the runs
    are recorded as errors and the command says so with exit code 1."""
    from fake_server import Reply

    with FakeModelServer(lambda request: Reply(status=401, error_message="invalid key (scripted)")) as server:
        result = CliRunner().invoke(experiment, [
            "run", "--method", "direct", "--provider", "openai", "--model", "m", "--tasks", "blocksworld/p01",
            "--base-url", server.openai_base_url, "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output
    assert "auth_error 1" in result.output and "run the same command again" in result.output
