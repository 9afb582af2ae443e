"""The Claude memory tool on the scratchpad: every reply is the one the anthropic SDK's own file
backend gives (models are trained on those texts), the SDK's tool runner drives it end to end, and
two writers on one memory never lose a write."""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import anthropic
import pytest
from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.tools.memory import BetaLocalFilesystemMemoryTool

from scratchpad import Scratchpad
from scratchpad.anthropic import ScratchpadMemoryTool, note_name

Command = Dict[str, Any]


def reply(tool: BetaAbstractMemoryTool, command: Command) -> Tuple[str, str]:
    """What the model receives for ``command``: the result, or the error text."""
    try:
        return ("ok", str(tool.call(command)))
    except ToolError as err:
        return ("error", str(err.content))


def view(path: str, view_range: Any = None) -> Command:
    command: Command = {"command": "view", "path": path}
    if view_range is not None:
        command["view_range"] = view_range
    return command


def create(path: str, text: str) -> Command:
    return {"command": "create", "path": path, "file_text": text}


def replace(path: str, old: str, new: str) -> Command:
    return {"command": "str_replace", "path": path, "old_str": old, "new_str": new}


def insert(path: str, line: int, text: str) -> Command:
    return {"command": "insert", "path": path, "insert_line": line, "insert_text": text}


def delete(path: str) -> Command:
    return {"command": "delete", "path": path}


def rename(old: str, new: str) -> Command:
    return {"command": "rename", "old_path": old, "new_path": new}


SESSIONS: Dict[str, List[Command]] = {
    "a file's life": [
        view("/memories"),
        create("/memories/notes.md", "# Notes\n- likes coffee\n- lives in Lyon\n"),
        view("/memories/notes.md"),
        view("/memories/notes.md", [2, 3]),
        view("/memories/notes.md", [2, -1]),
        view("/memories/notes.md", [0, 1]),
        view("/memories/notes.md", [3, 99]),
        replace("/memories/notes.md", "Lyon", "Paris"),
        replace("/memories/notes.md", "tea", "water"),
        replace("/memories/notes.md", "- ", "* "),
        replace("/memories/notes.md", "", "x"),
        insert("/memories/notes.md", 0, "<!-- kept by the agent -->"),
        insert("/memories/notes.md", 5, "- allergic to nuts\n\n"),
        insert("/memories/notes.md", 99, "nowhere"),
        insert("/memories/notes.md", -1, "nowhere"),
        insert("/memories/notes.md", 2, "- two\n- lines"),
        view("/memories/notes.md"),
        create("/memories/notes.md", "again"),
        view("/memories"),
        rename("/memories/notes.md", "/memories/people/ana.md"),
        view("/memories"),
        delete("/memories/people/ana.md"),
        delete("/memories/people/ana.md"),
    ],
    "directories": [
        create("/memories/projects/alpha/plan.md", "1. design\n2. build\n"),
        create("/memories/projects/alpha/deep/er/still.md", "deep"),
        create("/memories/projects/beta.md", ""),
        create("/memories/zeta.txt", "z" * 3000),
        create("/memories/.hidden", "secret"),
        create("/memories/projects/.also-hidden", "secret"),
        view("/memories"),
        view("/memories/"),
        view("/memories/projects"),
        view("/memories/projects/alpha"),
        view("/memories/projects/beta.md"),
        view("/memories/nothing"),
        view("/memories/projects/nothing.md"),
        replace("/memories/projects", "a", "b"),
        insert("/memories/projects", 0, "x"),
        create("/memories/projects", "x"),
        rename("/memories/projects", "/memories/archive/2025"),
        view("/memories"),
        rename("/memories/zeta.txt", "/memories/archive"),
        rename("/memories/absent.md", "/memories/present.md"),
        rename("/memories", "/memories/x"),
        delete("/memories/archive"),
        delete("/memories"),
        view("/memories"),
    ],
    "paths that escape": [
        view("/etc/passwd"),
        view("memories/x"),
        view("/memories/../secrets"),
        create("/memories/a/../../b.md", "x"),
        create("/memories/a/../b.md", "inside after all"),
        view("/memories/b.md"),
        create("/memoriesX.md", "a quirk of the prefix check"),
        view("/memories"),
        rename("/memories/b.md", "/tmp/b.md"),
        delete("/memories/../../etc"),
    ],
    "line breaks and text": [
        create("/memories/no-newline.md", "one\ntwo"),
        insert("/memories/no-newline.md", 0, "zero"),
        view("/memories/no-newline.md"),
        create("/memories/trailing-blank.md", "a\n\n"),
        insert("/memories/trailing-blank.md", 0, "first"),
        view("/memories/trailing-blank.md"),
        create("/memories/empty.md", ""),
        insert("/memories/empty.md", 1, "x"),
        insert("/memories/empty.md", 0, ""),
        view("/memories/empty.md"),
        create("/memories/crlf.md", "a\r\nb\r\n"),
        insert("/memories/crlf.md", 1, "mid"),
        replace("/memories/crlf.md", "b\r", "B"),
        view("/memories/crlf.md"),
        create("/memories/unicode — été.md", "café ☕\nnaïve\n"),
        replace("/memories/unicode — été.md", "naïve", "naive"),
        view("/memories/unicode — été.md"),
        view("/memories"),
        create("/memories/with--dashes.md", "dashes"),
        view("/memories/with--dashes.md"),
        rename("/memories/with--dashes.md", "/memories/plain.md"),
        rename("/memories/plain.md", "/memories/sp ace.md"),
        view("/memories"),
    ],
}


