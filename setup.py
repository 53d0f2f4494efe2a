"""Only the optional C accelerator of the relaxed exploration lives here; the
rest of the packaging is in pyproject.toml. Without a C compiler the build
skips the extension (``optional=True``) and the pure-Python exploration runs
(``pypddlengine.heuristics.ACCELERATED`` says which one is in use)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("pypddlengine._relaxed", ["pypddlengine/_relaxed.c"], optional=True)])
