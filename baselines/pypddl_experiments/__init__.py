"""pypddl_experiments: the experiment side of pypddlengine.

Everything here stands on the engine's public API (``pypddlengine``) and the
MCP tool names; the engine imports nothing of it. Four parts, one subpackage
each, importing downward only (runs <- planners <- report; runs <- llm):

* :mod:`.runs` where runs execute (local threads or Ray tasks) and how they are
  recorded (append-only ``pypddl.run/1`` JSONL records, task references);
* :mod:`.planners` the classical baselines: Fast Downward (and VAL) as
  subprocesses under a wall-clock budget, batch runs;
* :mod:`.llm` the LLM approaches (direct, agentic over MCP) and their model
  providers;
* :mod:`.report` the paper's protocol and tables, statistics and figures;

and :mod:`.generators`, the seeded benchmark task generators. The ``pypddl``
commands of this package are listed in :mod:`.commands`.
"""
