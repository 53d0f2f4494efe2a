"""Gripper and logistics problem generators (domains ``gripper`` and
``logistics``). Pure functions of their sizes and a seed."""

from __future__ import annotations

import random

from .text import Atom, generated_by, problem_text

__all__ = ["gripper", "gripper_optimal_length", "logistics"]


def gripper_optimal_length(balls: int) -> int:
    """Shortest plan for the standard task (all balls from the first room to
    another, robot starting with them): two balls a trip, no return after
    the last drop."""
    return 3 * balls - 1 if balls % 2 == 0 else 3 * balls


def gripper(balls: int, *, rooms: int = 2, seed: int = 0, scatter: bool = False, name: str | None = None) -> str:
    """A gripper task. Standard (``scatter=False``): robot and balls in
    ``room1``, every ball wanted in the last room; the seed is not used.
    With ``scatter``, each ball's start and goal room and the robot's room
    are drawn at random (goal room different from the start room)."""
    if balls < 1:
        raise ValueError("gripper needs at least one ball")
    if rooms < 2:
        raise ValueError("gripper needs at least two rooms")
    rng = random.Random(seed)
    room_names = [f"room{i}" for i in range(1, rooms + 1)]
    ball_names = [f"ball{i}" for i in range(1, balls + 1)]
    if scatter:
        robot = rng.choice(room_names)
        start = {b: rng.choice(room_names) for b in ball_names}
        goal = {b: rng.choice([r for r in room_names if r != start[b]]) for b in ball_names}
        what = f"balls and robot scattered at random over {rooms} rooms (seed {seed})"
        command = generated_by("gripper", balls=balls, rooms=rooms, scatter=True, seed=seed, name=name)
    else:
        robot = room_names[0]
        start = dict.fromkeys(ball_names, room_names[0])
        goal = dict.fromkeys(ball_names, room_names[-1])
        what = f"all from {room_names[0]} to {room_names[-1]}; shortest plan: {gripper_optimal_length(balls)} actions"
        command = generated_by("gripper", balls=balls, rooms=rooms if rooms != 2 else None, name=name)
    init: list[list[Atom]] = [[("robot-at", robot), ("empty", "left"), ("empty", "right")]]
    init.append([("at", b, start[b]) for b in ball_names])
    goal_atoms: list[Atom] = [("at", b, goal[b]) for b in ball_names]
    objects = [(room_names, "room"), (ball_names, "ball"), (["left", "right"], "hand")]
    comments = [f"Gripper, {balls} balls: {what}", command]
    return problem_text(name or f"gripper-{balls}", "gripper", objects, init, goal_atoms, comments)


def logistics(
    cities: int,
    places: int,
    packages: int,
    *,
    airplanes: int = 1,
    seed: int = 0,
    name: str | None = None,
) -> str:
    """A logistics task: ``cities`` cities with ``places`` places each (the
    first an airport), one truck per city, ``airplanes`` airplanes at random
    airports, and ``packages`` packages whose start and goal places are drawn
    at random (different from each other)."""
    if cities < 1 or places < 1 or packages < 1 or airplanes < 0:
        raise ValueError("logistics needs at least one city, place and package (and airplanes >= 0)")
    if cities > 1 and airplanes < 1:
        raise ValueError("with more than one city an airplane is needed")
    if cities * places < 2:
        raise ValueError("logistics needs at least two places in all")
    rng = random.Random(seed)
    city_names = [f"city{c}" for c in range(1, cities + 1)]
    airports = [f"airport{c}" for c in range(1, cities + 1)]
    others = {c: [f"place{c}-{j}" for j in range(1, places)] for c in range(1, cities + 1)}
    in_city = {airports[c - 1]: city_names[c - 1] for c in range(1, cities + 1)}
    for c, names in others.items():
        in_city.update(dict.fromkeys(names, city_names[c - 1]))
    all_places = list(in_city)
    trucks = [f"truck{c}" for c in range(1, cities + 1)]
    planes = [f"plane{i}" for i in range(1, airplanes + 1)]
    pkgs = [f"pkg{i}" for i in range(1, packages + 1)]
    init: list[list[Atom]] = [[("in-city", p, in_city[p]) for p in all_places]]
    init.append([("at", t, rng.choice([airports[c]] + others[c + 1])) for c, t in enumerate(trucks)])
    if planes:
        init.append([("at", a, rng.choice(airports)) for a in planes])
    start = {p: rng.choice(all_places) for p in pkgs}
    init.append([("at", p, start[p]) for p in pkgs])
    goal: list[Atom] = [("at", p, rng.choice([q for q in all_places if q != start[p]])) for p in pkgs]
    objects = [
        (city_names, "city"),
        (airports, "airport"),
        ([q for c in others.values() for q in c], "place"),
        (trucks, "truck"),
        (planes, "airplane"),
        (pkgs, "package"),
    ]
    comments = [
        f"Logistics, {cities} cities x {places} places, {packages} packages, {airplanes} airplane(s) (seed {seed})",
        generated_by(
            "logistics", cities=cities, places=places, packages=packages, airplanes=airplanes, seed=seed, name=name
        ),
    ]
    label = name or f"logistics-{cities}-{places}-{packages}-{seed}"
    return problem_text(label, "logistics", objects, init, goal, comments)
