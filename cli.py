"""Run the pypddl command line from a checkout: ``python cli.py --help``.

The implementation is ``pypddlengine.cli``; an installed package provides the
same commands as ``pypddl``.
"""

from pypddlengine.cli import run

if __name__ == "__main__":
    run()
