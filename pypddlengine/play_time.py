"""``pypddl play`` on a temporal task: the clock, the running actions, and
commands to start, end, let time pass and write the timed plan (issue 31)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import PDDLError
from .play import loop
from .temporal_session import TemporalSession, _num

__all__ = ["TIME_HELP", "handle_time", "run_time_repl"]

TIME_HELP = """commands:
  state                 the clock, running actions (id, start, end window), atoms and values
  actions               what may start now (with its duration window), end now, or run now
  start ACTION [DUR]    start a durative action now (DUR: its duration, when its start reads ?duration)
  end ID|ACTION         end a running action now
  ACTION                run a plain action now, or start a durative one
  wait [TIME]           let time pass to TIME, or to the next event (an end, a timed literal)
  undo                  take back the last step or wait
  save NAME / restore NAME
  reset                 back to time 0
  history               the timed plan so far
  write FILE            write the timed plan to FILE
  validate              judge the timed plan with the validator
  quit"""


def _state(s: TemporalSession) -> list[str]:
    out = [f"clock: {_num(s.clock)}"]
    for r in s.running:
        d = r.to_dict()
        late = "any time" if d["latest_end"] is None else d["latest_end"]
        out.append(f"  running [{r.id}] {r.action} since {d['start']}, may end {d['earliest_end']} .. {late}")
    nxt = s.next_event()
    if nxt is not None:
        out.append(f"next event: {_num(nxt)}")
    out.append("atoms: " + " ".join(s.facts()))
    if s.values():
        out.append("values: " + " ".join(s.values()))
    goal = "reached" if s.goal_reached() else "not reached: " + " ".join(s.unsatisfied_goals())
    return [*out, f"goal {goal}"]


def _actions(s: TemporalSession) -> list[str]:
    a = s.applicable()
    out = [f"start {x['action']} [{x['least']} .. {'any' if x['most'] is None else x['most']}]" for x in a["start"]]
    out += [f"end {x['id']} {x['action']} (started {x['start']})" for x in a["end"]]
    out += [x["action"] for x in a["actions"]]
    return out or ["nothing may start, end or run now: wait"]


def handle_time(s: TemporalSession, line: str) -> tuple[list[str], bool]:
    """One command: the lines to print and whether to stop."""
    word, _, rest = line.strip().partition(" ")
    rest = rest.strip()
    word = word.lower()
    try:
        if not word:
            return [], False
        if word in ("quit", "exit", "q"):
            return [], True
        if word == "help":
            return TIME_HELP.splitlines(), False
        if word == "state":
            return _state(s), False
        if word == "actions":
            return _actions(s), False
        if word in ("wait", "advance"):
            t = s.advance(rest or None)
            return [f"clock: {_num(t)}", *(f"  may end now: [{r['id']}] {r['action']}" for r in s.applicable()["end"])], False
        if word == "end":
            s.end(rest)
            return [f"ended {rest} at {_num(s.clock)}" + (" (goal reached)" if s.goal_reached() else "")], False
        if word == "start":
            head, _, last = rest.rpartition(" ")
            number = last.replace(".", "", 1).isdigit() and bool(head.strip())
            run = s.start(head.strip() if number else rest, last if number else None)
            return [f"started [{run.id}] {run.action} at {_num(run.start)}"], False
        if word == "undo":
            return ["undone" if s.undo() else "nothing to undo"], False
        if word in ("save", "restore"):
            (s.checkpoint if word == "save" else s.restore)(rest)
            return [f"{word}d {rest}" if word == "restore" else f"saved {rest}"], False
        if word == "reset":
            s.reset()
            return ["back to time 0"], False
        if word in ("history", "plan"):
            return s.plan_text().splitlines() or ["(empty)"], False
        if word == "write":
            if not rest:
                return ["write needs a file name"], False
            Path(rest).write_text(s.plan_text(), encoding="utf-8")
            return [f"wrote {len(s.history())} steps to {rest}"], False
        if word == "validate":
            r = s.validate()
            if r.valid:
                return [f"Plan valid: makespan {_num(r.makespan) if r.makespan is not None else 0}"], False
            f = r.failure
            return [f"Plan invalid: {f.message if f else 'goal not satisfied'}"], False
        began = s.step(line)  # an action's text: a durative one starts ('[d]' after it: its duration), a plain one runs
        if began is None:
            return [f"ran {line.strip()} at {_num(s.clock)}"], False
        return [f"started [{began.id}] {began.action} at {_num(began.start)}"], False
    except PDDLError as err:
        return [f"refused: {err.message}"], False


def run_time_repl(s: TemporalSession, echo: Callable[[str], None], input_fn: Callable[[str], str] | None,
                  lines: Iterable[str] | None = None) -> int:
    """Loop until 'quit' or end of input (status 0) or Ctrl-C (see :func:`pypddlengine.play.loop`)."""
    task = s.task
    echo(f"{task.problem.display or task.problem.name} ({task.domain.display or task.domain.name}): temporal, "
         f"clock {_num(s.clock)}. Type 'help' for commands.")
    echo("goal: " + " ".join(s.unsatisfied_goals()))
    return loop(lambda line: handle_time(s, line), echo, input_fn, lines, lambda: f"pypddl t={_num(s.clock)}> ")
