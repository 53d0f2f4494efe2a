"""Where a session's PDDL comes from: bundled names, PDDL text or (when allowed) file paths.

With ``ServerOptions.allowed_files`` set (experiments: the run's own domain and
problem) the server reads those files and no other: another path, a bundled
name or a bundled task is refused with ``FILE_ACCESS_DENIED`` before any file
is opened, so no message or snippet can echo what such a file holds (a plan
file given as the problem would otherwise show its first step in the syntax
error). Allowed files are shown by their bare names, never their paths.
"""


import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..bundled import DEFAULT_TASK, bundled_domains, bundled_root, bundled_task, bundled_tasks
from ..errors import ErrorCode, PDDLError
from ..grounding import GroundingOptions, stop_check
from ..loading import is_pddl_text, read_file
from ..printer import format_condition, format_effect
from ..session import FeedbackLevel, Session, open_session
from ..sources import special_file
from ..temporal_session import TemporalSession, needs_time, open_temporal_session
from ..task import natural_key
from . import models as m
from .errors import FILE_ACCESS_DENIED, INVALID_ARGUMENT, MISSING_ARGUMENT, NOT_PDDL, UNKNOWN_TASK, ToolFailure, clip
from .store import ServerOptions

# ----------------------------------------------------------------------------- task input


@dataclass(frozen=True, slots=True)
class TaskInput:
    """Domain and problem as bytes or text, with display names and sources."""

    domain: str | bytes
    problem: str | bytes
    domain_name: str
    problem_name: str
    sources: dict[str, str]


def resolve_task_input(
    options: ServerOptions, task: str | None, domain: str | None, problem: str | None
) -> TaskInput:
    """Turn initialise_session's arguments into texts, or a :class:`ToolFailure`."""
    if task is not None and (domain is not None or problem is not None):
        raise ToolFailure(INVALID_ARGUMENT, "give either task or domain and problem, not both",
                          "use task='blocksworld/p01' alone, or domain and problem alone")
    if task is not None:
        if options.allowed_files is not None:
            raise _not_allowed(options, "task", task)
        try:
            d, p = bundled_task(task)
        except PDDLError as err:
            raise ToolFailure.from_pddl(err, code=UNKNOWN_TASK) from None
        name = task.strip()
        return TaskInput(d.read_text(), p.read_text(), str(d.name), f"{name}.pddl",
                         {"domain": f"bundled:{name.partition('/')[0]}", "problem": f"bundled:{name}"})
    if domain is None or problem is None:
        missing = "domain and problem" if domain is None and problem is None else (
            "domain" if domain is None else "problem")
        raise ToolFailure(MISSING_ARGUMENT, f"initialise_session needs {missing} (or task)",
                          f"pass domain and problem as PDDL text or file paths, or task='{DEFAULT_TASK}'")
    d_text, d_name, d_src = _one_input(options, "domain", domain, None)
    bundled_domain = d_src.removeprefix("bundled:") if d_src.startswith("bundled:") else None
    p_text, p_name, p_src = _one_input(options, "problem", problem, bundled_domain)
    return TaskInput(d_text, p_text, d_name, p_name, {"domain": d_src, "problem": p_src})


def _one_input(
    options: ServerOptions, kind: str, value: str, bundled_domain: str | None
) -> tuple[str | bytes, str, str]:
    limit = options.max_pddl_bytes
    if is_pddl_text(value):
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > limit:
            raise ToolFailure(ErrorCode.INPUT_TOO_LARGE,
                              f"the {kind} is {size:,} bytes, more than the limit of {limit:,}")
        return value, f"<{kind}>", "text"
    name = value.strip()
    if len(name) > 1024 or "\n" in name or "\x00" in name or not name:
        raise ToolFailure(NOT_PDDL, f"the {kind} is not PDDL text: it should start with '(define ({kind} ...'")
    if options.allowed_files is not None:
        return _allowed_file(options, kind, name)
    if options.allow_files:
        path = Path(name).expanduser()
        if path.is_file():
            try:
                return read_file(path, max_bytes=limit), str(path), f"file:{path}"
            except PDDLError as err:
                raise ToolFailure.from_pddl(err) from None
        special = special_file(path)
        if special is not None:  # say what it is (it exists: "no such file" would mislead)
            raise ToolFailure(ErrorCode.FILE_NOT_FOUND, f"the {kind} '{clip(name, 80)}' is {special}, not a file",
                              f"pass the path of a {kind} file, or the PDDL text itself")
    bundled = _bundled_input(kind, name, bundled_domain)
    if bundled is not None:
        return bundled
    looks_like_path = "/" in name or "\\" in name or name.lower().endswith(".pddl")
    if looks_like_path and not options.allow_files:
        raise ToolFailure(FILE_ACCESS_DENIED, f"the {kind} '{clip(name)}' looks like a file path, and this "
                          "server does not read files")
    if looks_like_path:
        raise ToolFailure(ErrorCode.FILE_NOT_FOUND, f"no such {kind} file: '{clip(name, 80)}'")
    raise ToolFailure(
        NOT_PDDL,
        f"the {kind} '{clip(name)}' is not PDDL text, a readable file or a bundled {kind} name",
        f"pass the whole PDDL text (it starts with '(define ({kind} ...'), or task='{DEFAULT_TASK}' "
        "(see list_bundled_tasks)",
    )


