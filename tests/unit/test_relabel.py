"""Relabelled copies of the bundled domains: names, determinism, round trip,
random walks that agree step by step, mapped plans valid on the copy."""

from __future__ import annotations

import json
import re

import pytest
from oracles import val_binary, val_verdict
from relabel_support import relabelled_copy, sessions, walks_agree

from pypddlengine import validate_plan
from pypddlengine.bundled import bundled_task
from pypddlengine.errors import ActionReferenceError, ErrorCode, PDDLError
from pypddlengine.loading import load_domain, load_problem, load_task
from pypddlengine.relabel import KINDS, Relabelling, relabel
from pypddlengine.syntax import parse_plan

TASKS = ["blocksworld/p01", "blocksworld/p06", "gripper/p02", "logistics/p01", "blocksworld-sizes/p01"]
NEW_NAME = re.compile(r"^\??[a-z]-(?=[0-9a-f]*[0-9])[0-9a-f]{4,}$")
P01_PLAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]


def models(task: str):  # type: ignore[no-untyped-def]
    d, p = bundled_task(task)
    return load_domain(d), load_problem(p)


def available(task: str) -> bool:
    try:
        bundled_task(task)
    except PDDLError:
        return False
    return True


@pytest.mark.parametrize("task", [t for t in TASKS if available(t)])
def test_random_walks_agree_on_the_copy(task: str) -> None:
    domain, problem = models(task)
    for seed in (1, 2):
        original, copy, mapping, _, _ = sessions(domain, problem, seed)
        assert walks_agree(original, copy, mapping, seed, 60) > 0


def test_names_are_fresh_deterministic_and_complete() -> None:
    domain, problem = models("gripper/p02")
    d1, p1, m1 = relabelled_copy(domain, problem, 5)
    d2, p2, m2 = relabelled_copy(domain, problem, 5)
    assert (d1, p1, m1.names) == (d2, p2, m2.names)
    assert relabelled_copy(domain, problem, 6)[2].names != m1.names
    new_names = [v for kind in KINDS for k, v in m1.names[kind].items() if k not in ("object", "number")]
    assert new_names and all(NEW_NAME.match(v) for v in new_names)
    assert len(set(new_names)) == len(new_names)
    words = set(re.findall(r"[a-z][a-z-]+", (domain.name + " " + " ".join(a.name for a in domain.actions))))
    text = d1 + p1
    assert not [w for w in words if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text)]
    assert set(m1.names["actions"]) == {a.name for a in domain.actions}


def test_mapped_plan_is_valid_on_the_copy_and_maps_back(tmp_path) -> None:  # type: ignore[no-untyped-def]
    domain, problem = models("blocksworld/p01")
    d_text, p_text, mapping = relabelled_copy(domain, problem, 11)
    mapped = mapping.map_plan(parse_plan("\n".join(P01_PLAN)).steps)
    assert validate_plan(load_task(d_text, p_text), mapped).valid
    assert not validate_plan(load_task(d_text, p_text), mapped[:-1]).valid
    assert mapping.map_plan(parse_plan("\n".join(mapped)).steps, reverse=True) == P01_PLAN
    if val_binary() is not None:
        (tmp_path / "d.pddl").write_text(d_text)
        (tmp_path / "p.pddl").write_text(p_text)
        assert val_verdict(tmp_path / "d.pddl", tmp_path / "p.pddl", "\n".join(mapped) + "\n")
        assert not val_verdict(tmp_path / "d.pddl", tmp_path / "p.pddl", "\n".join(mapped[:-1]) + "\n")


def test_mapping_json_round_trip_and_errors() -> None:
    domain, problem = models("blocksworld/p01")
    _, _, mapping = relabel(domain, [problem], 3)
    again = Relabelling.from_json(mapping.to_json())
    assert again.names == mapping.names and again.seed == 3
    with pytest.raises(ActionReferenceError) as err:
        mapping.map_plan(parse_plan("(fly a b)").steps)
    assert err.value.code == ErrorCode.UNKNOWN_ACTION
    with pytest.raises(ActionReferenceError) as err:
        mapping.map_plan(parse_plan("(stack a zz)").steps)
    assert err.value.code == ErrorCode.UNKNOWN_OBJECT
    with pytest.raises(ActionReferenceError):  # a plan of the original is not a plan of the copy
        mapping.map_plan(parse_plan("(stack a b)").steps, reverse=True)
    with pytest.raises(PDDLError):
        Relabelling.from_json({"schema": "something else"})
    with pytest.raises(PDDLError):
        Relabelling.from_json({"schema": "pypddl.relabel/1", "objects": ["a"]})


def test_relabelled_files_give_each_problem_a_file() -> None:
    from pypddlengine.relabel import MAPPING_FILE, relabelled_files

    domain, problem = models("blocksworld/p01")
    files, mapping = relabelled_files(("d.pddl", domain), [("one.pddl", problem), ("two.pddl", problem)], 2)
    names = json.loads(files[MAPPING_FILE])["files"]["problems"]
    new = mapping.names["problems"]["p01"]
    assert names == {"one.pddl": f"{new}.pddl", "two.pddl": f"{new}-2.pddl"}
    assert sorted(files) == sorted(["domain.pddl", MAPPING_FILE, f"{new}.pddl", f"{new}-2.pddl"])
    assert files[f"{new}.pddl"] == files[f"{new}-2.pddl"]


def test_every_text_field_of_the_model_is_renamed_or_declared_not_a_name() -> None:
    """A model class added later (say for derived predicates) with a name field
    the relabelling does not know would leave an original name in the copy."""
    import dataclasses
    import inspect

    import pypddlengine.model as model
    from pypddlengine.relabel import _NAME_FIELDS, _SKIP, NOT_NAMES

    unknown = []
    for name, cls in inspect.getmembers(model, inspect.isclass):
        if not (dataclasses.is_dataclass(cls) and cls.__module__ == model.__name__):
            continue
        for f in dataclasses.fields(cls):
            known = (name, f.name) in _NAME_FIELDS or f.name in NOT_NAMES.get(name, ()) or f.name in _SKIP
            if "str" in str(f.type) and f.name != "display" and not known:
                unknown.append(f"{name}.{f.name}")
    assert not unknown, f"text fields relabel neither renames nor lists in NOT_NAMES: {unknown}"
