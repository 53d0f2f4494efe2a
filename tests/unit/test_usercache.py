"""The per-user cache: dataclasses made through it are the standard ones, and
a second process reuses the compiled methods instead of compiling them."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pypddlengine import usercache


def _pair(**options: object) -> tuple[type, type]:
    def make(decorator):  # type: ignore[no-untyped-def]
        @decorator(**options)
        class Point:
            x: int
            y: tuple[str, ...] = ()
            note: str = dataclasses.field(default="", compare=False, repr=False)

            def norm(self) -> int:
                return abs(self.x)

        return Point

    return make(dataclasses.dataclass), make(usercache.dataclass)


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"frozen": True, "slots": True}, {"order": True},
                                     {"eq": False}, {"kw_only": True}])
def test_classes_are_standard_dataclasses(options: dict[str, bool]) -> None:
    plain, cached = _pair(**options)
    assert dataclasses.is_dataclass(cached)
    assert [f.name for f in dataclasses.fields(cached)] == ["x", "y", "note"]
    assert cached.__dataclass_params__.frozen == plain.__dataclass_params__.frozen  # type: ignore[attr-defined]
    # generated methods compiled as the standard library compiles them: real annotations, not strings
    assert cached.__init__.__annotations__ == plain.__init__.__annotations__
    assert hasattr(cached, "__slots__") == hasattr(plain, "__slots__")
    kw = {"x": 3, "y": ("a",), "note": "n"}
    a, b = plain(**kw), cached(**kw)
    assert repr(a).replace(plain.__qualname__, "") == repr(b).replace(cached.__qualname__, "")
    if options.get("eq", True):
        assert b == cached(**{**kw, "note": "other"})
    if options.get("frozen"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            b.x = 4  # type: ignore[misc]
        assert hash(b) == hash(cached(**kw))
    assert dataclasses.replace(b, x=-5).norm() == 5
    assert dataclasses.asdict(b) == dataclasses.asdict(a)


def _import_in_subprocess(cache: Path) -> dict[str, object]:
    code = ("import json, pypddlengine.model as m, pypddlengine.usercache as u; "
            "print(json.dumps({'new': u._codes.new, 'hits': len(u._codes.used)}))")
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("PYPDDL_NO_CACHE", None)
    env.pop("PYPDDL_NO_PARSER_CACHE", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_a_second_process_reuses_the_compiled_methods(tmp_path: Path) -> None:
    first = _import_in_subprocess(tmp_path)
    assert first["new"] is True
    files = list((tmp_path / "pypddlengine").glob("dataclass-code-*.marshal"))
    assert len(files) == 1
    second = _import_in_subprocess(tmp_path)
    assert second == {"new": False, "hits": first["hits"]}
    files[0].write_bytes(b"\x00garbage")  # an unreadable file is ignored and rewritten
    assert _import_in_subprocess(tmp_path)["new"] is True
    assert _import_in_subprocess(tmp_path)["new"] is False


def test_no_cache_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("PYPDDL_NO_CACHE", "1")
    assert usercache.cache_folder() is None
    assert not (tmp_path / "pypddlengine").exists()


def test_the_fast_plan_step_is_an_ordinary_plan_step() -> None:
    from pypddlengine.errors import Span
    from pypddlengine.model import PlanStep, make_plan_step

    made = make_plan_step("stack", ("a", "b"), Span(1, 2, 1, 13), "(stack a b)", 3.0)
    built = PlanStep("stack", ("a", "b"), Span(1, 2, 1, 13), "(stack a b)", (), 3.0)
    assert type(made) is PlanStep and made == built and hash(made) == hash(built)
    assert [getattr(made, f.name) for f in dataclasses.fields(PlanStep)] == \
        [getattr(built, f.name) for f in dataclasses.fields(PlanStep)]
    # every field is set by the factory: a field added to PlanStep must be added there too
    assert [f.name for f in dataclasses.fields(PlanStep)] == ["name", "args", "span", "text", "arg_spans", "time"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "x"  # type: ignore[misc]


def test_each_installation_keeps_its_own_file_and_old_ones_go(tmp_path: Path) -> None:
    """The methods file is named after this installation (so a process loads
    one version's methods, not every version's since the first install);
    saving deletes other installations' files unused for a month."""
    _import_in_subprocess(tmp_path)
    folder = tmp_path / "pypddlengine"
    [ours] = folder.glob("dataclass-code-*.marshal")
    assert ours.name == f"dataclass-code-py{sys.version_info[0]}{sys.version_info[1]}-{usercache._install_tag()}.marshal"
    assert usercache._install_tag() == usercache._install_tag()
    old, recent = folder / f"{ours.stem}0.marshal", folder / f"{ours.stem}1.marshal"
    for path in (old, recent):
        path.write_bytes(b"x")
    month_ago = time.time() - usercache.STALE_SECONDS - 60
    os.utime(old, (month_ago, month_ago))
    usercache._forget_old_installs(str(ours))
    assert ours.exists() and recent.exists() and not old.exists()


def test_a_batch_of_generated_code_is_compiled_once_and_reused(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The lifted backend's generated functions: the second time a batch is
    asked for, its code comes from the file (no compile), runs the same, and
    a batch differing in one character is compiled afresh, never mistaken."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("PYPDDL_NO_CACHE", raising=False)
    batch = [("def f(a):\n    return a + 1\n", "<f>"), ("def g(a):\n    return [a] * 2\n", "<g>")]
    first = usercache.compiled_batch("test", batch)
    (stored,) = (tmp_path / "pypddlengine").glob("code-test-*.marshal")
    compiled: list[str] = []
    real = compile

    def counting(source: str, *args: object, **kwargs: object) -> object:
        compiled.append(source)
        return real(source, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.compile", counting)
    again = usercache.compiled_batch("test", batch)
    assert compiled == []
    for a, b in zip(first, again, strict=True):
        ns_a: dict[str, object] = {}
        ns_b: dict[str, object] = {}
        exec(a, ns_a)
        exec(b, ns_b)
        name = "f" if "f" in ns_a else "g"
        assert ns_a[name](3) == ns_b[name](3)  # type: ignore[operator]
        assert b.co_filename in ("<f>", "<g>")
    other = [batch[0], ("def g(a):\n    return [a] * 3\n", "<g>")]
    ns: dict[str, object] = {}
    exec(usercache.compiled_batch("test", other)[1], ns)
    assert ns["g"](1) == [1, 1, 1]  # type: ignore[operator]
    assert len(compiled) == 2 and stored.is_file()
    monkeypatch.setenv("PYPDDL_NO_CACHE", "1")
    exec(usercache.compiled_batch("test", other)[1], ns)  # no cache: compiled in the process, nothing read
    assert ns["g"](2) == [2, 2, 2]  # type: ignore[operator]
    assert len(compiled) == 4
