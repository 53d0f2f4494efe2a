"""Ecosystem adapters benchmark (issue 26), measured in one run:

* Gymnasium: steps per second of ``pypddlengine.gym.PDDLEnv`` against pddlgym's
  ``PDDLEnv`` on the same domain and problem files, both playing seeded random
  *valid* actions (ours: ``action_masks()``; pddlgym: its dynamic action space's
  ``all_ground_literals``), resetting on the goal.
* unified-planning: ``SequentialSimulator(problem, name="pypddlengine")``
  against UP's own ``sequential_simulator`` on a generated 200-block
  Blocksworld task read by UP's PDDL reader: set-up (simulator and initial
  state), the first and later ``get_applicable_actions`` calls, ``apply`` and
  ``is_goal`` along the same seeded walk (the walks are checked to be equal).

    python bench/bench_adapters.py                       # both parts (UP's first call takes minutes at 200 blocks)
    python bench/bench_adapters.py --part gym --seconds 5
    python bench/bench_adapters.py --part up --blocks 100 --up-steps 3

Each measurement runs in a fresh worker process (``--worker``). Results print
as Markdown tables with the load average before and after; record them in
bench/results.md with that load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GYM_TASKS = ("blocksworld/p05", "blocksworld/p08", "gripper/p04", "logistics/p02")
GYM_MODES = (("vector", "plain"), ("vector", "progress"), ("atoms", "plain"), ("text", "plain"))


def _quiet() -> None:
    warnings.simplefilter("ignore")


# ----------------------------------------------------------------------------- gym workers


def w_gym_ours(task: str, observation: str, feedback: str, seconds: float) -> dict:
    import numpy as np

    import pypddlengine.gym as pg

    env = pg.PDDLEnv(task=task, observation=observation, feedback=feedback, max_steps=None)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    first = len(env.valid_actions())
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            assert info["applied"]
            steps += 1
            if terminated:
                episodes += 1
                env.reset()
    elapsed = time.perf_counter() - start
    return {"steps_per_second": steps / elapsed, "steps": steps, "goals": episodes, "first_valid": first}


def w_gym_pddlgym(task: str, seconds: float) -> dict:
    _quiet()
    from pddlgym.core import PDDLEnv

    from pypddlengine.bundled import bundled_task

    domain, problem = bundled_task(task)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / problem.name).write_text(problem.read_text())
        env = PDDLEnv(str(domain), folder, operators_as_actions=True, dynamic_action_space=True)
        rng = random.Random(0)
        obs, _ = env.reset()
        first = len(env.action_space.all_ground_literals(obs))
        steps = episodes = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(100):
                valid = sorted(env.action_space.all_ground_literals(obs))
                obs, _, done, _, _ = env.step(rng.choice(valid))
                steps += 1
                if done:
                    episodes += 1
                    obs, _ = env.reset()
        elapsed = time.perf_counter() - start
    return {"steps_per_second": steps / elapsed, "steps": steps, "goals": episodes, "first_valid": first}


# ----------------------------------------------------------------------------- unified-planning worker


def _up_problem(blocks: int):  # type: ignore[no-untyped-def]
    """The generated Blocksworld task read by UP's PDDL reader, and the seconds that took."""
    _quiet()
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    from pypddlengine.bundled import bundled_root
    from pypddlengine.generators import blocksworld

    get_environment().credits_stream = None
    with tempfile.TemporaryDirectory() as folder:
        problem_file = Path(folder) / f"bw-{blocks}.pddl"
        problem_file.write_text(blocksworld(blocks, seed=blocks))
        start = time.perf_counter()
        problem = PDDLReader().parse_problem(str(bundled_root("domains") / "blocksworld.pddl"), str(problem_file))
        return problem, time.perf_counter() - start


def w_up_writer(blocks: int) -> dict:
    """UP's own PDDLWriter alone, in a fresh process: the part of the engine's set-up spent in UP."""
    from unified_planning.io import PDDLWriter

    problem, _ = _up_problem(blocks)
    start = time.perf_counter()
    writer = PDDLWriter(problem)
    writer.get_domain(), writer.get_problem()
    return {"writer_s": time.perf_counter() - start}


