"""The experiment harness: LLM planning approaches, records and reports.

Reproduces the paper's two LLM approaches with any model and reports them
next to the Fast Downward baselines:

* ``direct`` (:mod:`.direct`): domain and problem in one prompt, the plan read
  from the reply and validated; on failure a fresh attempt with no feedback,
  until a valid plan or the end of the budget;
* ``agentic`` (:mod:`.agentic`): the model acts in the simulator through the
  engine's MCP tools, one call at a time, until ``validate_complete_plan``
  confirms a plan (re-validated here), the budget ends, or it stops.

Providers (:mod:`.providers`): the Anthropic Messages API and any
OpenAI-compatible Chat Completions endpoint, through the official SDKs,
behind provider-neutral types (:mod:`.types`) with normalised token usage.
Records (:mod:`.records`): append-only ``pypddl.run/1`` JSONL, a trace per run
and a manifest; runs resume. Reports (:mod:`.report`): the paper's tables with
Wilson intervals and exact McNemar tests, and the per-instance figure.
Offline testing (:mod:`.fake_server`): a fake model server on 127.0.0.1 that
speaks both APIs.

Command line: ``pypddl experiment run|report|replay`` (:mod:`.cli`). Nothing
here imports the LLM SDKs, ``mcp`` or matplotlib at import time.
"""
