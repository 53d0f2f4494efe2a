"""The per-user cache of derived data, so that a short command starts fast.

Scripts run ``pypddl validate`` once per plan, thousands of times; each
process would otherwise redo work whose result never changes between runs.
Two things are kept, in a private folder (``$XDG_CACHE_HOME/pypddlengine`` or
``~/.cache/pypddlengine``, mode 0700, owned by the user):

* the parser's tables, derived from ``pddl.lark`` (see :mod:`.syntax._lalr`);
* the compiled code of the functions the lifted backend generates per task
  (:func:`compiled_batch`): opening a task opened before compiles nothing;
* the compiled methods that :func:`dataclasses.dataclass` generates. On
  Python 3.11 and 3.12 the decorator compiles five or six small functions per
  class from source text on every import, and with ~50 classes on the
  ``validate`` path that compiling was the largest single cost of starting
  up. :func:`dataclass` below is :func:`dataclasses.dataclass` itself, run
  with its ``exec`` looking compiled code up by the exact source text first;
  the classes, their methods and ``dataclasses.fields`` are the standard
  ones. A text seen for the first time is compiled as the standard library
  would and stored when the process exits.

Each entry is keyed by everything it is derived from (the whole source text,
the Python version), so nothing is ever stale; a file that cannot be read is
ignored and rebuilt. ``PYPDDL_NO_CACHE=1`` turns the cache off (everything is
then derived in each process: correct, only slower).
"""

from __future__ import annotations

import _thread
import builtins
import contextlib
import dataclasses
import marshal
import os
import sys
import types
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

__all__ = ["cache_folder", "compiled_batch", "dataclass", "write_atomic"]

_T = TypeVar("_T")
_PY = f"py{sys.version_info[0]}{sys.version_info[1]}"
MAX_CODE_ENTRIES = 2000
"""More compiled methods than this in the file (one installation's sources
edited many times: a development checkout) and it is rewritten with this
process's entries only."""