@pytest.mark.parametrize("session", sorted(SESSIONS))
def test_every_reply_is_the_sdk_file_backends(session: str, tmp_path: Path) -> None:
    files = BetaLocalFilesystemMemoryTool(str(tmp_path / "files"))
    pad = Scratchpad(f"sqlite://{tmp_path}/pad.db", session="memory")
    notes = ScratchpadMemoryTool(pad, author="agent")
    for step, command in enumerate(SESSIONS[session]):
        expected = reply(files, command)
        assert reply(notes, command) == expected, f"step {step}: {command}"


def test_files_are_notes_with_versions_and_authors(tmp_path: Path) -> None:
    pad = Scratchpad(f"sqlite://{tmp_path}/pad.db", session="memory")
    memory = ScratchpadMemoryTool(pad, author="agent-a")
    memory.call(create("/memories/a/b.md", "- one\n"))
    memory.call(insert("/memories/a/b.md", 1, "- two"))
    memory.call(replace("/memories/a/b.md", "one", "1"))
    assert note_name("/memories/a/b.md") == "memories--a--b.md"
    assert pad.read("memories--a--b.md", full=True).text == "- 1\n- two\n"
    history = pad.history("memories--a--b.md")
    assert [v.author for v in history] == ["agent-a"] * 3
    assert [v.summary for v in history][:2] == ["edited: 1 replacement, +1 −1 lines", "inserted 1 line after line 1"]
    # A path the naming rule cannot carry still round-trips, through the note's metadata.
    memory.call(create("/memories/sp ace/ü.md", "x"))
    odd = note_name("/memories/sp ace/ü.md")
    assert odd.startswith("memories--") and pad.get(odd).meta == {"memory_path": "/memories/sp ace/ü.md"}
    assert "/memories/sp ace/ü.md" in str(memory.call(view("/memories")))