def _allowed_file(options: ServerOptions, kind: str, name: str) -> tuple[str | bytes, str, str]:
    """The allowed file ``name`` names (its resolved path, or its bare name
    when exactly one allowed file has it); refused before reading otherwise."""
    allowed = options.allowed_files or ()
    try:
        resolved = str(Path(name).expanduser().resolve())
    except (OSError, RuntimeError, ValueError):
        resolved = ""
    by_name = [a for a in allowed if Path(a).name == name] if Path(name).name == name else []
    if resolved in allowed:
        chosen = resolved
    elif len(by_name) == 1:
        chosen = by_name[0]
    else:
        raise _not_allowed(options, kind, name)
    shown = Path(chosen).name
    try:
        return read_file(Path(chosen), max_bytes=options.max_pddl_bytes), shown, f"file:{shown}"
    except PDDLError as err:  # said with the bare name: the path is not the model's business
        raise ToolFailure(err.code, f"cannot read the {kind} file '{shown}' ({err.code})") from None


def _not_allowed(options: ServerOptions, kind: str, name: str) -> ToolFailure:
    names = ", ".join(sorted({Path(a).name for a in options.allowed_files or ()}, key=natural_key)) or "none"
    return ToolFailure(FILE_ACCESS_DENIED, f"the {kind} '{clip(name)}' is not a file this server may read",
                       f"this server reads only the task's own files ({names}); pass one of those names, or the "
                       "PDDL text itself")


def _bundled_input(kind: str, name: str, bundled_domain: str | None) -> tuple[str, str, str] | None:
    folded = name.lower().removesuffix(".pddl")
    try:
        if kind == "domain":
            if folded in bundled_domains():
                path = bundled_root("domains") / f"{folded}.pddl"
                return path.read_text(), path.name, f"bundled:{folded}"
            return None
        candidates = [folded] if "/" in folded else ([f"{bundled_domain}/{folded}"] if bundled_domain else [])
        for candidate in candidates:
            if candidate in bundled_tasks():
                _, path = bundled_task(candidate)
                return path.read_text(), f"{candidate}.pddl", f"bundled:{candidate}"
    except PDDLError:
        return None
    return None


def build_session(
    options: ServerOptions, spec: TaskInput, feedback: FeedbackLevel, cancel: threading.Event | None = None,
    heuristic: str = "h_ff", proof_budget: int = 0, *,
    observation: str | None = None, detect_loops: bool | None = None, backend: str = "auto",
) -> Session | TemporalSession:
    """The session :func:`pypddlengine.session.open_session` opens on the
    texts (parse, check and pick the backend, ``backend``, see
    :func:`pypddlengine.session.build_backend`), with the server's limits,
    grounding if chosen (CPU-bound: runs in a worker thread); setting
    ``cancel`` stops the grounding within a few milliseconds. At the
    heuristic levels the relaxed operators the first feedback needs are built
    here too, under the same time limit and cancellation. A temporal task
    opens a :class:`~pypddlengine.temporal_session.TemporalSession`
    (:func:`~pypddlengine.temporal_session.open_temporal_session`; options of
    heuristics, observation and backends are refused there, see docs/time.md)."""
    started = time.monotonic()
    grounding = GroundingOptions(max_actions=options.max_ground_actions, max_atoms=options.max_ground_atoms,
                                 max_seconds=options.grounding_timeout, cancel=cancel)
    try:
        session = open_session(spec.domain, spec.problem, domain_name=spec.domain_name,
                               problem_name=spec.problem_name, max_bytes=options.max_pddl_bytes, text=True,
                               backend=backend, options=grounding, feedback=feedback, heuristic=heuristic,
                               proof_budget=proof_budget, observation=observation, detect_loops=detect_loops)
    except PDDLError as err:  # a temporal task: a session with a clock (the options of heuristics do not apply)
        if not needs_time(err):
            raise
        return open_temporal_session(spec.domain, spec.problem, domain_name=spec.domain_name,
                                     problem_name=spec.problem_name, max_bytes=options.max_pddl_bytes, text=True,
                                     observation=observation, heuristic=heuristic, proof_budget=proof_budget,
                                     detect_loops=detect_loops, backend=backend)
    if session.feedback_level >= FeedbackLevel.HEURISTIC and session.grounded is not None:
        session.grounded.relaxed_operators(stop_check(grounding, started, "the relaxed analysis at session start"))
    return session


def summarise_objects(session: Session | TemporalSession) -> dict[str, list[str]]:
    lifted = session.lifted
    groups: dict[str, list[str]] = {}
    for oid, name in enumerate(lifted.object_display):
        types = lifted.object_types[oid]
        key = types[0] if len(types) == 1 else f"(either {' '.join(types)})"
        groups.setdefault(key, []).append(name)
    return {t: sorted(groups[t], key=natural_key) for t in sorted(groups)}


def summarise_actions(session: Session) -> list[m.ActionSchemaView]:
    out = []
    lifted = session.lifted
    decls = {a.name: a for a in lifted.domain.actions}
    for schema in sorted(lifted.schemas, key=lambda s: s.name):
        decl = decls.get(schema.name)
        out.append(
            m.ActionSchemaView(
                name=schema.display,
                parameters=lifted.signature(schema)[1:-1],
                precondition=format_condition(decl.precondition) if decl and decl.precondition else None,
                effect=format_effect(decl.effect) if decl and decl.effect else None,
            )
        )
    return out


