"""The interactive terminal session behind ``pypddl play``.

An adapter: it reads lines, drives a :class:`~pypddlengine.session.Session`
and writes through the ``echo`` function it is given, so tests can drive it
with a list of lines and collect the output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .deadends import dead_end
from .errors import PDDLError, counted
from .heuristics import HEURISTICS, relaxed_task
from .session import FEATURES_OFF, Failure, FeedbackLevel, Session, StepResult

__all__ = ["HELP", "INTERRUPTED", "run_repl"]

INTERRUPTED = 130
"""``run_repl``'s status after Ctrl-C (128 + SIGINT, as shells report it)."""

HELP = """\
commands:
  (action args) | action args   execute an action, e.g. (unstack c a)
  state                         the current state (static facts included)
  actions                       the applicable actions
  goal                          which goal atoms hold
  why (action args)             explain whether an action is applicable
  undo [n]                      undo the last n steps (default 1)
  save NAME | restore NAME      save the state and history as a checkpoint, or go back to one
  checkpoints | delete NAME     list the checkpoints, or forget one
  reset                         back to the initial state
  history                       the executed actions
  write FILE                    write the history as a plan file (what 'pypddl validate' reads)
  validate                      validate the history as a plan
  distance                      relaxed-plan distance to the goal (h_FF)
  heuristics                    every heuristic value and the landmarks reached so far
  deadend [n]                   prove a dead end, searching at most n states (default 10000)
  help                          this text
  quit                          leave"""


SUMMARY_CHARS = 400
"""A goal or state line longer than this is cut, saying how many atoms were left out."""


def summarised(atoms: list[str], command: str, limit: int = SUMMARY_CHARS) -> str:
    """``atoms`` joined by spaces; past ``limit`` characters the rest is
    counted, with the command that shows them all."""
    shown: list[str] = []
    size = 0
    for atom in atoms:
        if shown and size + len(atom) + 1 > limit:
            return f"{' '.join(shown)} ... and {len(atoms) - len(shown)} more ('{command}' shows them all)"
        shown.append(atom)
        size += len(atom) + 1
    return " ".join(shown)


def _paper_step(result: StepResult, state: list[str], values: list[str] = ()) -> list[str]:  # type: ignore[assignment]
    """A step at feedback level paper: the success flag, the state and the
    goal-reached flag, nothing more (see ``mcp_server/render.py``)."""
    return [f"{'ok' if result.success else 'x'} {result.action}", f"  state: {summarised(state, 'state')}",
            *([f"  values: {', '.join(values)}"] if values else []),
            f"  goal reached: {'yes' if result.goal_reached else 'no'}"]


def _describe_step(result: StepResult) -> list[str]:
    if not result.success:
        f = result.failure
        assert f is not None
        return [f"x {result.action}: {f.message} [{f.code}]", *_failure_details(f)]
    lines = [f"ok {result.action}  (step {result.step})"]
    if result.added:
        lines.append(f"  + {' '.join(result.added)}")
    if result.deleted:
        lines.append(f"  - {' '.join(result.deleted)}")
    if result.changed:
        lines.append(f"  = {', '.join(result.changed)}")
    fb = result.feedback
    if fb is not None:
        if fb.goals is not None:
            lines.append(f"  goal atoms: {len(fb.goals.satisfied)}/{fb.goals.total}")
        if fb.distance is not None:
            change = f" ({fb.distance_change:+g})" if fb.distance_change is not None else ""
            name = {None: "h_FF", "h_ff": "h_FF"}.get(fb.heuristic, fb.heuristic)
            lines.append(f"  distance ({name}): {fb.distance:g}{change}")
        if fb.landmarks_total is not None:
            lines.append(f"  landmarks: {fb.landmarks_accepted}/{fb.landmarks_total}")
        lists = (("landmarks reached", fb.landmarks_achieved), ("landmarks needed again", fb.landmarks_required_again),
                 ("relaxed plan starts", fb.relaxed_plan))
        lines += [f"  {title}: {' '.join(items)}" for title, items in lists if items]
        lines += [f"  note: {n}" for n in fb.notes]
    if result.goal_reached:
        lines.append("  goal reached! type 'validate' to check the whole plan")
    return lines


def _failure_details(f: Failure) -> list[str]:
    """The lines under a failure: unsatisfied conditions, suggestions (unless
    the message already names the first one) and hints."""
    lines = [f"  unsatisfied: {u}" for u in f.unsatisfied]
    if f.suggestions and f"'{f.suggestions[0]}'" not in f.message:
        lines.append(f"  did you mean: {', '.join(f.suggestions)}")
    return lines + [f"  hint: {h}" for h in f.hints]


