"""The MCP server driven by the official Python MCP client (the `mcp` package from PyPI):
`driftkit mcp` over stdio, and `driftkit serve` at /mcp over the streamable HTTP transport.

Both run on the real workspace of conftest.lean_ws (testdata/lean, template informal text, hash encoder).
"""
import json
import re
import subprocess

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import BIN

TOOLS = {"search", "get_declaration", "dependencies", "used_by", "premises_for_goal", "drift_context", "workspaces"}


def structured(result):
    """A tool result's structured content (the SDK also sends it as JSON text)."""
    if getattr(result, "structured_content", None) is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def text(result):
    return "".join(getattr(c, "text", "") for c in result.content)


async def exercise(session: ClientSession, ws_name: str):
    await session.initialize()
    tools = (await session.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    for t in tools:
        a = t.annotations
        assert a.read_only_hint is True and a.idempotent_hint is True and a.destructive_hint is False, (t.name, a)
        assert t.input_schema["type"] == "object", t.name
    search_schema = next(t for t in tools if t.name == "search").input_schema
    assert search_schema["required"] == ["query"]

    # workspaces: library, revision-bearing generation, encoder, sizes.
    ws = structured(await session.call_tool("workspaces", {}))["workspaces"]
    assert ws[0]["name"] == ws_name and ws[0]["default"] and ws[0]["declarations"] > 100
    assert ws[0]["index"]["encoder"] == "hash" and ws[0]["index"]["encoder_fallback"] is True

    # search: compact by default, full on request.
    res = await session.call_tool("search", {"query": "list append length", "limit": 5})
    assert not res.is_error, text(res)
    hits = structured(res)["hits"]
    assert 0 < len(hits) <= 5
    assert set(hits[0]) <= {"name", "kind", "module", "score", "signature"}
    name = hits[0]["name"]
    full = structured(await session.call_tool("search", {"query": "list append length", "limit": 5, "full": True}))["hits"]
    assert any("informal_statement" in h for h in full)

    # get_declaration, dependencies, used_by on a real row.
    d = structured(await session.call_tool("get_declaration", {"name": name}))
    assert d["name"] == name and d["module"] and d["code"] and d["line_start"] >= 1
    deps = structured(await session.call_tool("dependencies", {"name": name}))
    assert isinstance(deps["statement_deps"], list) and isinstance(deps["proof_deps"], list)
    used = structured(await session.call_tool("used_by", {"name": name, "limit": 3}))
    assert used["total"] >= len(used["used_by"])

    # premises_for_goal: the proof profile, with a new premise of the caller's file.
    goal = "xs ys : List α\n⊢ (xs ++ ys).length = xs.length + ys.length"
    res = await session.call_tool("premises_for_goal", {"goal": goal, "k": 8,
                                                        "new_premises": [{"name": "my_len", "decl": "theorem my_len (xs ys : List α) : (xs ++ ys).length = xs.length + ys.length"}]})
    assert not res.is_error, text(res)
    premises = structured(res)["premises"]
    assert 0 < len(premises) <= 8 and "my_len" in [p["name"] for p in premises]

    # drift_context works offline.
    res = await session.call_tool("drift_context", {"statement": "the length of an appended list is the sum of the lengths", "top_k": 3})
    assert not res.is_error, text(res)

    # Bad arguments are tool errors, and the session goes on.
    for tool, args, want in [("search", {"query": "x", "limit": 500}, "limit"),
                             ("search", {"limit": 3}, "query"),
                             ("get_declaration", {"name": "No.Such.Name"}, "no declaration"),
                             ("search", {"query": "x", "workspace": "nope"}, "unknown workspace")]:
        res = await session.call_tool(tool, args)
        assert res.is_error and want in text(res), (tool, args, text(res))
    assert structured(await session.call_tool("workspaces", {}))["workspaces"]


def test_mcp_stdio(lean_ws):
    params = StdioServerParameters(command=BIN, args=["mcp", "--ws", f"lib={lean_ws}"])

    async def run():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session, "lib")

    anyio.run(run)


@pytest.fixture
def served(lean_ws):
    """`driftkit serve` on a free loopback port; stopped by PID."""
    p = subprocess.Popen([BIN, "serve", "--ws", f"lib={lean_ws}", "--addr", "127.0.0.1:0", "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        for line in p.stdout:
            seen.append(line)
            m = re.search(r"serving on (http://[0-9.:]+)", line)
            if m:
                break
        assert m, f"no address in {seen!r}: {p.stderr.read() if p.poll() is not None else ''}"
        yield m.group(1)
    finally:
        p.terminate()
        p.wait(timeout=30)


def test_mcp_streamable_http(served):
    async def run():
        async with streamable_http_client(served + "/mcp") as (read, write, *_):
            async with ClientSession(read, write) as session:
                await exercise(session, "lib")

    anyio.run(run)
