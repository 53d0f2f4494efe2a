"""The ``fuel-delivery`` problem generator (a numeric domain of our own; see
``domains/fuel-delivery.pddl``). A pure function of its sizes and a seed.

Every generated task is solvable, by construction:

* the roads contain a random spanning tree (each location joins an earlier
  one), both ways; extra roads are added only where one end is a depot;
* the depots are the locations at even depth in that tree, so of any two
  neighbours on a tree path one is a depot;
* every tank holds at least twice the longest road, and every truck starts
  at a depot with a full tank; so along any tree path a truck meets a depot
  at least every second road, refuels there, and never runs dry;
* every capacity is at least the heaviest package, so a truck can always
  carry a package on its own.

So a truck can fetch and deliver the packages one at a time. Weights,
prices and some capacities are decimals (0.5 steps), which exercises the
engine's exact arithmetic.
"""

from __future__ import annotations

import random
from fractions import Fraction

from pypddlengine.exact import to_text

from .text import Atom, generated_by, problem_text

__all__ = ["fuel_delivery"]

_WEIGHTS = (Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2), Fraction(5, 2), Fraction(3))
_PRICES = (Fraction(1), Fraction(5, 4), Fraction(3, 2), Fraction(2))


def _fact(function: str, *args: object) -> Atom:
    """An initial value as a group item: ``("=", "(f a b)", "3.5")``."""
    *objects, value = args
    return ("=", "(" + " ".join([function, *map(str, objects)]) + ")", to_text(value))  # type: ignore[arg-type]


def fuel_delivery(locations: int, trucks: int, packages: int, *, seed: int = 0, extra_roads: int | None = None,
                  name: str | None = None) -> str:
    """A fuel-delivery task: ``locations`` locations joined by roads (a random
    tree plus ``extra_roads``, default a third of the locations), ``trucks``
    trucks at random depots with full tanks, ``packages`` packages with random
    start and goal locations (different) and weights."""
    if locations < 2 or trucks < 1 or packages < 1:
        raise ValueError("fuel-delivery needs at least two locations, one truck and one package")
    rng = random.Random(seed)
    locs = [f"l{i}" for i in range(1, locations + 1)]
    depth = {0: 0}
    roads: dict[tuple[int, int], int] = {}
    for i in range(1, locations):
        j = rng.randrange(i)
        depth[i] = depth[j] + 1
        roads[(j, i)] = roads[(i, j)] = rng.randint(1, 9)
    depots = [i for i in range(locations) if depth[i] % 2 == 0]
    extra = locations // 3 if extra_roads is None else extra_roads
    candidates = [(a, b) for a in range(locations) for b in range(a + 1, locations)
                  if (a, b) not in roads and (depth[a] % 2 == 0 or depth[b] % 2 == 0)]
    for a, b in rng.sample(candidates, min(extra, len(candidates))):
        roads[(a, b)] = roads[(b, a)] = rng.randint(1, 9)
    longest = max(roads.values())
    truck_names = [f"t{i}" for i in range(1, trucks + 1)]
    pkg_names = [f"p{i}" for i in range(1, packages + 1)]
    weight = {p: rng.choice(_WEIGHTS) for p in pkg_names}
    heaviest = max(weight.values())
    tank = {t: 2 * longest + rng.randint(0, 4) for t in truck_names}
    capacity = {t: heaviest + Fraction(rng.randint(0, 6), 2) for t in truck_names}
    start = {t: rng.choice(depots) for t in truck_names}
    pkg_start = {p: rng.randrange(locations) for p in pkg_names}
    pkg_goal = {p: rng.choice([i for i in range(locations) if i != pkg_start[p]]) for p in pkg_names}

    init: list[list[Atom]] = [[("road", locs[a], locs[b]) for a, b in sorted(roads)]]
    init.append([_fact("distance", locs[a], locs[b], d) for (a, b), d in sorted(roads.items())])
    init.append([("depot", locs[i]) for i in depots] + [_fact("price", locs[i], rng.choice(_PRICES)) for i in depots])
    for t in truck_names:
        init.append([("at", t, locs[start[t]]), _fact("fuel", t, tank[t]), _fact("tank", t, tank[t]),
                     _fact("cargo", t, 0), _fact("capacity", t, capacity[t])])
    init.append([("pkg-at", p, locs[pkg_start[p]]) for p in pkg_names] + [_fact("weight", p, weight[p])
                                                                          for p in pkg_names])
    init.append([_fact("fuel-used", 0), _fact("money-spent", 0)])
    goal: list[Atom] = [("pkg-at", p, locs[pkg_goal[p]]) for p in pkg_names]
    comments = [
        f"Fuel delivery, {locations} locations ({len(roads) // 2} roads, {len(depots)} depots), "
        f"{trucks} truck(s), {packages} package(s) (seed {seed}); solvable by construction",
        generated_by("fuel-delivery", locations=locations, trucks=trucks, packages=packages, seed=seed,
                     extra_roads=extra_roads, name=name),
    ]
    label = name or f"fuel-delivery-{locations}-{trucks}-{packages}-{seed}"
    return problem_text(label, "fuel-delivery", [(locs, "location"), (truck_names, "truck"), (pkg_names, "package")],
                        init, goal, comments, metric="minimize (+ (fuel-used) (money-spent))")
