"""``pypddl relabel`` and ``pypddl relabel map-plan``: files written, plans mapped both ways, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pypddlengine.bundled import bundled_task
from pypddlengine.cli import main
from pypddlengine.loading import validate_files

PLAN = "(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n"


def run(*args: str | Path):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, [str(a) for a in args])


def test_relabel_writes_a_valid_copy_and_maps_plans_both_ways(tmp_path: Path) -> None:
    domain, p01 = bundled_task("blocksworld/p01")
    _, p02 = bundled_task("blocksworld/p02")
    out = tmp_path / "copy"
    r = run("relabel", domain, p01, p02, "--seed", "4", "--out", out)
    assert r.exit_code == 0, r.output
    mapping = json.loads((out / "mapping.json").read_text())
    assert mapping["schema"] == "pypddl.relabel/1" and mapping["seed"] == 4
    new_p01 = out / mapping["files"]["problems"]["p01.pddl"]
    assert new_p01.is_file() and (out / mapping["files"]["problems"]["p02.pddl"]).is_file()
    (tmp_path / "p01.plan").write_text(PLAN)
    r = run("relabel", "map-plan", out / "mapping.json", tmp_path / "p01.plan", "--out", tmp_path / "copy.plan")
    assert r.exit_code == 0, r.output
    assert validate_files(out / "domain.pddl", new_p01, tmp_path / "copy.plan").valid
    back = run("relabel", "map-plan", out / "mapping.json", tmp_path / "copy.plan", "--to-original")
    assert back.exit_code == 0 and back.output == PLAN
    again = tmp_path / "again"
    assert run("relabel", domain, p01, p02, "--seed", "4", "--out", again).exit_code == 0
    assert [(again / f.name).read_text() == f.read_text() for f in sorted(out.iterdir())] == [True] * 4


def test_relabel_bad_input_exits_2(tmp_path: Path) -> None:
    domain, p01 = bundled_task("blocksworld/p01")
    r = run("relabel", domain, tmp_path / "missing.pddl", "--seed", "1", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "FILE_NOT_FOUND" in r.output
    (tmp_path / "bad.json").write_text("{}")
    (tmp_path / "p.plan").write_text("(fly a b)\n")
    r = run("relabel", "map-plan", tmp_path / "bad.json", tmp_path / "p.plan")
    assert r.exit_code == 2 and "not a relabelling mapping" in r.output
    assert run("relabel", domain, p01, "--seed", "1", "--out", tmp_path / "o").exit_code == 0
    r = run("relabel", "map-plan", tmp_path / "o" / "mapping.json", tmp_path / "p.plan")
    assert r.exit_code == 2 and "UNKNOWN_ACTION" in r.output
    assert run("relabel", "--help").exit_code == 0