def w_up(simulator: str, blocks: int, steps: int) -> dict:
    from unified_planning.shortcuts import SequentialSimulator

    import pypddlengine.up  # noqa: F401  (registers "pypddlengine")

    problem, parse = _up_problem(blocks)
    start = time.perf_counter()
    sim = SequentialSimulator(problem, name=simulator)
    state = sim.get_initial_state()
    setup = time.perf_counter() - start
    rng = random.Random(f"walk:{blocks}")
    applicable_times, apply_times, goal_times, walk = [], [], [], []
    for _ in range(steps):
        start = time.perf_counter()
        applicable = list(sim.get_applicable_actions(state))
        applicable_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        sim.is_goal(state)
        goal_times.append(time.perf_counter() - start)
        names = sorted(f"{a.name}{tuple(str(p) for p in ps)}" for a, ps in applicable)
        choice = rng.randrange(len(names))
        action, params = next((a, ps) for a, ps in applicable if f"{a.name}{tuple(str(p) for p in ps)}" == names[choice])
        walk.append(f"{names[choice]}/{len(names)}")
        start = time.perf_counter()
        state = sim.apply(state, action, params)
        apply_times.append(time.perf_counter() - start)
    return {"parse_s": parse, "setup_s": setup, "first_applicable_s": applicable_times[0],
            "later_applicable_s": statistics.median(applicable_times[1:]) if steps > 1 else None,
            "apply_s": statistics.median(apply_times), "is_goal_s": statistics.median(goal_times), "walk": walk}


WORKERS = {"gym_ours": w_gym_ours, "gym_pddlgym": w_gym_pddlgym, "up": w_up, "up_writer": w_up_writer}


def run_worker(name: str, *args: object, timeout: float = 3600) -> dict:
    """One measurement in a fresh interpreter; an error comes back as ``{"error": ...}``."""
    cmd = [sys.executable, __file__, "--worker", json.dumps([name, list(args)])]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    return json.loads(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- report


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _fmt(value: float | None, scale: float = 1.0, digits: int = 3) -> str:
    if value is None:
        return "-"
    v = value * scale
    return f"{v:,.{digits}g}" if v < 1000 else f"{v:,.0f}"


def gym_part(seconds: float) -> list[str]:
    lines = ["### Gymnasium: random valid actions, steps per second", "",
             "| task | valid actions at start (ours / pddlgym) | pddlgym | " +
             " | ".join(f"ours {o}, {f}" for o, f in GYM_MODES) + " | ours (vector, plain) / pddlgym |",
             "|---|---|---:|" + "---:|" * len(GYM_MODES) + "---:|"]
    for task in GYM_TASKS:
        theirs = run_worker("gym_pddlgym", task, seconds)
        ours = [run_worker("gym_ours", task, o, f, seconds) for o, f in GYM_MODES]
        cells = [r.get("error") or _fmt(r["steps_per_second"], digits=4) for r in [theirs, *ours]]
        ratio = "-" if "error" in theirs or "error" in ours[0] else \
            f"{ours[0]['steps_per_second'] / theirs['steps_per_second']:.1f}x"
        first = f"{ours[0].get('first_valid', '?')} / {theirs.get('first_valid', '?')}"
        lines.append(f"| {task} | {first} | " + " | ".join(cells) + f" | {ratio} |")
    return lines


def up_part(blocks: int, steps: int) -> list[str]:
    results = {name: run_worker("up", name, blocks, steps) for name in ("pypddlengine", "sequential_simulator")}
    results["pypddlengine"]["writer_s"] = run_worker("up_writer", blocks).get("writer_s")
    lines = [f"### unified-planning SequentialSimulator, Blocksworld {blocks} blocks ({steps}-step seeded walk)", "",
             "| simulator | UP parse s | set-up + initial state s | of which UP's PDDLWriter s (apart) | "
             "first get_applicable_actions s | later get_applicable_actions ms | apply ms | is_goal ms |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in results.items():
        if "error" in r:
            lines.append(f"| {name} | {r['error']} ||||||||")
            continue
        lines.append(f"| {name} | {_fmt(r['parse_s'])} | {_fmt(r['setup_s'])} | {_fmt(r.get('writer_s'))} | "
                     f"{_fmt(r['first_applicable_s'])} | "
                     f"{_fmt(r['later_applicable_s'], 1e3)} | {_fmt(r['apply_s'], 1e3)} | {_fmt(r['is_goal_s'], 1e3)} |")
    walks = [r.get("walk") for r in results.values()]
    lines += ["", "The two walks (actions chosen and applicable-set sizes) are "
              + ("identical." if walks[0] == walks[1] and walks[0] else "NOT identical: see the JSON.")]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("gym", "up", "all"), default="all")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of stepping per gym measurement")
    parser.add_argument("--blocks", type=int, default=200, help="Blocksworld size for the UP part")
    parser.add_argument("--up-steps", type=int, default=4, help="walk length for the UP part")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        name, worker_args = json.loads(args.worker)
        print(json.dumps(WORKERS[name](*worker_args)))
        return
    started = time.strftime("%Y-%m-%d %H:%M")
    print(f"bench_adapters {started}, load average before: {_load()}\n")
    if args.part in ("gym", "all"):
        print("\n".join(gym_part(args.seconds)) + "\n")
    if args.part in ("up", "all"):
        print("\n".join(up_part(args.blocks, args.up_steps)) + "\n")
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main()
