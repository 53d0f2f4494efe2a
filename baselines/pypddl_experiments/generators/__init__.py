"""Seeded benchmark generators: pure functions that return PDDL problem text.

No file I/O: the command ``pypddl generate`` writes what these return. Each
problem belongs to one of the bundled domains (``domains/<name>.pddl``),
named by its ``(:domain ...)``.

* :func:`blocksworld`, :func:`blocksworld_table`, :func:`blocksworld_sizes`,
  :func:`hanoi`: Blocksworld families; random states are uniform
  (Slaney & Thiébaux's counting method, :mod:`.towers`).
* :func:`gripper`, :func:`logistics`: the transport classics.
* :func:`fuel_delivery`: a numeric transport domain of our own (fuel, load,
  exact decimal weights and prices), solvable by construction.
* :func:`workshop`: a temporal domain of our own (durative actions, a
  duration inequality, timed initial literals, required concurrency),
  solvable by construction.
* :func:`unsolvable`: tasks with no plan, of a kind whose proof
  :func:`prove_unsolvable` can check (relaxed reachability, or exhaustive
  search at small sizes).
"""

from .blocksworld import blocksworld, blocksworld_sizes, blocksworld_table, hanoi
from .fuel import fuel_delivery
from .proofs import BFSResult, Proof, breadth_first, ground_text, prove_unsolvable
from .towers import SizedTowerSampler, TowerSampler, TowerState, count_states
from .transport import gripper, gripper_optimal_length, logistics
from .unsolvable import KINDS as UNSOLVABLE_KINDS
from .unsolvable import unsolvable
from .workshop import workshop, workshop_deadline

__all__ = [
    "UNSOLVABLE_KINDS",
    "BFSResult",
    "Proof",
    "SizedTowerSampler",
    "TowerSampler",
    "TowerState",
    "blocksworld",
    "blocksworld_sizes",
    "blocksworld_table",
    "breadth_first",
    "count_states",
    "fuel_delivery",
    "gripper",
    "gripper_optimal_length",
    "ground_text",
    "hanoi",
    "logistics",
    "prove_unsolvable",
    "unsolvable",
    "workshop",
    "workshop_deadline",
]
