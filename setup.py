"""Two things live here; the rest of the packaging is in pyproject.toml.

The optional C accelerator of the relaxed exploration. Without a C compiler
the build skips the extension (``optional=True``) and the pure-Python
exploration runs (``pypddlengine.heuristics.ACCELERATED`` says which one is
in use).

The editable install. The design card's layout keeps the engine at the top
of the checkout and the experiment side in ``baselines/``, and the wheel maps
``domains/`` and ``problems/`` into ``pypddlengine/data/``; with such
mappings setuptools' ``pip install -e .`` installs an import-hook finder that
every Python process of the venv then imports. The editable install here is
instead a plain ``.pth`` file naming the two source folders (the checkout and
``baselines/``), as ``python -m pytest`` and ``cli.py`` already use them; the
bundled tasks are found next to the package (``pypddlengine.bundled``) and
the C extension is built in place. ``tests/test_packaging.py`` checks the
``.pth`` content of a fresh editable install.
"""

from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.editable_wheel import editable_wheel


class plain_path_editable(editable_wheel):
    """``pip install -e .`` as a ``.pth`` of the two source folders."""

    def _select_strategy(self, name, tag, build_lib):  # type: ignore[no-untyped-def]
        try:
            from setuptools.command.editable_wheel import _StaticPth
        except ImportError:  # a setuptools without it: its own choice
            return super()._select_strategy(name, tag, build_lib)
        root = Path(self.project_dir)
        return _StaticPth(self.distribution, name, [root, root / "baselines"])


setup(
    ext_modules=[Extension("pypddlengine._relaxed", ["pypddlengine/_relaxed.c"], optional=True)],
    cmdclass={"editable_wheel": plain_path_editable},
)
