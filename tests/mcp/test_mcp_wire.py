"""The one client-side reading of a tool result (issue 23: the demo's caller,
the harness's toolbox and the tests' Tools all unwrap through it)."""

from __future__ import annotations

import inspect

from mcp_types import CallToolResult, TextContent

from pypddlengine.mcp_server.wire import error_result, unwrap


def test_an_error_gives_its_first_line_and_the_error_as_data() -> None:
    error = {"code": "UNKNOWN_ACTION", "message": "no action 'fly'", "hint": "did you mean 'pick-up'?",
             "tool": "execute_single_action"}
    result = error_result("[UNKNOWN_ACTION] no action 'fly'; hint: did you mean 'pick-up'?", error)
    for form in (result, result.model_dump(mode="json", by_alias=True)):
        reply = unwrap(form)
        assert reply.is_error and reply.text.startswith("[UNKNOWN_ACTION] no action 'fly'")
        assert reply.structured == reply.data == {"error": error}


def test_a_success_gives_its_text_and_structured_content() -> None:
    result = CallToolResult(content=[TextContent(type="text", text="step 1"), TextContent(type="text", text="ok")],
                            structured_content={"step": 1})
    reply = unwrap(result)
    assert (reply.is_error, reply.text, reply.structured, reply.data) == (False, "step 1\nok", {"step": 1}, {"step": 1})
    bare = unwrap(CallToolResult(content=[], structured_content={"valid": True}))
    assert bare.text == '{"valid": true}' and bare.data == {"valid": True}
    assert unwrap(CallToolResult(content=[TextContent(type="text", text="x")])).data == {}


def test_every_client_wrapper_unwraps_through_it() -> None:
    import mcp_support

    from pypddl_experiments.llm import mcp_bridge
    from pypddlengine import cli_serve

    for source in (inspect.getsource(cli_serve.tool_caller), inspect.getsource(mcp_bridge.Toolbox.call),
                   inspect.getsource(mcp_support.Tools.call)):
        assert "unwrap(" in source and "structured_content" not in source
