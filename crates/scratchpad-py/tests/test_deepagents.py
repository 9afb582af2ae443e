"""The deepagents backend: its methods as deepagents' middleware calls them, and a whole agent
(scripted model, no network) whose 2 MB tool result is evicted into the scratchpad, found again with
the agent's own `grep` and `read_file` tools, and seen from the CLI."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, List, Optional, Sequence

from deepagents import create_deep_agent
from deepagents.backends.protocol import BackendProtocol
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool

from conftest import log_with_errors
from scratchpad import Scratchpad
from scratchpad.deepagents import ScratchpadBackend, ScratchpadMiddleware, entry_name


class ScriptedModel(GenericFakeChatModel):
    """A chat model that answers with the next scripted message and accepts any tools."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "ScriptedModel":
        return self


def call(name: str, call_id: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def tool_output(messages: List[BaseMessage], call_id: str) -> str:
    found = [m for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == call_id]
    assert found, f"no result for {call_id}"
    return str(found[0].content)


def test_a_deep_agent_evicts_into_the_scratchpad_and_greps_it_back(pad: Scratchpad, cli: Callable[..., str]) -> None:
    log = log_with_errors(52_000, [31_337])
    assert len(log) > 2_000_000

    @tool
    def fetch_build_log(job: str) -> str:
        """Fetches the whole build log of a CI job."""
        return log

    script = iter(
        [
            call("fetch_build_log", "call_log", job="nightly"),
            call("grep", "call_grep", pattern="ERROR disk full", path="/large_tool_results", output_mode="content"),
            call("read_file", "call_read", file_path="/large_tool_results/call_log", offset=31_335, limit=4),
            call("ls", "call_ls", path="/large_tool_results"),
            AIMessage(content="The build failed: disk full at line 31337."),
        ]
    )
    agent = create_deep_agent(
        model=ScriptedModel(messages=script),
        tools=[fetch_build_log],
        backend=ScratchpadBackend(pad),
    )
    result = agent.invoke({"messages": [{"role": "user", "content": "Why did the nightly build fail?"}]})
    messages = result["messages"]

    evicted = tool_output(messages, "call_log")
    assert "/large_tool_results/call_log" in evicted and len(evicted) < 10_000
    grep = tool_output(messages, "call_grep")
    assert "31337: 2026-01-01T00:00:00Z ERROR disk full at line 31337" in grep, grep
    read = tool_output(messages, "call_read")
    assert "ERROR disk full at line 31337" in read and "31336" in read, read
    assert "/large_tool_results/call_log" in tool_output(messages, "call_ls")

    # The whole result is one entry of the store, with the scratchpad's preview, for every face.
    info = pad.get(entry_name("/large_tool_results/call_log"))
    assert info.bytes == len(log.encode()) and info.lines == 52_000
    assert "31337: 2026-01-01T00:00:00Z ERROR disk full at line 31337" in info.preview
    assert info.expires_at is not None, "evicted results live as long as offloads"
    assert "large_tool_results--call_log" in cli("ls")
    assert "31337:2026-01-01T00:00:00Z ERROR" in cli("read", "large_tool_results--call_log", "--grep", "ERROR")


def test_with_the_middleware_the_model_sees_the_scratchpad_preview(pad: Scratchpad) -> None:
    log = log_with_errors(52_000, [31_337])

    @tool
    def fetch_build_log(job: str) -> str:
        """Fetches the whole build log of a CI job."""
        return log

    @tool
    def status(job: str) -> str:
        """Says whether a job passed."""
        return "failed"

    script = iter(
        [
            AIMessage(
                content="",
                tool_calls=[
                    {"name": "fetch_build_log", "args": {"job": "nightly"}, "id": "call_log", "type": "tool_call"},
                    {"name": "status", "args": {"job": "nightly"}, "id": "call_status", "type": "tool_call"},
                ],
            ),
            call("read_file", "call_read", file_path="/large_tool_results/call_log", offset=31_336, limit=1),
            AIMessage(content="disk full"),
        ]
    )
    backend = ScratchpadBackend(pad)
    agent = create_deep_agent(
        model=ScriptedModel(messages=script),
        tools=[fetch_build_log, status],
        backend=backend,
        middleware=[ScratchpadMiddleware(backend)],
    )
    messages = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "Why?"}]}))["messages"]
    shown = tool_output(messages, "call_log")
    # The line that matters is in what the model sees, from the middle of 2 MB, with its number.
    assert "31337: 2026-01-01T00:00:00Z ERROR disk full at line 31337" in shown, shown
    assert 'read_file(file_path="/large_tool_results/call_log"' in shown and len(shown) < 4_000
    assert tool_output(messages, "call_status") == "failed"
    assert "ERROR disk full at line 31337" in tool_output(messages, "call_read")
    info = pad.get(entry_name("/large_tool_results/call_log"))
    assert info.tool == "fetch_build_log" and info.bytes == len(log.encode())


