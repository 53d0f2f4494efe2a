"""Run the pypddl command line from a checkout: ``python cli.py --help``.

The engine's command line is ``pypddlengine.cli``; the experiment side
(``pypddl_experiments``) lives in ``baselines/``, which this script puts on
the import path, so a checkout runs every command an installed package
provides as ``pypddl``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "baselines"))

from pypddlengine.cli import register_commands, run

if __name__ == "__main__":
    register_commands("pypddl_experiments.commands:COMMANDS")  # an install registers it as an entry point
    run()
