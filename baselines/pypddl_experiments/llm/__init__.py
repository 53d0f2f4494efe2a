"""The LLM approaches and their model providers.

Reproduces the paper's two LLM approaches with any model and reports them
next to the Fast Downward baselines:

* ``direct`` (:mod:`.direct`): domain and problem in one prompt, the plan read
  from the reply and validated; on failure a fresh attempt with no feedback,
  until a valid plan or the end of the budget;
* ``agentic`` (:mod:`.agentic`): the model acts in the simulator through the
  engine's MCP tools (:mod:`.mcp_bridge`, a real MCP client), one call at a
  time, until ``validate_complete_plan`` confirms a plan (re-validated here),
  the budget ends, or it stops.

Providers (:mod:`.providers`): the Anthropic Messages API and any
OpenAI-compatible Chat Completions endpoint, through the official SDKs,
behind provider-neutral types (:mod:`.types`) with normalised token usage;
``offline`` (:mod:`.provider_offline`), a stand-in that needs no key. Runs
(:mod:`.runner`, :mod:`.remote` on Ray): append-only ``pypddl.run/1`` JSONL, a
trace per run and a manifest (:mod:`.records`); runs resume and replay
(:mod:`.replay`). The report is :mod:`pypddl_experiments.report`.

Command line: ``pypddl experiment run|replay`` (:mod:`.cli`). Nothing here
imports the LLM SDKs, ``mcp`` or matplotlib at import time.
"""