def two_writers_never_lose_a_write(store: str, session: str) -> None:
    lines_each = 25
    Scratchpad(store, session=session).write(note_name("/memories/log.md"), "")
    failures: List[BaseException] = []

    def writer(author: str) -> None:
        memory = ScratchpadMemoryTool(Scratchpad(store, session=session), author=author)
        try:
            for i in range(lines_each):
                memory.call(insert("/memories/log.md", 0, f"[ ] {author} {i}"))
                memory.call(replace("/memories/log.md", f"[ ] {author} {i}\n", f"[x] {author} {i}\n"))
        except BaseException as err:  # noqa: BLE001 - reported below
            failures.append(err)

    threads = [threading.Thread(target=writer, args=(author,)) for author in ("agent-a", "agent-b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not failures, failures
    pad = Scratchpad(store, session=session)
    lines = pad.read(note_name("/memories/log.md"), full=True).text.splitlines()
    expected = {f"[x] {author} {i}" for author in ("agent-a", "agent-b") for i in range(lines_each)}
    assert sorted(lines) == sorted(expected)
    authors = {v.author for v in pad.history(note_name("/memories/log.md"))}
    assert {"agent-a", "agent-b"} <= authors


def test_two_writers_on_one_memory_never_lose_a_write(store: str) -> None:
    two_writers_never_lose_a_write(store, "memory")


@pytest.mark.postgres
def test_two_writers_on_one_postgres_memory_never_lose_a_write(postgres_url: str) -> None:
    two_writers_never_lose_a_write(postgres_url, f"py-memory-{os.getpid()}")


def test_one_of_two_agents_creating_a_file_wins(pad: Scratchpad) -> None:
    first, second = ScratchpadMemoryTool(pad, author="a"), ScratchpadMemoryTool(pad, author="b")
    assert reply(first, create("/memories/x.md", "mine")) == ("ok", "File created successfully at: /memories/x.md")
    assert reply(second, create("/memories/x.md", "theirs")) == ("error", "File /memories/x.md already exists")
    assert pad.read("memories--x.md", full=True).text == "mine"


# --- the SDK's tool runner against a scripted Messages API on loopback ------------------------------

SCRIPT: List[Command] = [
    view("/memories"),
    create("/memories/user.md", "- prefers tea\n"),
    replace("/memories/user.md", "tea", "coffee"),
    insert("/memories/user.md", 1, "- works nights"),
    replace("/memories/user.md", "juice", "water"),
    view("/memories/user.md"),
]


class ScriptedMessages(BaseHTTPRequestHandler):
    """Answers each POST /v1/messages with the next step of SCRIPT as a tool_use, then a last text."""

    requests: List[Dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        type(self).requests.append(body)
        step = len(type(self).requests) - 1
        if step < len(SCRIPT):
            content: List[Dict[str, Any]] = [
                {"type": "tool_use", "id": f"toolu_{step:02d}", "name": "memory", "input": SCRIPT[step]}
            ]
            stop = "tool_use"
        else:
            content, stop = [{"type": "text", "text": "Noted."}], "end_turn"
        message = {
            "id": f"msg_{step:02d}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10},
        }
        data = json.dumps(message).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
        pass


@pytest.fixture
def scripted_api() -> Iterator[str]:
    ScriptedMessages.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedMessages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def tool_results(requests: List[Dict[str, Any]]) -> List[Tuple[bool, str]]:
    """Each tool result the model was sent, in order: (is_error, text)."""
    results = []
    for request in requests:
        last = request["messages"][-1]
        if last["role"] != "user" or not isinstance(last["content"], list):
            continue
        for block in last["content"]:
            if block.get("type") == "tool_result":
                content = block["content"]
                text = content if isinstance(content, str) else "".join(part["text"] for part in content)
                results.append((bool(block.get("is_error")), text))
    return results


def run_script(base_url: str, tool: BetaAbstractMemoryTool) -> List[Tuple[bool, str]]:
    client = anthropic.Anthropic(base_url=base_url, api_key="sk-test", max_retries=0)
    runner = client.beta.messages.tool_runner(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        tools=[tool],
        messages=[{"role": "user", "content": "Remember that I now drink coffee and work nights."}],
    )
    final = runner.until_done()
    assert final.content[0].type == "text" and final.content[0].text == "Noted."
    requests = list(ScriptedMessages.requests)
    assert requests[0]["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    return tool_results(requests)


def test_the_sdk_tool_runner_drives_it_end_to_end(scripted_api: str, tmp_path: Path) -> None:
    pad = Scratchpad(f"sqlite://{tmp_path}/pad.db", session="memory")
    seen = run_script(scripted_api, ScratchpadMemoryTool(pad, author="claude"))
    ScriptedMessages.requests = []
    expected = run_script(scripted_api, BetaLocalFilesystemMemoryTool(str(tmp_path / "files")))
    assert seen == expected
    assert len(seen) == len(SCRIPT)
    assert seen[4] == (
        True,
        "No replacement was performed, old_str `juice` did not appear verbatim in /memories/user.md.",
    )
    assert seen[5][1].endswith("     1\t- prefers coffee\n     2\t- works nights\n     3\t")
    assert pad.read("memories--user.md", full=True).text == "- prefers coffee\n- works nights\n"
    assert {v.author for v in pad.history("memories--user.md")} == {"claude"}