def _undo(session: Session, rest: str) -> list[str]:
    text = rest.strip()
    if text and not text.isdigit():
        return [f"x undo takes a number of steps, e.g. 'undo 2', not '{text}'; nothing was undone"]
    wanted = int(text) if text else 1
    done = session.undo(wanted)
    if done < wanted:
        return [f"undid {counted(done, 'step')}: only {counted(done, 'step')} had been executed"]
    return [f"undid {counted(done, 'step')}"]


def _checkpoint(session: Session, word: str, rest: str) -> list[str]:
    name = rest.strip()
    if word == "checkpoints":
        return [f"{c.name}  (step {c.step})" for c in session.checkpoints()] or ["(no checkpoints)"]
    if not name:
        return [f"x {word} takes a checkpoint name, e.g. '{word} before-tower'"]
    try:
        if word == "save":
            return [f"saved '{session.save(name).name}' at step {len(session.history)}"]
        if word == "restore":
            cp = session.restore(name)
            return [f"restored '{cp.name}': back at step {cp.step}"]
        return [f"deleted '{session.delete_checkpoint(name).name}'"]
    except PDDLError as err:
        return [f"x {err.message} [{err.code}]", *([f"  hint: {err.hint}"] if err.hint else [])]


def handle(session: Session, line: str) -> tuple[list[str], bool]:
    """Run one input line; return the output lines and whether to stop."""
    text = line.strip()
    word, _, rest = text.partition(" ")
    word = word.lower()
    if not text:
        return [], False
    if word in {"quit", "exit", "q"}:
        return [], True
    if word in {"help", "?"}:
        return HELP.splitlines(), False
    if word == "state":
        return [*session.state_atoms(), *session.state_values()], False
    if word == "actions":
        names = session.applicable_names()
        return [f"{len(names)} applicable:", *names], False
    if word == "goal":
        g = session.goal_status()
        return [f"satisfied: {' '.join(g.satisfied) or '-'}", f"unsatisfied: {' '.join(g.unsatisfied) or '-'}"], False
    if word == "why":
        e = session.explain(rest)
        if e.applicable:
            return [f"{e.action} is applicable"], False
        f = e.failure
        assert f is not None
        return [f"{e.action}: {f.message} [{f.code}]", *_failure_details(f)], False
    if word == "undo":
        return _undo(session, rest), False
    if word in {"save", "restore", "delete", "checkpoints"}:
        return _checkpoint(session, word, rest), False
    if word == "reset":
        session.reset()
        return ["back to the initial state"], False
    if word == "history":
        plan = session.plan()
        return [f"{i}. {a}" for i, a in enumerate(plan, 1)] or ["(no steps yet)"], False
    if word == "write":
        return _write_plan(session, rest), False
    if word == "validate":
        return [session.validate().summary()], False
    if word in ("distance", "heuristics") and session.grounded is None:
        return [f"{word}: {FEATURES_OFF}"], False
    if word == "distance":
        a = session.analysis()
        if a.dead_end:
            return ["dead end: the goal cannot be reached from here"], False
        return [f"h_FF = {a.h_ff:g}, h_add = {a.h_add:g}"], False
    if word == "heuristics":
        return _heuristics(session), False
    if word == "deadend":
        return _deadend(session, rest), False
    result = session.execute(text)
    if session.feedback_level == FeedbackLevel.PAPER:
        return _paper_step(result, session.state_atoms(), session.state_values()), False
    return _describe_step(result), False


COMMANDS = ("state", "actions", "goal", "why ", "undo", "save ", "restore ", "checkpoints", "delete ", "reset",
            "history", "write ", "validate", "distance", "heuristics", "deadend", "help", "quit")


def _write_plan(session: Session, rest: str) -> list[str]:
    """The history as a plan file: one ``(action args)`` per line, as
    ``pypddl validate`` and VAL read it."""
    path = rest.strip()
    if not path:
        return ["x write takes a file name, e.g. 'write p01.plan'"]
    plan = session.plan()
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write("".join(f"{step}\n" for step in plan))
    except OSError as err:
        return [f"x cannot write '{path}': {err.strerror or err}"]
    return [f"wrote {counted(len(plan), 'step')} to {path}"]


