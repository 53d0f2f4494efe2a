"""Blocksworld problem generators (4-operator, limited table, block sizes, Hanoi).

Every function is pure: it takes sizes and a seed and returns the problem
text for one of the bundled domains (``domains/blocksworld.pddl``,
``domains/blocksworld-table.pddl``, ``domains/blocksworld-sizes.pddl``).
Start and goal states are drawn independently and uniformly with the
samplers in :mod:`.towers`; with ``nontrivial=True`` (the default) a goal
that already holds at the start is drawn again.

Goals follow the IPC convention for the plain domain (the ``on`` atoms of the
goal state; the ``ontable`` atoms only when ``full_goal`` is set, or when the
goal state has no ``on`` atom at all). In the two domains with table
positions the goal also fixes where each goal tower stands (``ontable b p``),
unless ``goal_positions=False``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .text import Atom, block_names, generated_by, problem_text
from .towers import SizedTowerSampler, TowerSampler, TowerState

__all__ = [
    "blocksworld",
    "blocksworld_sizes",
    "blocksworld_table",
    "goal_atoms",
    "hanoi",
    "position_names",
    "state_atoms",
]

MAX_DRAWS = 1000


def position_names(p: int) -> list[str]:
    return [f"p{i}" for i in range(1, p + 1)]


def state_atoms(state: TowerState, positions: Sequence[str] | None = None) -> list[list[Atom]]:
    """Init atoms of a state with an empty hand, one group per tower (the
    table positions left free and ``handempty`` on the last line)."""
    groups: list[list[Atom]] = []
    s = state.sorted()
    for i, tower in enumerate(s.towers):
        group: list[Atom] = []
        if positions is None:
            group.append(("ontable", tower[0]))
        else:
            assert s.positions is not None
            group.append(("ontable", tower[0], positions[s.positions[i]]))
        group.extend(("on", tower[j], tower[j - 1]) for j in range(1, len(tower)))
        group.append(("clear", tower[-1]))
        groups.append(group)
    last: list[Atom] = []
    if positions is not None:
        used = set(s.positions or ())
        last.extend(("free", p) for i, p in enumerate(positions) if i not in used)
    last.append(("handempty",))
    groups.append(last)
    return groups


def goal_atoms(
    state: TowerState, positions: Sequence[str] | None = None, *, full: bool = False, with_positions: bool = True
) -> list[Atom]:
    """Goal atoms describing ``state`` (see the module docstring)."""
    s = state.sorted()
    on: list[Atom] = []
    table: list[Atom] = []
    for i, tower in enumerate(s.towers):
        if positions is not None and with_positions:
            assert s.positions is not None
            table.append(("ontable", tower[0], positions[s.positions[i]]))
        elif positions is None:
            table.append(("ontable", tower[0]))
        on.extend(("on", tower[j], tower[j - 1]) for j in range(1, len(tower)))
    if positions is not None:
        return table + on if with_positions else on
    return table + on if full or not on else on


def _satisfied(goal: Sequence[Atom], init: list[list[Atom]]) -> bool:
    facts = {a for group in init for a in group}
    return all(g in facts for g in goal)


def _draw_pair(
    rng: random.Random,
    draw: object,
    make_goal: object,
    positions: Sequence[str] | None,
    nontrivial: bool,
) -> tuple[TowerState, TowerState, list[list[Atom]], list[Atom]]:
    for _ in range(MAX_DRAWS):
        start = draw()  # type: ignore[operator]
        target = draw()  # type: ignore[operator]
        init = state_atoms(start, positions)
        goal = make_goal(target)  # type: ignore[operator]
        if not nontrivial or not _satisfied(goal, init):
            return start, target, init, goal
    raise ValueError(f"no start/goal pair with an unsatisfied goal in {MAX_DRAWS} draws (too few blocks?)")


def blocksworld(
    blocks: int, seed: int, *, name: str | None = None, full_goal: bool = False, nontrivial: bool = True
) -> str:
    """A 4-operator Blocksworld task (domain ``blocksworld``): start and goal
    uniform random states over ``blocks`` blocks."""
    if blocks < 1:
        raise ValueError("blocksworld needs at least one block")
    if nontrivial and blocks < 2:
        raise ValueError("with one block every goal holds at the start; use nontrivial=False")
    rng = random.Random(seed)
    names = block_names(blocks)
    sampler = TowerSampler(blocks)
    _, _, init, goal = _draw_pair(
        rng, lambda: sampler.sample(rng, names), lambda s: goal_atoms(s, full=full_goal), None, nontrivial
    )
    comments = [
        f"Blocksworld, {blocks} blocks: start and goal drawn uniformly at random (Slaney & Thiebaux), seed {seed}",
        generated_by("blocksworld", blocks=blocks, seed=seed, full_goal=full_goal, name=name),
    ]
    return problem_text(name or f"bw-{blocks}-{seed}", "blocksworld", [(names, "block")], init, goal, comments)


def _check_positions(positions: int, minimum: int = 3) -> None:
    if positions < minimum:
        raise ValueError(
            f"use at least {minimum} table positions: with fewer, some goals are unreachable "
            "(see pypddl generate unsolvable)"
        )


def blocksworld_table(
    blocks: int,
    positions: int,
    seed: int,
    *,
    name: str | None = None,
    goal_positions: bool = True,
    nontrivial: bool = True,
) -> str:
    """Blocksworld on a table with ``positions`` places, one tower each
    (domain ``blocksworld-table``). Start and goal are uniform over the
    states with at most ``positions`` towers, positions included. With three
    or more positions every such goal is reachable."""
    if blocks < 1:
        raise ValueError("blocksworld-table needs at least one block")
    _check_positions(positions)
    rng = random.Random(seed)
    names = block_names(blocks)
    places = position_names(positions)
    sampler = TowerSampler(blocks, positions)
    _, _, init, goal = _draw_pair(
        rng,
        lambda: sampler.sample(rng, names),
        lambda s: goal_atoms(s, places, with_positions=goal_positions),
        places,
        nontrivial,
    )
    comments = [
        f"Blocksworld with {positions} table positions (one tower each), {blocks} blocks: start and goal uniform "
        f"random states (seed {seed})",
        generated_by(
            "blocksworld-table", blocks=blocks, positions=positions, seed=seed,
            no_goal_positions=not goal_positions, name=name,
        ),
    ]
    objects = [(names, "block"), (places, "position")]
    return problem_text(name or f"bwt-{blocks}-{positions}-{seed}", "blocksworld-table", objects, init, goal, comments)


def fits_atoms(sizes: dict[str, int]) -> list[Atom]:
    """``(fits x y)`` for every pair of distinct blocks with size(x) <= size(y)."""
    return [("fits", x, y) for x in sizes for y in sizes if x != y and sizes[x] <= sizes[y]]


def _sized_task(
    name: str,
    sizes: dict[str, int],
    places: list[str],
    start: TowerState,
    goal: list[Atom],
    comments: list[str],
) -> str:
    init = state_atoms(start, places)
    init.append(fits_atoms(sizes))
    objects = [(list(sizes), "block"), (places, "position")]
    return problem_text(name, "blocksworld-sizes", objects, init, goal, comments)


def _size_comment(sizes: dict[str, int]) -> str:
    listed = ", ".join(f"{b}={s}" for b, s in sizes.items())
    return f"sizes: {listed} (a block may stand only on one at least as large)"


def blocksworld_sizes(
    blocks: int,
    positions: int,
    size_classes: int,
    seed: int,
    *,
    name: str | None = None,
    goal_positions: bool = True,
    nontrivial: bool = True,
) -> str:
    """Blocksworld with block sizes and ``positions`` table places (domain
    ``blocksworld-sizes``, the Blocksworld-MCP ``block_size`` rule): each
    block gets a size drawn from 1..``size_classes``; start and goal are
    uniform over the states where no block stands on a smaller one."""
    if blocks < 1 or size_classes < 1:
        raise ValueError("blocksworld-sizes needs at least one block and one size class")
    _check_positions(positions)
    rng = random.Random(seed)
    names = block_names(blocks)
    sizes = {b: rng.randint(1, size_classes) for b in names}
    places = position_names(positions)
    sampler = SizedTowerSampler(sizes, positions)
    start, _, _, goal = _draw_pair(
        rng, lambda: sampler.sample(rng), lambda s: goal_atoms(s, places, with_positions=goal_positions),
        places, nontrivial,
    )
    comments = [
        f"Blocksworld with block sizes and {positions} table positions, {blocks} blocks in {size_classes} size "
        f"classes: start and goal uniform random size-respecting states (seed {seed})",
        _size_comment(sizes),
        generated_by(
            "blocksworld-sizes", blocks=blocks, positions=positions, size_classes=size_classes, seed=seed,
            no_goal_positions=not goal_positions, name=name,
        ),
    ]
    return _sized_task(name or f"bws-{blocks}-{positions}-{seed}", sizes, places, start, goal, comments)


def hanoi_disks(disks: int) -> dict[str, int]:
    """Disk names ``d1`` (smallest) .. ``dN`` (largest) with sizes 1..N."""
    return {f"d{i}": i for i in range(1, disks + 1)}


def hanoi(disks: int, positions: int = 3, *, name: str | None = None, target: int | None = None) -> str:
    """Towers of Hanoi as a ``blocksworld-sizes`` task: all disks on ``p1``,
    to be moved to ``p<target>`` (default: the last position). With three
    positions the shortest plan has 2 * (2^disks - 1) actions (each Hanoi
    move is a pick-up/unstack and a put-down/stack)."""
    if disks < 1:
        raise ValueError("hanoi needs at least one disk")
    if positions < 2:
        raise ValueError("hanoi needs at least two positions")
    target = positions if target is None else target
    if not 2 <= target <= positions:
        raise ValueError(f"the target position must be in 2..{positions}")
    sizes = hanoi_disks(disks)
    order = tuple(reversed(list(sizes)))  # largest at the bottom
    places = position_names(positions)
    start = TowerState((order,), (0,))
    goal_state = TowerState((order,), (target - 1,))
    goal = goal_atoms(goal_state, places)
    optimal = f"; shortest plan: {2 * (2**disks - 1)} actions" if positions == 3 else ""
    comments = [
        f"Towers of Hanoi, {disks} disks on {positions} positions, from p1 to p{target}{optimal}",
        _size_comment(sizes),
        generated_by("hanoi", disks=disks, positions=positions, target=target, name=name),
    ]
    return _sized_task(name or f"hanoi-{disks}", sizes, places, start, goal, comments)
