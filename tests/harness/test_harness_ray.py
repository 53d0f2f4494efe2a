"""Offline LLM experiments on a local Ray instance (the fake model server on
127.0.0.1, the real SDKs and MCP server on the workers): the same records as
the local executor, rate limits shared by the workers, and a worker killed
mid-run that ends with every record exactly once."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fake_server import FakeModelServer, FakeRequest, Reply
from harness_scripts import AgentScript, DirectScript
from ray_support import by_key, comparable, needs_ray, processes_with, wait_for

from pypddl_experiments.cli import experiment

pytestmark = [needs_ray, pytest.mark.slow]

DIRECT = {"instance-1": "oracle", "instance-2": "prose", "instance-3": "second", "instance-4": "garbage_once",
          "instance-5": "bad_request"}
AGENTIC = {"instance-1": "oracle", "instance-2": "malformed", "instance-3": "illegal_then_reset",
           "instance-4": "history", "instance-5": "early_exit", "instance-6": "wrong_problem",
           "instance-7": "peek"}  # the per-run file allow-list holds on a Ray worker too


class Swappable:
    """One server, a fresh script per experiment (the scripts count calls)."""

    def __init__(self) -> None:
        self.script: Any = None

    def __call__(self, request: FakeRequest) -> Reply:
        return self.script(request)


class Direct(DirectScript):
    """``garbage_once``: no plan at first, then the plan (deterministic, unlike
    ``garbage``); ``bad_request``: HTTP 400, which ends the run as an error."""

    def __call__(self, request: FakeRequest) -> Reply:
        name = self.instance(request)
        if self.behaviours[name] == "bad_request":
            return Reply(status=400, error_message="scripted bad request")
        if self.behaviours[name] != "garbage_once":
            return super().__call__(request)
        with self._lock:
            self.calls[name] += 1
            first = self.calls[name] == 1
        if first:
            return Reply(text="I am not able to produce a plan for this problem.")
        plan = "\n".join(a for a in _lama(self.blocks, name))
        return Reply(text=f"```\n{plan}\n```")


def _lama(blocks: Path, name: str) -> list[str]:
    from harness_scripts import lama_plan

    return lama_plan(blocks, name)


def _run(server: FakeModelServer, method: str, provider: str, blocks: Path, out: Path, n: int,
         *extra: str) -> Any:
    url = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    args = ["run", "--method", method, "--provider", provider, "--model", "scripted", "--tasks",
            str(blocks / "instance-*.pddl"), "--limit", str(n), "--budget", "120", "--out", str(out),
            "--base-url", url, "--concurrency", "2", "--experiment-id", "same", *extra]
    return CliRunner().invoke(experiment, args)


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / "runs.jsonl").read_text().splitlines() if x.strip()]


def _event_kinds(out: Path, record: dict[str, Any]) -> list[tuple[str, str | None]]:
    events = [json.loads(x) for x in (out / record["trace_file"]).read_text().splitlines()]
    assert {e["run_id"] for e in events} == {record["run_id"]}
    return [(e["type"], e.get("name")) for e in events]


@pytest.mark.parametrize(("method", "provider", "behaviours"),
                         [("direct", "anthropic", DIRECT), ("agentic", "openai", AGENTIC)])
def test_ray_experiment_gives_the_records_of_the_local_executor(
    tmp_path: Path, blocks: Path, method: str, provider: str, behaviours: dict[str, str], ray_instance: Any,
) -> None:
    script_type = Direct if method == "direct" else AgentScript
    swap = Swappable()
    results = {}
    with FakeModelServer(swap) as server:
        for executor in ("local", "ray"):
            swap.script = script_type(blocks, behaviours)
            out = tmp_path / executor
            result = _run(server, method, provider, blocks, out, len(behaviours), "--executor", executor)
            assert result.exit_code == 0, result.output
            assert f"{len(behaviours)} run(s) made" in result.output
            results[executor] = out
        again = _run(server, method, provider, blocks, results["ray"], len(behaviours), "--executor", "ray")
        assert "0 run(s) made (0 solved), " in again.output  # a Ray experiment resumes like a local one
    local, remote = by_key(_records(results["local"])), by_key(_records(results["ray"]))
    assert local.keys() == remote.keys() and len(local) == len(behaviours)
    assert len({r["outcome"] for r in local.values()}) > 1  # not one kind of run only
    for key, record in local.items():
        assert comparable(remote[key]) == comparable(record), key
        if behaviours.get(record["instance_id"]) == "peek":
            assert remote[key]["agent"]["error_codes"] == {"FILE_ACCESS_DENIED": 1}
        assert _event_kinds(results["ray"], remote[key]) == _event_kinds(results["local"], record)
    replay = CliRunner().invoke(experiment, ["replay", str(results["ray"]),
                                             *[r["trace_file"] for r in remote.values()]])
    assert replay.exit_code == 0, replay.output  # the traces the driver wrote explain its records
    assert replay.output.count("replay reproduces the record") == len(behaviours)


def test_one_workers_rate_limit_holds_back_the_others(tmp_path: Path, blocks: Path, ray_instance: Any) -> None:
    """instance-1 meets a 429 (retry after 3 s) on its first call; instance-2,
    on another worker, sends its second request inside those 3 s only if the
    shared gate does not hold it back."""
    seen: dict[str, list[float]] = {"instance-1": [], "instance-2": []}
    script = DirectScript(blocks, {"instance-1": "oracle", "instance-2": "second"})

    def answer(request: FakeRequest) -> Reply:
        name = script.instance(request)
        seen[name].append(time.monotonic())
        if name == "instance-1" and len(seen[name]) == 1:
            return Reply(status=429, error_message="rate limited (scripted)", headers={"retry-after": "3"})
        if name == "instance-2" and len(seen[name]) == 1:
            wait_for(lambda: seen["instance-1"], 60, "instance-1's first request")
            time.sleep(0.5)  # answer after the 429 went out
        return script(request)

    with FakeModelServer(answer) as server:
        result = _run(server, "direct", "openai", blocks, tmp_path / "out", 2, "--executor", "ray")
    assert result.exit_code == 0, result.output
    records = by_key(_records(tmp_path / "out"))
    first, second = records[("direct", "instance-1", 0)], records[("direct", "instance-2", 0)]
    assert first["outcome"] == second["outcome"] == "solved"
    assert first["contaminated"] and [e["kind"] for e in first["errors"]] == ["rate_limit"]
    assert second["contaminated"] and [e["kind"] for e in second["errors"]] == ["rate_limit_shared"]
    assert second["retries"] == 0  # it never met the 429 itself
    assert seen["instance-2"][1] >= seen["instance-1"][0] + 2.5


def test_a_worker_killed_mid_run_ends_with_every_record_once(tmp_path: Path, blocks: Path,
                                                           ray_instance: Any) -> None:
    """The worker waiting on instance-2's first reply is killed; the run is
    submitted again, answered, and recorded once, with a whole trace."""
    script = DirectScript(blocks, {f"instance-{i}": "oracle" for i in range(1, 4)})
    stalled = threading.Event()
    calls: dict[str, int] = {}

    def answer(request: FakeRequest) -> Reply:
        name = script.instance(request)
        calls[name] = calls.get(name, 0) + 1
        if name == "instance-2" and calls[name] == 1:
            stalled.set()
            time.sleep(10)  # the worker dies while it waits
        return script(request)

    killed: list[int] = []

    def kill() -> None:
        stalled.wait(120)
        time.sleep(0.5)
        port = int(server.openai_base_url.split(":")[2].split("/")[0])
        import psutil

        for proc in processes_with("ray::_call"):
            with_conn = [c for c in proc.net_connections("tcp") if c.raddr and c.raddr.port == port]
            if with_conn and proc.pid not in killed:
                os.kill(proc.pid, signal.SIGKILL)
                killed.append(proc.pid)
        assert killed, psutil.pids()

    with FakeModelServer(answer) as server:
        killer = threading.Thread(target=kill)
        killer.start()
        result = _run(server, "direct", "openai", blocks, tmp_path / "out", 3, "--executor", "ray")
        killer.join()
    assert result.exit_code == 0, result.output
    assert len(killed) == 1 and calls["instance-2"] == 2
    records = _records(tmp_path / "out")
    keys = sorted((r["instance_id"], r["replicate"]) for r in records)
    assert keys == [(f"instance-{i}", 0) for i in range(1, 4)]
    assert all(r["outcome"] == "solved" for r in records)
    second = next(r for r in records if r["instance_id"] == "instance-2")
    assert _event_kinds(tmp_path / "out", second)[0] == ("run_start", None)
