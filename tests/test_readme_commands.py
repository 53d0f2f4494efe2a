"""Every shell command of the README and of the documentation pages runs as
written, or says here why not.

The commands are every line of the README's ``sh`` blocks and of the ``sh``
blocks of the pages under docs/ that are marked runnable: the line
``<!-- runnable -->`` right before the fence (unmarked blocks of a page are
shown, not run). Each must have an entry in :data:`COMMANDS`: either a
:class:`Run` (executed in a scratch folder holding the files the pages name
as placeholders: ``domain.pddl``, ``problem.pddl``, ``p01.pddl``,
``plan.txt``, ``path/to/tasks`` ..., or in the checkout for the tour's lines,
which use the files the repository ships) with the exit code it must give, or
a :class:`Skip` with the reason. A command with no entry, or an entry no page
has any more, fails :func:`test_every_readme_command_is_covered`, so the pages
and this file cannot drift apart.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from corpus import CORPUS

from pypddlengine.bundled import bundled_task

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
RUNNABLE = "<!-- runnable -->"
BW102 = CORPUS / "potassco-pddl-instances" / "ipc2000-blocks-strips-typed"


@dataclass(frozen=True)
class Run:
    """Run the command in the scratch folder; it must exit with ``rc``."""

    rc: int = 0
    stdin: str = ""
    timeout: float = 120.0
    slow: bool = False
    needs: tuple[str, ...] = ()  # what must exist: "fd" (Fast Downward), "corpus", "ray"
    replace: dict[str, str] = field(default_factory=dict)  # notation -> literal text (e.g. "[more.plan ...]")
    check: str = ""  # a text the output must contain
    in_checkout: bool = False  # run in the checkout (the tour's lines name the files the repository ships)


@dataclass(frozen=True)
class Skip:
    reason: str


COMMANDS: dict[str, Run | Skip] = {
    "git clone <this repository> pypddlengine && cd pypddlengine": Skip(
        "covered by test_fresh_clone_installs_and_runs_the_demo (a clone of this checkout)"),
    "python3 -m venv .venv && . .venv/bin/activate": Skip(
        "covered by test_fresh_clone_installs_and_runs_the_demo (a new venv)"),
    "pip install -e . && pypddl demo": Skip("covered by test_fresh_clone_installs_and_runs_the_demo"),
    'pip install -e ".[test]" && python -m pytest': Skip("this is the command that runs this test (.ci/run)"),
    "pypddl tasks": Run(check="blocksworld/p01"),
    "pypddl play --task blocksworld/p03": Run(stdin="actions\nquit\n", check="applicable"),
    "pypddl validate --task blocksworld/p01 docs/examples/blocksworld-p01.plan": Run(
        in_checkout=True, check="valid plan (6 steps)"),
    "pypddl validate --task blocksworld/p01 docs/examples/blocksworld-p01-wrong.plan": Run(
        rc=1, in_checkout=True, check="step 2 (pick-up b)"),
    "pypddl validate domains/blocksworld.pddl problems/blocksworld/p01.pddl docs/examples/blocksworld-p01.plan": Run(
        in_checkout=True, check="valid plan (6 steps)"),
    "pypddl check docs/examples/broken-domain.pddl problems/blocksworld/p01.pddl": Run(
        rc=1, in_checkout=True, check="broken-domain.pddl:15:35: error[UNDEFINED_PREDICATE]"),
    "pypddl check domains/blocksworld.pddl problems/blocksworld/": Run(in_checkout=True, check=" ok"),
    "pypddl ground --task blocksworld/p05": Run(check="ground actions"),
    "pypddl validate --task blocksworld/p01 docs/examples/blocksworld-p01-wrong.plan --json": Run(
        rc=1, in_checkout=True, check='"code": "INAPPLICABLE_ACTION"'),
    "pip install -e . pytest hypothesis && python -m pytest --ignore=tests/baselines --ignore=tests/harness "
    "--ignore=tests/generators": Skip("an install step and a run of the engine's tests: the suite that runs this "
                                      "test, less the three experiment-side folders"),
    'pip install -e ".[docs]"': Skip("an install step; the test extra holds the same packages"),
    "mkdocs serve": Skip("a server that runs until stopped; tests/test_docs.py builds the same site"),
    "mkdocs build --strict": Skip("tests/test_docs.py runs this build"),
    "pypddl validate domain.pddl problem.pddl plan.txt [more.plan ...]": Run(
        replace={"[more.plan ...]": "more.plan"}, check="valid plan"),
    "pypddl check domain.pddl problem.pddl": Run(check="ok"),
    "pypddl ground domain.pddl problem.pddl": Run(check="ground actions"),
    "pypddl validate --task blocksworld/p01 plan.txt": Run(check="valid plan (6 steps)"),
    "pypddl validate domain.pddl problems/": Run(check="1 valid, 0 invalid, 1 problem without a plan"),
    "pypddl check domain.pddl problems/": Run(check="2 problems: 2 ok"),
    "pypddl serve": Run(stdin="", timeout=60, check=""),  # stdin at EOF: the server must end by itself
    "pypddl solve domain.pddl p01.pddl --planner lama-first --time-limit 60": Run(needs=("fd",), check="(unit cost)"),
    "pypddl solve --task blocksworld/p07 -p seq-sat-lama-2011 -t 10 -o p07.plan": Run(needs=("fd",), timeout=60),
    'pypddl solve domain.pddl p01.pddl -p "--search astar(lmcut())" -t 30': Run(needs=("fd",), check="(unit cost)"),
    "pypddl batch path/to/tasks -p lama-first -p seq-sat-lama-2011 -t 180 -j 2 -o results/bw/runs.jsonl": Run(
        needs=("fd",), timeout=900, slow=True),
    "pypddl batch --bundled -p lama-first -t 10 --select '/p'": Run(needs=("fd",), timeout=900, slow=True),
    "pypddl reference path/to/ipc2000-blocks-strips-typed -t 180 -o results/reference/runs.jsonl": Run(
        needs=("fd", "corpus"), timeout=1800, slow=True),
    "pypddl reference path/to/ipc2000-blocks-strips-typed --fd-release 23.06 -t 180 -o "
    "results/reference-23.06/runs.jsonl": Skip(
        "the whole protocol with Fast Downward 23.06 (204 runs, hours; it made docs/reference); --fd-release "
        "itself runs in tests/baselines/test_fd_release.py (install, records name the release)"),
    "pypddl reference path/to/ipc2000-blocks-strips-typed --report-only -o results/reference/runs.jsonl": Skip(
        "needs the records of the command above; run after it in test_reference_then_report"),
    "pypddl generate blocksworld --blocks 20 --seed 1 --count 10 --out-dir bench/bw20": Run(),
    "pypddl generate blocksworld-table --blocks 8 --positions 3 --seed 2": Run(check="(define"),
    "pypddl generate blocksworld-sizes --blocks 8 --positions 3 --size-classes 4 --seed 3": Run(check="(define"),
    "pypddl generate hanoi --disks 5": Run(check="(define"),
    "pypddl generate gripper --balls 12": Run(check="(define"),
    "pypddl generate logistics --cities 3 --places 3 --packages 6 --seed 1": Run(check="(define"),
    "pypddl generate unsolvable --kind table-cycle --blocks 6 --seed 4": Run(check="(define"),
    'pip install -e ".[llm,report,planners]"': Skip("an install step; the test extra holds the same packages"),
    "export ANTHROPIC_API_KEY=...": Skip("a secret of the user's; no model is reachable from the tests"),
    "BW=path/to/ipc2000-blocks-strips-typed": Skip("a shell variable for the lines below"),
    "pypddl experiment run --method direct  --provider anthropic --model claude-haiku-4-5-20251001 --tasks $BW "
    "--budget 180 --out results/direct": Skip(
        "needs an API key and a real model; tests/harness runs the same command against the fake model server"),
    "pypddl experiment run --method agentic --provider anthropic --model claude-haiku-4-5-20251001 --tasks $BW "
    "--budget 180 --out results/agentic": Skip(
        "needs an API key and a real model; tests/harness runs the same command against the fake model server"),
    "pypddl reference $BW -t 180 -o results/reference/runs.jsonl": Skip("the same command as the reference line above"),
    "pypddl experiment report results/reference results/direct results/agentic --out report/": Skip(
        "needs the records of the runs above; tests/harness reports synthetic records of the same shape"),
    "pypddl experiment run --method agentic --provider offline --tasks blocksworld --limit 4 --out results/offline":
        Run(timeout=300, check="4 run(s) made (4 solved)"),
    "pypddl experiment report results/offline --out report-offline/": Skip(
        "needs the records of the line above; run after it in test_offline_lines_in_order"),
    "pypddl experiment replay results/offline traces/agentic/blocksworld-p01/r0.jsonl": Skip(
        "needs the records of the line above; run after it in test_offline_lines_in_order"),
    'pip install -e ".[planners,ray]"': Skip("an install step; the test extra holds the same packages"),
    "ray start --head --port 6379": Skip(
        "starts a long-lived cluster head; tests/baselines/test_batch_ray.py starts and kills one on a free port"),
    "pypddl reference $BW -t 180 --executor ray --ray-address auto -o results/reference/runs.jsonl": Skip(
        "needs the cluster of the line above and hours; tests/baselines/test_batch_ray.py runs batches on Ray"),
    "pypddl experiment run --method agentic --provider anthropic --model claude-haiku-4-5-20251001 --tasks $BW "
    "--budget 180 --out results/agentic --executor ray --ray-address auto --concurrency 8": Skip(
        "needs an API key and a cluster; tests/harness/test_harness_ray.py runs experiments on Ray offline"),
    "pypddl relabel domain.pddl p01.pddl --seed 7 --out relabelled/": Run(check="mapping.json"),
    "pypddl relabel map-plan relabelled/mapping.json plan.txt --out relabelled/plan.txt": Skip(
        "needs the copy of the line above; run after it in test_relabel_lines_in_order"),
    "pypddl relabel map-plan relabelled/mapping.json relabelled/plan.txt --to-original": Skip(
        "needs the files of the lines above; run after them in test_relabel_lines_in_order"),
    "python bench/bench_ray.py": Run(timeout=1800, slow=True, needs=("fd", "ray")),
    "python bench/bench_engine.py": Run(timeout=1800, slow=True),
    "python bench/bench_mcp.py": Run(timeout=1800, slow=True),
    "python bench/bench_mcp_load.py --clients 50 --steps 200 --soak 600": Run(timeout=3600, slow=True),
    "python bench/bench_mcp_load.py --clients 3 --steps 5 --soak 3": Run(timeout=300, check="leaks 0"),
    "PYPDDL_AUTH_TOKEN=change-me pypddl serve --http --host 0.0.0.0 --allowed-host planner.lan": Skip(
        "a server that runs until stopped, on every interface; tests/mcp/test_mcp_security.py starts it with "
        "tokens, --host 0.0.0.0 and --allowed-host and checks 401, 403 and 421"),
    "python bench/bench_adl.py": Run(timeout=3600, slow=True),
    "python bench/bench_heuristics.py": Run(timeout=1800, slow=True),
    # UP's own simulator needs minutes at 200 blocks; a tool that is not installed (pddlgym) is an error cell
    "python bench/bench_adapters.py": Run(timeout=3600, slow=True, check="load average after"),
    "python bench/bench_startup.py --venv bench/out/venv": Run(timeout=3600, slow=True),
    "pypddl solve --task fuel-delivery/p02 -t 30": Run(needs=("enhsp",), timeout=300, check="(drive"),
    "pypddl batch path/to/numeric-tasks -p enhsp -p enhsp-hadd -t 30 -o results/numeric/runs.jsonl": Run(
        needs=("enhsp",), timeout=600, slow=True),
    "pypddl generate fuel-delivery --locations 8 --trucks 2 --packages 5 --seed 1": Run(check="(:metric minimize"),
    "python bench/bench_numeric.py": Run(timeout=3600, slow=True),
    # UP's time-triggered validator needs about two minutes on the 2000-happening plan
    "python bench/bench_temporal.py": Run(timeout=1800, slow=True, check="load average at the end"),
}


def _sh_blocks() -> list[str]:
    """Every ``sh`` block of the README; the ``sh`` blocks of the pages under
    docs/ (run records under docs/reference/ aside) marked runnable."""
    blocks = re.findall(r"^```sh\n(.*?)^```", README.read_text(), re.S | re.M)
    for page in sorted(DOCS.rglob("*.md")):
        if "reference" in page.relative_to(DOCS).parts:
            continue
        marked = rf"^[ \t]*{re.escape(RUNNABLE)}\n[ \t]*```sh\n(.*?)^[ \t]*```"
        blocks += re.findall(marked, page.read_text(), re.S | re.M)
    return blocks


def readme_commands() -> list[str]:
    """The command lines of the runnable ``sh`` blocks, trailing comments
    removed, continuation lines joined."""
    out: list[str] = []
    for block in _sh_blocks():
        for line in block.replace("\\\n", " ").splitlines():
            command = re.sub(r"\s+#\s.*$", "", line).rstrip()
            if command.strip():
                out.append(command.strip())
    return out


def test_every_readme_command_is_covered() -> None:
    commands = readme_commands()
    missing = [c for c in commands if c not in COMMANDS]
    stale = [c for c in COMMANDS if c not in commands]
    assert not missing, f"README commands with no entry in COMMANDS: {missing}"
    assert not stale, f"COMMANDS entries the README no longer has: {stale}"


def _scratch(tmp: Path) -> Path:
    """A folder with the files the README's commands name."""
    domain, problem = bundled_task("blocksworld/p01")
    shutil.copy(domain, tmp / "domain.pddl")
    shutil.copy(problem, tmp / "problem.pddl")
    shutil.copy(problem, tmp / "p01.pddl")
    plan = "(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n"
    (tmp / "plan.txt").write_text(plan)
    (tmp / "more.plan").write_text(plan)
    tasks = tmp / "path" / "to" / "tasks"
    tasks.mkdir(parents=True)
    shutil.copy(domain, tasks / "domain.pddl")
    for name in ("p01", "p02"):
        shutil.copy(bundled_task(f"blocksworld/{name}")[1], tasks / f"{name}.pddl")
    if BW102.is_dir():  # a scratch copy of the first tasks, read by path at test time, never committed
        bw = tmp / "path" / "to" / "ipc2000-blocks-strips-typed"
        bw.mkdir(parents=True)
        shutil.copy(BW102 / "domain.pddl", bw / "domain.pddl")
        for i in (1, 2, 3):
            shutil.copy(BW102 / f"instance-{i}.pddl", bw / f"instance-{i}.pddl")
    problems = tmp / "problems"
    problems.mkdir()
    for name in ("p01", "p02"):
        shutil.copy(bundled_task(f"blocksworld/{name}")[1], problems / f"{name}.pddl")
    (problems / "p01.plan").write_text(plan)
    numeric = tmp / "path" / "to" / "numeric-tasks"
    numeric.mkdir(parents=True)
    shutil.copy(bundled_task("fuel-delivery/p01")[0], numeric / "domain.pddl")
    for name in ("p01", "p02"):
        shutil.copy(bundled_task(f"fuel-delivery/{name}")[1], numeric / f"{name}.pddl")
    (tmp / "bench").mkdir()
    return tmp


