"""Exact numbers: how the engine represents, reads and writes numeric values.

The representation (a leaf module: no imports from the package):

* A value is an ``int`` or a :class:`fractions.Fraction`, never a float. PDDL
  literals are decimals, and every decimal is a rational, so ``0.1`` is read
  as ``Fraction(1, 10)``, not as the double nearest to it.
* Arithmetic stays exact: ``+ - *`` of rationals are rationals and ``/`` is
  ``Fraction(a, b)`` (PDDL 2.1 has no other operators). Results are kept
  *normal*: a Fraction whose denominator is 1 becomes an ``int``, so tasks
  whose numbers are integers compute with machine-speed ints throughout.
* Hence ``(= (x) 0.1)`` followed by three ``(increase (x) 0.1)`` gives exactly
  ``2/5``, which equals the literal ``0.4``; with doubles it would be
  ``0.30000000000000004 + 0.1``. Comparisons are exact too: ``<`` is strict.

VAL computes with doubles and compares with an absolute tolerance of 0.0001
(even ``<`` holds at equality); the differences this makes are documented
with reproductions in docs/numeric.md ("Agreement with VAL").

Output: :func:`to_text` writes a terminating decimal exactly (``0.4``,
``-12.375``) and any other rational as ``p/q``; :func:`to_json` gives a JSON
number when that number's decimal text is exact, else the exact string.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["Value", "approx", "is_value", "normal", "parse_number", "to_json", "to_text"]

Value = int | Fraction
"""An exact numeric value."""


def normal(x: int | Fraction) -> Value:
    """``x`` with a Fraction of denominator 1 turned into an int."""
    if x.__class__ is Fraction and x.denominator == 1:  # type: ignore[union-attr]
        return x.numerator  # type: ignore[union-attr]
    return x


def parse_number(text: str) -> Value:
    """The exact value of a PDDL number literal (``3``, ``-2``, ``0.25``,
    ``1.0``); raises ``ValueError`` for anything else."""
    if "." not in text:
        return int(text)
    return normal(Fraction(text))


def is_value(x: object) -> bool:
    """Whether ``x`` is an exact value (a bool is not)."""
    return x.__class__ is int or x.__class__ is Fraction


def _terminating(x: Fraction) -> int | None:
    """The number of decimal places that write ``x`` exactly, or ``None``
    when its decimal expansion does not terminate."""
    d = x.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    return max(twos, fives) if d == 1 else None


def to_text(x: Value) -> str:
    """Exact text: ``7``, ``0.4``, ``-3.125``; ``1/3`` when no finite decimal
    is exact."""
    if x.__class__ is int:
        return str(x)
    places = _terminating(x)  # type: ignore[arg-type]
    if places is None:
        return f"{x.numerator}/{x.denominator}"  # type: ignore[union-attr]
    if places == 0:  # a Fraction with denominator 1
        return str(x.numerator)  # type: ignore[union-attr]
    sign = "-" if x < 0 else ""
    scaled = abs(x.numerator) * (10**places // x.denominator)  # type: ignore[union-attr]
    whole, frac = divmod(scaled, 10**places)
    return f"{sign}{whole}.{frac:0{places}d}"


def approx(x: Value, digits: int = 6) -> str:
    """Short text for messages: exact when that is at most ``digits``
    significant digits long, else ``~`` and a rounded decimal."""
    text = to_text(x)
    if "/" not in text and len(text.lstrip("-").replace(".", "").lstrip("0")) <= digits:
        return text
    return f"~{float(x):.{digits}g}"


def to_json(x: Value) -> int | float | str:
    """A JSON value for ``x``: an int; a float whose shortest ``repr`` is the
    exact decimal (``0.4``); otherwise the exact string (``"1/3"``, or a long
    decimal that no double writes exactly)."""
    x = normal(x)
    if x.__class__ is int:
        return x  # type: ignore[return-value]
    f = float(x)
    if math.isfinite(f) and _terminating(x) is not None and Fraction(repr(f)) == x:  # type: ignore[arg-type]
        return f
    return to_text(x)