def cache_folder() -> str | None:
    """The private per-user cache folder, created on first use, or ``None``
    when caching is off or no private folder can be had."""
    if os.environ.get("PYPDDL_NO_CACHE") or os.environ.get("PYPDDL_NO_PARSER_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "pypddlengine")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if os.stat(folder).st_uid != os.getuid() or not os.access(folder, os.W_OK):
            return None
    except (OSError, AttributeError):
        return None
    return folder


def write_atomic(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the
    whole new one (concurrent first runs each write a complete file)."""
    tmp = f"{path}.{os.getpid()}.{_thread.get_ident()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


# ----------------------------------------------------------------------------- compiled generated code

MAX_BATCH_FILES = 300
"""Files of generated code kept (one per task's batch); past it the oldest go."""


def compiled_batch(kind: str, sources: list[tuple[str, str]]) -> list[types.CodeType]:
    """``compile(source, filename, "exec", dont_inherit=True)`` for each
    ``(source, filename)``, reusing the code stored for this exact batch.

    A task's generated functions (its lifted joins and instance makers) are
    the same text each time the task is opened; compiling them cost 2-4 ms of
    a small task's opening. One file per batch (``kind`` names it; the key is
    a checksum of the texts, and the stored texts are compared in full, so a
    different batch is never mistaken for it); at most
    :data:`MAX_BATCH_FILES` files, the least recently written deleted."""
    folder = cache_folder() if sources else None
    if folder is None:
        return [compile(src, name, "exec", dont_inherit=True) for src, name in sources]
    import zlib

    text = "\0".join(f"{name}\0{src}" for src, name in sources).encode()
    path = os.path.join(folder, f"code-{kind}-{_PY}-{zlib.crc32(text):08x}{zlib.adler32(text):08x}-{len(text)}"
                                ".marshal")
    try:
        with open(path, "rb") as f:
            stored, codes = marshal.loads(f.read())
        if stored == sources and all(isinstance(c, types.CodeType) for c in codes):
            return codes  # type: ignore[no-any-return]
    except (OSError, ValueError, EOFError, TypeError):
        pass
    codes = [compile(src, name, "exec", dont_inherit=True) for src, name in sources]
    write_atomic(path, marshal.dumps((sources, codes)))
    _forget_old_batches(folder)
    return codes


def _forget_old_batches(folder: str) -> None:
    with contextlib.suppress(OSError):
        files = [e for e in os.scandir(folder) if e.name.startswith("code-") and e.name.endswith(".marshal")]
        if len(files) > MAX_BATCH_FILES:
            files.sort(key=lambda e: e.stat().st_mtime)
            for entry in files[:len(files) - MAX_BATCH_FILES]:
                os.unlink(entry.path)


# ----------------------------------------------------------------------------- compiled dataclass methods


class _CodeCache:
    """Source text -> code object, loaded once per process, saved at exit."""

    def __init__(self) -> None:
        self.lock = _thread.RLock()
        self.codes: dict[str, Any] | None = None
        self.used: dict[str, Any] = {}
        self.new = False
        self.path: str | None = None

    def load(self) -> dict[str, Any]:
        if self.codes is None:
            self.codes = {}
            folder = cache_folder()
            if folder is not None:
                self.path = os.path.join(folder, f"dataclass-code-{_PY}-{_install_tag()}.marshal")
                try:
                    with open(self.path, "rb") as f:
                        codes = marshal.loads(f.read())
                    if isinstance(codes, dict):
                        self.codes = codes
                except (OSError, ValueError, EOFError, TypeError):
                    pass
        return self.codes

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        """``exec`` as the dataclasses module calls it, with compiled code reused."""
        if not isinstance(source, str):
            builtins.exec(source, globals, locals)
            return
        codes = self.load()
        code = codes.get(source)
        if not isinstance(code, types.CodeType):
            # compiled as exec(source) in the dataclasses module compiles it: no inherited __future__ flags
            code = codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
            if not self.new and self.path is not None:
                import atexit

                atexit.register(self.save)
            self.new = True
        self.used[source] = code
        builtins.exec(code, globals, locals)

    def save(self) -> None:
        if self.path is None or not self.new:
            return
        with self.lock:
            try:
                with open(self.path, "rb") as f:
                    stored = marshal.loads(f.read())  # entries other processes added meanwhile
            except (OSError, ValueError, EOFError, TypeError):
                stored = {}
            if not isinstance(stored, dict) or len(stored) + len(self.used) > MAX_CODE_ENTRIES:
                stored = {}
            stored.update(self.used)
            write_atomic(self.path, marshal.dumps(stored))
            self.new = False
            _forget_old_installs(self.path)


def _install_tag() -> str:
    """Which installation of the package this is (its folder, and when its
    files were written): each installation keeps its own file, so the file a
    process loads holds one version's methods, not every version's since the
    first install (loading them all cost several milliseconds a process)."""
    import zlib

    try:
        written = os.stat(__file__).st_mtime_ns
    except OSError:
        written = 0
    return f"{zlib.crc32(f'{os.path.dirname(os.path.abspath(__file__))}|{written}'.encode()):08x}"


STALE_SECONDS = 30 * 24 * 3600
"""Another installation's file unused this long is deleted (an upgrade leaves the old one behind)."""


def _forget_old_installs(current: str) -> None:
    import time

    folder, now = os.path.dirname(current), time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if (entry.name.startswith(f"dataclass-code-{_PY}") and entry.path != current
                    and now - entry.stat().st_atime > STALE_SECONDS and now - entry.stat().st_mtime > STALE_SECONDS):
                os.unlink(entry.path)


_codes = _CodeCache()


@overload
def dataclass(cls: type[_T], /) -> type[_T]: ...
@overload
def dataclass(cls: None = None, /, **options: Any) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def dataclass(cls: type[_T] | None = None, /, **options: Any) -> Any:
    """:func:`dataclasses.dataclass` (same options, same result), reusing the
    compiled methods from the per-user cache."""

    def wrap(c: type[_T]) -> type[_T]:
        module: Any = dataclasses
        with _codes.lock:
            if "exec" in vars(module):  # someone else's hook: leave it alone
                return dataclasses.dataclass(**options)(c)
            module.exec = _codes.exec
            try:
                return dataclasses.dataclass(**options)(c)
            finally:
                del module.exec

    return wrap if cls is None else wrap(cls)