def _missing(needs: tuple[str, ...]) -> str | None:
    import importlib.util

    if "fd" in needs and importlib.util.find_spec("up_fast_downward") is None:
        return "Fast Downward is not installed (pip install up-fast-downward)"
    if "ray" in needs and importlib.util.find_spec("ray") is None:
        return "Ray is not installed (pip install 'pypddlengine[ray]')"
    if "enhsp" in needs:
        from pypddl_experiments.planners.enhsp import enhsp_jar, java_binary
        from pypddl_experiments.planners.fd import PlannerUnavailable

        try:
            enhsp_jar(), java_binary()
        except PlannerUnavailable as err:
            return str(err)
    if "corpus" in needs and not BW102.is_dir():
        return f"the IPC corpus is not at {CORPUS}"
    return None


def _run(command: str, cwd: Path, spec: Run) -> subprocess.CompletedProcess[str]:
    for notation, literal in spec.replace.items():
        command = command.replace(notation, literal)
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")  # the venv's pypddl and python
    if command.startswith("python "):
        command = f"{sys.executable} {command[len('python '):]}"
        cwd = ROOT if "bench/" in command else cwd
    return subprocess.run(command, shell=True, cwd=cwd, input=spec.stdin, capture_output=True, text=True,
                          timeout=spec.timeout, env=env)


