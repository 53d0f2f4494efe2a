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

Size. Exact numbers have no size of their own, so the engine bounds them:
a value whose numerator or denominator needs more than :data:`MAX_NUMBER_BITS`
bits is refused (``NUMERIC_OVERFLOW``) where it would be stored (an effect of
a step, a literal of the input). The default, 1,200 bits, holds every double
exactly (the largest, about 1.8e308, is 1,024 bits; the smallest denormal,
2^-1074, has a 1,075-bit denominator), any double written as a decimal of 17
significant digits (``0.<323 zeros>49406564584124654`` has a 1,130-bit
denominator) and integers of up to 361 digits;
set ``pypddlengine.exact.MAX_NUMBER_BITS`` to change it (read at each use).
Values in the bound print in well under Python's 4,300-digit limit of
integer-to-text conversion; text of anything larger (an intermediate value
named in a message) is an approximation, never an error.

Output: :func:`to_text` writes a terminating decimal exactly (``0.4``,
``-12.375``) and any other rational as ``p/q``; :func:`to_json` gives a JSON
number when that number's decimal text is exact, else the exact string.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = [
    "MAX_NUMBER_BITS",
    "NumberTooLarge",
    "Value",
    "approx",
    "fits",
    "is_value",
    "normal",
    "parse_number",
    "size_text",
    "to_float",
    "to_json",
    "to_text",
]

MAX_NUMBER_BITS = 1200
"""The most bits the numerator or the denominator of a stored value may
have (see the module docstring); read each time a value is checked."""

_TEXT_BITS = 12_000
"""Integers longer than this (about 3,600 digits) are written approximately
(:func:`_big_text`), below Python's 4,300-digit conversion limit."""


class NumberTooLarge(ValueError):
    """A literal whose value passes :data:`MAX_NUMBER_BITS` (``args[0]`` says
    so); callers turn it into a located ``NUMERIC_OVERFLOW`` error."""

Value = int | Fraction
"""An exact numeric value."""


def normal(x: int | Fraction) -> Value:
    """``x`` with a Fraction of denominator 1 turned into an int."""
    if x.__class__ is Fraction and x.denominator == 1:  # type: ignore[union-attr]
        return x.numerator  # type: ignore[union-attr]
    return x


def fits(x: Value) -> bool:
    """Whether ``x``'s numerator and denominator are within :data:`MAX_NUMBER_BITS`."""
    limit = MAX_NUMBER_BITS
    if x.__class__ is int:
        return x.bit_length() <= limit  # type: ignore[union-attr]
    return x.numerator.bit_length() <= limit and x.denominator.bit_length() <= limit  # type: ignore[union-attr]


def size_text(x: Value) -> str:
    """How big ``x`` is, for messages: ``a 1,203-bit numerator``."""
    num, den = (x, 1) if x.__class__ is int else (x.numerator, x.denominator)  # type: ignore[union-attr]
    if num.bit_length() >= den.bit_length():  # type: ignore[union-attr]
        return f"a {num.bit_length():,}-bit {'value' if den == 1 else 'numerator'}"  # type: ignore[union-attr]
    return f"a {den.bit_length():,}-bit denominator"


def parse_number(text: str) -> Value:
    """The exact value of a PDDL number literal (``3``, ``-2``, ``0.25``,
    ``1.0``); raises :class:`NumberTooLarge` when it passes
    :data:`MAX_NUMBER_BITS` and ``ValueError`` for anything else."""
    whole, _, places = text.lstrip("+-").partition(".")
    digits = len(whole.lstrip("0")) + len(places.rstrip("0"))  # what the value needs (0.5000 is 0.5)
    if digits > MAX_NUMBER_BITS * 2 + 64:  # too long to hold in the bound whatever its digits: never converted
        raise NumberTooLarge(f"a literal of {digits:,} digits")
    if len(text) > 4000:  # zeros that change nothing, past Python's conversion limit: dropped first
        text = f"{'-' if text.startswith('-') else ''}{whole.lstrip('0') or '0'}.{places.rstrip('0') or '0'}"
    value = int(text) if "." not in text else normal(Fraction(text))
    if not fits(value):
        raise NumberTooLarge(size_text(value))
    return value


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


def _log10(n: int) -> float:
    """``log10(n)`` of a positive integer of any size."""
    shift = max(n.bit_length() - 64, 0)
    return math.log10(n >> shift) + shift * math.log10(2)


def _big_text(n: int, num: int = 1, den: int = 1) -> str:
    """An approximation of a huge number ``n * num / den``: ``~3.1416e+5000``
    (its exact text would pass Python's conversion limit, and no float holds it)."""
    sign = "-" if (n < 0) != (num < 0) else ""
    exponent = _log10(abs(n)) + _log10(abs(num)) - _log10(den)
    whole = math.floor(exponent)
    return f"~{sign}{10 ** (exponent - whole):.4f}e{whole:+d}"


def _ratio_text(x: Fraction) -> str:
    num, den = x.numerator, x.denominator
    if max(num.bit_length(), den.bit_length()) <= _TEXT_BITS:
        return f"{num}/{den}"
    return f"{_int_text(num)}/{_int_text(den)}"


def _int_text(n: int) -> str:
    return str(n) if n.bit_length() <= _TEXT_BITS else _big_text(n)


def to_text(x: Value) -> str:
    """Exact text: ``7``, ``0.4``, ``-3.125``; ``1/3`` when no finite decimal
    is exact. A number far past :data:`MAX_NUMBER_BITS` (only ever an
    intermediate value in a message) is written approximately, ``~1.2346e+5000``."""
    if x.__class__ is int:
        return _int_text(x)  # type: ignore[arg-type]
    if max(x.numerator.bit_length(), x.denominator.bit_length()) > _TEXT_BITS:  # type: ignore[union-attr]
        return _ratio_text(x)  # type: ignore[arg-type]
    places = _terminating(x)  # type: ignore[arg-type]
    if places is None:
        return f"{x.numerator}/{x.denominator}"  # type: ignore[union-attr]
    if places > 3 * _TEXT_BITS // 10:
        return _ratio_text(x)  # type: ignore[arg-type]
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
    f = _float(x)
    if f is not None:
        return f"~{f:.{digits}g}"
    return _big_text(1, x.numerator, x.denominator) if x.__class__ is Fraction else _big_text(x)  # type: ignore[union-attr, arg-type]


def to_float(x: Value | float) -> float:
    """``float(x)``, or an infinity of its sign when no double holds it
    (never ``OverflowError``): for heuristics and rewards, which are floats."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _float(x: Value) -> float | None:
    """``float(x)`` when that is finite and not 0 for a non-zero ``x``; else ``None``."""
    try:
        f = float(x)
    except OverflowError:
        return None
    return f if math.isfinite(f) and (f != 0 or x == 0) else None


def to_json(x: Value) -> int | float | str:
    """A JSON value for ``x``: an int; a float whose shortest ``repr`` is the
    exact decimal (``0.4``); otherwise the exact string (``"1/3"``, or a long
    decimal that no double writes exactly)."""
    x = normal(x)
    if x.__class__ is int:
        return x  # type: ignore[return-value]
    f = _float(x)
    if f is not None and _terminating(x) is not None and Fraction(repr(f)) == x:  # type: ignore[arg-type]
        return f
    return to_text(x)
