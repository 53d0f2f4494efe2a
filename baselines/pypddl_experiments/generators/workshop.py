"""The ``workshop`` problem generator (a temporal domain of our own: durative
actions, a duration inequality, timed initial literals; see
``domains/workshop.pddl``). A pure function of its sizes and a seed.

The bays lie along a corridor (``b1 - b2 - ... - bN``, both ways) with a few
random shortcuts; technicians start in random bays; every machine is broken
and the goal is every machine tested. The first ``dark`` bays are dark, and
the first machine stands in a dark bay when there is one, so such a task
**requires concurrency**: its repair needs a lamp that only another
technician's running ``hold-lamp`` provides. Options add timed initial
literals: ``opens_at`` (the workshop opens late), ``deadline`` (it closes),
``sunset`` (the last bright bay goes dark at a random time).

Every generated task is solvable, by construction: two technicians working
as a pair (both walk to a machine's bay, one holds the lamp when the bay is
dark, the other repairs, then tests) need at most ``3 (bays - 1) + 15`` time
units a machine (walks, waiting out a sunset, repair inside a lamp, test),
and the closing time is the opening time plus that bound for every machine.
"""

from __future__ import annotations

import random

from .text import Atom, generated_by, problem_text

__all__ = ["workshop", "workshop_deadline"]

WALK, PER_MACHINE_SLACK = 3, 15


def workshop_deadline(bays: int, machines: int, opens_at: int = 0) -> int:
    """The closing time a ``deadline`` task gets: late enough for the pair schedule."""
    return opens_at + machines * (WALK * (bays - 1) + PER_MACHINE_SLACK)


def workshop(bays: int, technicians: int, machines: int, *, dark: int = 0, seed: int = 0, deadline: bool = False,
             opens_at: int | None = None, sunset: bool = False, name: str | None = None) -> str:
    """A workshop task (see the module docstring)."""
    if bays < 1 or technicians < 1 or machines < 1:
        raise ValueError("workshop needs at least one bay, one technician and one machine")
    if not 0 <= dark <= bays:
        raise ValueError(f"dark bays must be between 0 and the number of bays ({bays})")
    if (dark or sunset) and technicians < 2:
        raise ValueError("dark bays (and a sunset) need at least two technicians: one holds the lamp")
    if sunset and dark == bays:
        raise ValueError("a sunset needs a bright bay")
    if opens_at is not None and opens_at <= 0:
        raise ValueError("--opens-at must be a positive time")
    rng = random.Random(seed)
    bay = [f"b{i}" for i in range(1, bays + 1)]
    techs = [f"t{i}" for i in range(1, technicians + 1)]
    machs = [f"m{i}" for i in range(1, machines + 1)]
    links = {(i, i + 1) for i in range(bays - 1)}
    shortcuts = [(i, j) for i in range(bays) for j in range(i + 2, bays)]
    links |= set(rng.sample(shortcuts, min(len(shortcuts), bays // 3)))
    where = [rng.randrange(bays) for _ in machs]
    if dark:
        where[0] = rng.randrange(dark)

    roads: list[Atom] = [("connected", bay[i], bay[j]) for i, j in sorted(links)]
    roads += [("connected", bay[j], bay[i]) for i, j in sorted(links)]
    light: list[Atom] = [("dark", b) for b in bay[:dark]]
    light += [("lit", b) for b in bay[dark:]]
    people: list[Atom] = [("at", t, bay[rng.randrange(bays)]) for t in techs]
    people += [("free", t) for t in techs]
    things: list[Atom] = [("in", m, bay[w]) for m, w in zip(machs, where, strict=True)]
    things += [("broken", m) for m in machs]
    init: list[list[Atom]] = [roads, light, people, things]
    timed: list[Atom] = []
    if opens_at is None:
        init.append([("open",)])
    else:
        timed.append(("at", str(opens_at), "(open)"))
    if sunset:
        when, last = rng.randint(10, 30), bay[-1]
        timed += [("at", str(when), f"(not (lit {last}))"), ("at", str(when), f"(dark {last})")]
    if deadline:
        timed.append(("at", str(workshop_deadline(bays, machines, opens_at or 0)), "(not (open))"))
    if timed:
        init.append(timed)
    goal: list[Atom] = [("tested", m) for m in machs]
    extras = [what for what, on in (("opens late", opens_at), ("closes", deadline), ("sunset", sunset)) if on]
    comments = [
        f"Workshop, {bays} bay(s) ({dark} dark), {technicians} technician(s), {machines} machine(s) (seed {seed})"
        + (f"; timed initial literals: {', '.join(extras)}" if extras else "")
        + ("; requires concurrency (a dark bay)" if dark else "") + "; solvable by construction",
        generated_by("workshop", bays=bays, technicians=technicians, machines=machines, dark=dark or None,
                     deadline=deadline, opens_at=opens_at, sunset=sunset, seed=seed, name=name),
    ]
    label = name or f"workshop-{bays}-{technicians}-{machines}-{seed}"
    return problem_text(label, "workshop", [(techs, "technician"), (machs, "machine"), (bay, "bay")], init, goal,
                        comments, metric="minimize (total-time)")