def test_backend_methods_as_the_middleware_calls_them(pad: Scratchpad) -> None:
    backend: BackendProtocol = ScratchpadBackend(pad)
    assert backend.write("/notes/plan.md", "1. reproduce\n2. fix\n").path == "/notes/plan.md"
    assert backend.write("/weird path/ü.txt", "odd\n").error is None
    pad.write("from_cli", "made elsewhere\n")

    listing = backend.ls("/")
    assert listing.entries is not None
    paths = {e["path"]: e.get("is_dir") for e in listing.entries}
    assert paths == {"/from_cli": False, "/notes/": True, "/weird path/": True}
    notes = backend.ls("/notes")
    assert notes.entries is not None and [e["path"] for e in notes.entries] == ["/notes/plan.md"]

    read = backend.read("/notes/plan.md", offset=1, limit=1)
    assert read.file_data is not None and read.file_data["content"] == "2. fix\n"
    assert (read.start_line, read.end_line, read.total_lines, read.next_offset) == (2, 2, 2, None)
    assert backend.read("/weird path/ü.txt").file_data["content"] == "odd\n"  # type: ignore[index]
    assert backend.read("/nope").error == "File '/nope' not found"
    assert "exceeds file length" in (backend.read("/notes/plan.md", offset=9).error or "")

    edit = backend.edit("/notes/plan.md", "reproduce", "reproduce (done)")
    assert edit.error is None and edit.occurrences == 1
    assert pad.read(entry_name("/notes/plan.md"), full=True).text.startswith("1. reproduce (done)")
    assert "replace_all=True" in (backend.edit("/notes/plan.md", ".", "!").error or "")

    pad.write("code", "call(a.b)\ncallXaYb\n")
    literal = backend.grep("call(a.b)")
    assert literal.matches == [{"path": "/code", "line": 1, "text": "call(a.b)"}]
    regex = ScratchpadBackend(pad, regex=True).grep(r"call.a.b", path="/code")
    assert [m["line"] for m in regex.matches or []] == [1, 2]
    assert ScratchpadBackend(pad, regex=True).grep("(").error is not None
    capped = backend.grep("c", max_count=1)
    assert capped.truncated and len(capped.matches or []) == 1
    assert [m["path"] for m in backend.grep("reproduce", glob="*.md").matches or []] == ["/notes/plan.md"]

    globbed = backend.glob("*.md")
    assert [m["path"] for m in globbed.matches or []] == ["/notes/plan.md"]
    assert backend.glob("**/*.txt", path="/weird path").matches is not None

    up = backend.upload_files([("/img/logo.png", b"\x89PNG\r\n\x1a\n" + bytes(300)), ("/img/a.txt", b"text")])
    assert [r.error for r in up] == [None, None]
    down = backend.download_files(["/img/logo.png", "/missing"])
    assert down[0].content is not None and down[0].content.startswith(b"\x89PNG")
    assert down[1].error == "file_not_found"
    assert backend.read("/img/logo.png").file_data["encoding"] == "base64"  # type: ignore[index]

    assert backend.delete("/img").error is None
    assert backend.ls("/img").entries == []
    assert backend.delete("/img").error is not None


def test_async_methods_run_off_the_event_loop(pad: Scratchpad) -> None:
    backend = ScratchpadBackend(pad)

    async def flow() -> Optional[str]:
        await backend.awrite("/large_tool_results/x", log_with_errors(2_000, [1_999]))
        found = await backend.agrep("disk full", path="/large_tool_results")
        read = await backend.aread("/large_tool_results/x", offset=1_998, limit=1)
        assert [m["line"] for m in found.matches or []] == [1_999]
        return read.file_data["content"] if read.file_data else None

    assert "ERROR disk full at line 1999" in (asyncio.run(flow()) or "")
    assert json.loads(json.dumps(pad.get("large_tool_results--x").meta)) == {"path": "/large_tool_results/x"}
