"""Where PDDL comes from: file paths or text. The only module of the engine
that touches the file system."""

from __future__ import annotations

import os
import stat
from typing import Any

from .errors import ErrorCode, InputTooLargeError, PDDLError
from .syntax import MAX_INPUT_BYTES

__all__ = ["PDDLSource", "PathLike", "is_pddl_text", "read_file", "read_source", "read_task_sources", "special_file"]

PathLike = str | os.PathLike[str]
PDDLSource = str | bytes | os.PathLike[str]
"""PDDL given as text (a ``str`` that :func:`is_pddl_text` accepts, or
``bytes``) or as a file path (a ``PathLike``, or any other ``str``)."""


def is_pddl_text(value: str) -> bool:
    """Whether a string is PDDL text rather than a file name: its first
    character that is not blank and not in a ``;`` comment is ``(``. The one
    rule used by every entry point that takes either."""
    for line in value.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(";"):
            return stripped.startswith("(")
    return False


def read_source(source: PDDLSource, kind: str, *, max_bytes: int = MAX_INPUT_BYTES) -> tuple[str | bytes, str]:
    """The text of a :data:`PDDLSource` and the name its messages use (the
    path, or ``<domain>``/``<problem>`` for text)."""
    if isinstance(source, bytes):
        return source, f"<{kind}>"
    if isinstance(source, str) and is_pddl_text(source):
        return source, f"<{kind}>"
    return read_file(source, max_bytes=max_bytes), str(source)


_SPECIAL = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
            (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))


def special_file(path: PathLike) -> str | None:
    """What ``path`` is when it exists but is not a regular file (``"a
    directory"``, ``"a character device"`` such as ``/dev/zero``, ...), else
    ``None`` (a regular file, or nothing there)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return next((what for test, what in _SPECIAL if test(mode)), None)


def read_file(path: PathLike, *, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of ``path``; a missing, unreadable or oversized file is a
    :class:`PDDLError` (code ``FILE_NOT_FOUND`` or ``INPUT_TOO_LARGE``).
    A name that cannot be a path (a line break, a NUL byte, or longer than
    the system allows) is reported as such, without echoing it whole."""
    text = os.fspath(path)
    if "\n" in text or "\x00" in text or len(text) > 4096:
        shown = text.strip().splitlines()[0][:60].replace("\x00", "\\x00") if text.strip() else ""
        raise PDDLError(
            f"not a file name: '{shown}...' ({len(text):,} characters); PDDL text must start with '('",
            code=ErrorCode.FILE_NOT_FOUND,
            hint="pass a file path, or the PDDL text itself (its first non-comment character is '(')",
        )
    try:
        size = os.stat(text).st_size
        if size > max_bytes:
            raise InputTooLargeError(
                f"{_shown(text)} is {size:,} bytes, more than the limit of {max_bytes:,}",
                details={"size": size, "limit": max_bytes},
            )
        with open(text, "rb") as f:  # bounded: a device or a pipe (/dev/zero) reports no size
            data = f.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise InputTooLargeError(
                f"{_shown(text)} holds more than the limit of {max_bytes:,} bytes",
                details={"limit": max_bytes},
            )
        return data
    except PDDLError:
        raise
    except IsADirectoryError:
        raise PDDLError(f"{_shown(text)} is a directory, not a file", code=ErrorCode.FILE_NOT_FOUND) from None
    except FileNotFoundError:
        raise PDDLError(f"no such file: {_shown(text)}", code=ErrorCode.FILE_NOT_FOUND) from None
    except OSError as err:
        raise PDDLError(f"cannot read {_shown(text)}: {err.strerror or err}", code=ErrorCode.FILE_NOT_FOUND) from None


def _shown(path: str) -> str:
    """A path as messages show it (pathlib's spelling; imported only for a message)."""
    from pathlib import Path

    return str(Path(path))


def read_task_sources(domain: PDDLSource, problem: PDDLSource, *, max_bytes: int = MAX_INPUT_BYTES,
                      domain_name: str | None = None, problem_name: str | None = None, text: bool = False
                      ) -> tuple[tuple[Any, str | None], tuple[Any, str | None]]:
    """The domain's and the problem's text and the names their messages use
    (``domain_name`` and ``problem_name`` when given; with ``text`` each is
    text or bytes as given, never a file name)."""
    def read(source: PDDLSource, kind: str, name: str | None) -> tuple[Any, str | None]:
        if text:
            return source, name
        data, found = read_source(source, kind, max_bytes=max_bytes)
        return data, name or found

    return read(domain, "domain", domain_name), read(problem, "problem", problem_name)
