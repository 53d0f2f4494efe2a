"""Reading a plan out of a model's free-text reply (the direct approach).

The reply may wrap the plan in ``<plan>`` tags or a fenced code block, number
its steps (``1.``, ``Step 3:``, ``- ``), write actions as ``(stack a b)``,
``stack a b`` or ``stack(a, b)``, change case, or spell action names with
``_`` or without the hyphen (``pick_up``, ``pickup``). Where the plan sits:

1. the last ``<plan>...</plan>`` element, if there is one;
2. otherwise the last fenced block holding at least one action;
3. otherwise the whole reply, where the longest run of consecutive action
   lines wins (the last such run on a tie), so that an action named in a
   sentence before or after the plan is not taken as a step.

When the domain's action names are known, only those names count as
actions (after normalising case and separators), which keeps prose and
PDDL facts such as ``(on a b)`` out of the plan. The extracted steps are
returned in the canonical ``(name arg ...)`` form, lower case; whether they
are applicable is for the validator to say.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["ExtractedPlan", "extract_plan"]

_TAGS = re.compile(r"<plan>(.*?)</plan>", re.I | re.S)
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", re.S)
_MARKER = re.compile(
    r"""^\s*(?:[-*•>+]\s*)*              # bullets, quote marks
        (?:(?:step|action)\s*)?           # "Step 3:" / "Action 3."
        (?:\d+\s*[.):\]]\s*|\[\d+\]\s*|\d+\s+(?=\())?  # "1." "1)" "[1]" "1 (..."
    """,
    re.I | re.X,
)
_PAREN = re.compile(r"\(\s*([A-Za-z][\w-]*)\s*((?:[\s,]+[\w-]+)*)\s*\)")
_CALL = re.compile(r"\b([A-Za-z][\w-]*)\(\s*([\w-]+(?:\s*,\s*[\w-]+)*)?\s*\)")
_WORDS = re.compile(r"^([A-Za-z][\w-]*)((?:[\s,]+[\w-]+)*)$")


@dataclass(frozen=True, slots=True)
class ExtractedPlan:
    """The steps found (canonical ``(name args)`` strings) and where."""

    actions: list[str] = field(default_factory=list)
    source: str = "none"  # "tags", "fence", "text" or "none"

    def __bool__(self) -> bool:
        return bool(self.actions)


def _key(name: str) -> str:
    return re.sub(r"[-_\s]", "", name.lower())


class _Names:
    def __init__(self, names: Iterable[str] | None) -> None:
        self.known = None if names is None else {_key(n): n.lower() for n in names}

    def canon(self, name: str) -> str | None:
        if self.known is None:
            return name.lower()
        return self.known.get(_key(name))


def _args(text: str) -> list[str]:
    return [a.lower() for a in re.split(r"[\s,]+", text.strip()) if a]


def _line_actions(line: str, names: _Names, strict: bool) -> list[str]:
    """Actions on one line (none when the line is prose). ``strict``: accept
    the bare ``name arg arg`` form only for known names, as prose could
    otherwise pass for an action."""
    text = line.strip().strip("`*_").strip()
    if not text or text.startswith(";"):
        return []
    text = _MARKER.sub("", text, count=1).strip().strip("`*_").strip()
    text = text.split(";", 1)[0].strip()
    if strict and not re.match(r"[(A-Za-z]", text[:1]):
        return []
    found: list[str] = []
    for pattern in (_PAREN, _CALL):
        for m in pattern.finditer(text):
            name = names.canon(m.group(1))
            if name is None:
                continue
            if strict and not found and m.start() > 0:
                return []  # an action in the middle of a sentence
            found.append(_render(name, _args(m.group(2) or "")))
        if found:
            return found
    m = _WORDS.match(text.rstrip(".;"))
    if m and (names.known is not None or not strict):
        name = names.canon(m.group(1))
        if name is not None:
            return [_render(name, _args(m.group(2)))]
    return []


def _render(name: str, args: list[str]) -> str:
    return "(" + " ".join([name, *args]) + ")"


def _all_actions(region: str, names: _Names) -> list[str]:
    out: list[str] = []
    for line in region.splitlines():
        out.extend(_line_actions(line, names, strict=False))
    return out


def _best_run(text: str, names: _Names) -> list[str]:
    runs: list[list[str]] = []
    current: list[str] = []
    for line in text.splitlines():
        acts = _line_actions(line, names, strict=True)
        if acts:
            current.extend(acts)
        elif line.strip():
            if current:
                runs.append(current)
            current = []
    if current:
        runs.append(current)
    best: list[str] = []
    for run in runs:
        if len(run) >= len(best):
            best = run
    return best


def extract_plan(text: str, action_names: Iterable[str] | None = None) -> ExtractedPlan:
    """The plan in ``text``; ``action_names`` are the domain's action names."""
    names = _Names(action_names)
    text = text or ""
    tagged = _TAGS.findall(text)
    if tagged:
        return ExtractedPlan(_all_actions(tagged[-1], names), "tags")
    for _lang, body in reversed(_FENCE.findall(text)):
        actions = _all_actions(body, names)
        if actions:
            return ExtractedPlan(actions, "fence")
    actions = _best_run(text, names)
    return ExtractedPlan(actions, "text" if actions else "none")