RUNS = [(c, s) for c, s in COMMANDS.items() if isinstance(s, Run)]


@pytest.mark.parametrize(("command", "spec"), [
    pytest.param(c, s, marks=[pytest.mark.slow] if s.slow else [], id=c[:60]) for c, s in RUNS
])
def test_readme_command_runs_as_written(command: str, spec: Run, tmp_path: Path) -> None:
    reason = _missing(spec.needs)
    if reason:
        pytest.skip(reason)
    result = _run(command, ROOT if spec.in_checkout else _scratch(tmp_path), spec)
    assert result.returncode == spec.rc, f"{command}\nstdout: {result.stdout[-2000:]}\nstderr: {result.stderr[-2000:]}"
    if spec.check:
        assert spec.check in result.stdout + result.stderr, result.stdout[-2000:] + result.stderr[-2000:]


def _site_packages() -> str:
    """The folders of the installed distributions (this venv's and any it
    inherits), to be read without their .pth hooks."""
    return os.pathsep.join(p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages")))


CHECKOUT_RUNS = [(c, s) for c, s in RUNS if c.startswith("pypddl ") and not s.slow]


@pytest.mark.parametrize(("command", "spec"), [pytest.param(c, s, id=c[:60]) for c, s in CHECKOUT_RUNS])
def test_readme_command_runs_as_python_cli_py_from_the_checkout(command: str, spec: Run, tmp_path: Path) -> None:
    """The same command as ``python cli.py ...``, with the installed packages'
    path hooks left out (``-S``: no .pth files, so no editable install of
    this repository): the engine comes from the checkout, the experiment side
    from its baselines/ folder, as in a fresh clone."""
    reason = _missing(spec.needs)
    if reason:
        pytest.skip(reason)
    env = {**os.environ, "PYTHONPATH": _site_packages()}
    checkout = f"{sys.executable} -S {ROOT / 'cli.py'} "
    cwd = ROOT if spec.in_checkout else _scratch(tmp_path)
    line = checkout + command.removeprefix("pypddl ")
    for notation, literal in spec.replace.items():
        line = line.replace(notation, literal)
    result = subprocess.run(line, shell=True, cwd=cwd, input=spec.stdin, capture_output=True, text=True,
                            timeout=spec.timeout, env=env)
    assert result.returncode == spec.rc, f"{line}\nstdout: {result.stdout[-2000:]}\nstderr: {result.stderr[-2000:]}"
    if spec.check:
        assert spec.check in result.stdout + result.stderr, result.stdout[-2000:] + result.stderr[-2000:]


def test_relabel_lines_in_order(tmp_path: Path) -> None:
    """The README's three relabel lines in a row: the copy, the plan mapped onto it, and back."""
    cwd = _scratch(tmp_path)
    lines = [c for c in readme_commands() if c.startswith("pypddl relabel")]
    assert len(lines) == 3
    results = [_run(line, cwd, Run()) for line in lines]
    assert [r.returncode for r in results] == [0, 0, 0], [r.stderr for r in results]
    assert results[2].stdout == (cwd / "plan.txt").read_text()
    assert (cwd / "relabelled" / "plan.txt").read_text().startswith("(a-")


def test_offline_lines_in_order(tmp_path: Path) -> None:
    """The README's offline experiment: run, report, replay, with no API key."""
    cwd = _scratch(tmp_path)
    lines = [c for c in readme_commands() if "offline" in c and c.startswith("pypddl experiment")]
    assert len(lines) == 3
    env_keys = {k: os.environ.pop(k) for k in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY") if k in os.environ}
    try:
        results = [_run(line, cwd, Run(timeout=300)) for line in lines]
    finally:
        os.environ.update(env_keys)
    assert [r.returncode for r in results] == [0, 0, 0], [r.stdout + r.stderr for r in results]
    assert (cwd / "report-offline" / "report.md").is_file()
    assert "replay reproduces the record" in results[2].stdout


@pytest.mark.slow
def test_reference_then_report(tmp_path: Path) -> None:
    """The README's reference command, then its --report-only line, on three tasks."""
    if _missing(("fd", "corpus")):
        pytest.skip(_missing(("fd", "corpus")) or "")
    cwd = _scratch(tmp_path)
    run_line = "pypddl reference path/to/ipc2000-blocks-strips-typed -t 180 -o results/reference/runs.jsonl"
    report_line = "pypddl reference path/to/ipc2000-blocks-strips-typed --report-only -o results/reference/runs.jsonl"
    assert _run(run_line, cwd, Run(timeout=1800)).returncode == 0
    report = _run(report_line, cwd, Run())
    assert report.returncode == 0 and "Table I" in report.stdout, report.stdout + report.stderr


@pytest.mark.slow
def test_fresh_clone_installs_and_runs_the_demo(tmp_path: Path) -> None:
    """The README's first commands on a clone of this checkout's HEAD, in a
    new virtual environment: install, then the demo solves a task over MCP."""
    clone = tmp_path / "pypddlengine"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    subprocess.run([sys.executable, "-m", "venv", ".venv"], cwd=clone, check=True, timeout=120)
    script = ". .venv/bin/activate && pip install -q -e . && pypddl demo"
    result = subprocess.run(script, shell=True, cwd=clone, capture_output=True, text=True, timeout=1200,
                            executable="/bin/bash")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "valid" in result.stdout
