"""Harness settings for the heuristic feedback: the estimate and the proof
budget are pinned on initialise_session, recorded, and every feedback field
the server can send is explained by the prompt text of the richest level."""

from __future__ import annotations

import re

import pytest

from pypddl_experiments.llm.mcp_bridge import ToolboxSettings
from pypddl_experiments.llm.prompts import FEEDBACK_TEXTS
from pypddl_experiments.llm.runner import INITIALISE, ExperimentConfig
from pypddl_experiments.llm.types import CallParams
from pypddlengine.mcp_server.models import FeedbackView


def test_heuristic_and_budget_are_pinned_and_recorded() -> None:
    config = ExperimentConfig("agentic", CallParams("m"), feedback="heuristic", heuristic="lm_count", proof_budget=500)
    assert config.toolbox is not None
    pinned = config.toolbox.pinned[INITIALISE]
    assert (pinned["heuristic"], pinned["proof_budget"], pinned["feedback"]) == ("lm_count", 500, "heuristic")
    plain = ExperimentConfig("agentic", CallParams("m"), feedback="heuristic")
    assert plain.toolbox is not None and "heuristic" not in plain.toolbox.pinned[INITIALISE]


def test_a_conflicting_pin_is_refused() -> None:
    toolbox = ToolboxSettings(pinned={INITIALISE: {"heuristic": "h_add"}})
    with pytest.raises(ValueError, match="heuristic"):
        ExperimentConfig("agentic", CallParams("m"), toolbox=toolbox, feedback="heuristic", heuristic="lm_count")


def test_every_feedback_field_is_explained_at_level_full() -> None:
    text = FEEDBACK_TEXTS["full"]
    missing = [f for f in FeedbackView.model_fields if not re.search(rf"feedback\.{f}(?!\w)", text)]
    assert not missing, f"the prompt text does not explain {missing}"