def _heuristics(session: Session) -> list[str]:
    rt = relaxed_task(session.grounded)  # type: ignore[arg-type]
    values = [f"{name} = {rt.value(name, session.state):g}" for name in HEURISTICS]
    lines = [", ".join(values)]
    progress = session.landmark_progress()
    lm = session.landmarks()
    if progress is not None and lm is not None:
        render = session.task.render_atom
        lines.append(f"landmarks: {len(progress.accepted)}/{len(lm.atoms)} reached, lm_count = {progress.lm_count}")
        if progress.required_again:
            lines.append(f"needed again: {' '.join(sorted(render(a) for a in progress.required_again))}")
    return lines


def _deadend(session: Session, rest: str) -> list[str]:
    text = rest.strip()
    if text and not text.isdigit():
        return [f"x deadend takes a number of states, e.g. 'deadend 5000', not '{text}'"]
    verdict = dead_end(session.task, session.state, int(text) if text else 10_000)
    lines = [verdict.status]
    if verdict.unreachable_goals:
        render = session.task.render_atom
        lines.append("unreachable: " + " ".join(render(g) for g in verdict.unreachable_goals if g >= 0))
    if verdict.states:
        lines.append(f"searched {counted(verdict.states, 'state')}")
    if verdict.plan_length is not None:
        lines.append(f"a shortest plan from here has {counted(verdict.plan_length, 'step')}")
    return lines


def completions(session: Session, prefix: str) -> list[str]:
    """What Tab offers for ``prefix``: commands, and the applicable actions in
    the form being typed: ``(unstack c a)`` after ``(``, ``unstack c a``
    otherwise (also after ``why ``)."""
    head, word, rest = "", prefix, ""
    if prefix.lower().startswith("why "):
        head, rest = prefix[:4], prefix[4:]
        word = rest
    actions = session.applicable_names()
    if word.startswith("("):
        options = actions
    else:
        options = [a[1:-1] for a in actions]
        if not head:
            options = [*COMMANDS, *options]
    folded = word.lower()
    return [head + o for o in options if o.lower().startswith(folded)]


def _completer(session: Session) -> Callable[[str, int], str | None]:
    cache: dict[str, list[str]] = {}

    def complete(prefix: str, index: int) -> str | None:
        if index == 0 or prefix not in cache:
            cache.clear()
            cache[prefix] = completions(session, prefix)
        options = cache[prefix]
        return options[index] if index < len(options) else None

    return complete


def run_repl(session: Session, echo: Callable[[str], None], input_fn: Callable[[str], str] | None,
             lines: Iterable[str] | None = None) -> int:
    """Loop until 'quit' or end of input (status 0) or Ctrl-C (status
    :data:`INTERRUPTED`). ``lines`` replaces the terminal."""
    task = session.lifted
    size = "lifted" if session.grounded is None else f"{len(session.grounded.actions)} ground actions"
    echo(f"{task.problem.display or task.problem.name} ({task.domain.display or task.domain.name}): "
         f"{size}. Type 'help' for commands.")
    if session.grounded is None:
        echo(f"backend: {session.backend_note}")
    goal = session.goal_status()
    echo(f"goal: {summarised([*goal.unsatisfied, *goal.satisfied], 'goal')}")
    start = session.current_feedback() if session.feedback_level >= FeedbackLevel.HEURISTIC else None
    if start is not None and start.dead_end:  # the task is proved unsolvable
        for note in start.notes:
            echo(f"note: {note}")
    if lines is None:
        try:
            import readline

            readline.set_completer(_completer(session))
            readline.set_completer_delims("")
            readline.parse_and_bind("tab: complete")
        except ImportError:  # pragma: no cover - no readline on this platform
            pass
    return loop(lambda line: handle(session, line), echo, input_fn, lines, lambda: "pypddl> ")


def loop(handle_line: Callable[[str], tuple[list[str], bool]], echo: Callable[[str], None],
         input_fn: Callable[[str], str] | None, lines: Iterable[str] | None, prompt: Callable[[], str]) -> int:
    """Read commands (``lines``, else the terminal with ``prompt``) and echo
    what ``handle_line`` answers, until it says stop or the input ends (status
    0), or Ctrl-C (:data:`INTERRUPTED`)."""
    if lines is None:
        read = input_fn or input
        source: Iterable[str] = iter(lambda: read(prompt()), None)  # type: ignore[arg-type]
    else:
        source = lines
    try:
        for line in source:
            out, stop = handle_line(line)
            for text in out:
                echo(text)
            if stop:
                break
    except EOFError:
        echo("")
    except KeyboardInterrupt:
        echo("")
        return INTERRUPTED
    return 0
