"""The Scratchpad class: offload, every read mode, notes, errors, and the store it shares with the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Callable, List

import pytest

import scratchpad
from conftest import log_with_errors
from scratchpad import (
    Conflict,
    ConfigError,
    InvalidArgument,
    InvalidName,
    NotFound,
    Scratchpad,
    ScratchpadError,
    TooLarge,
    WrongKind,
)


def test_small_output_passes_through_and_large_becomes_the_mcp_reference(pad: Scratchpad) -> None:
    small = "3 passed"
    assert pad.offload("run_tests", small) is small
    big = log_with_errors(5_000, [2_500])
    shown = pad.offload("run_tests", big)
    reference = json.loads(shown)
    assert reference["ok"] is True
    assert reference["scratchpad"] == "run_tests_1"
    assert reference["bytes"] == len(big.encode())
    assert reference["lines"] == 5_000
    assert "2500: 2026-01-01T00:00:00Z ERROR disk full at line 2500" in reference["preview"]
    # The hint is the MCP server's: calls a model makes on the scratchpad tools.
    assert 'scratchpad_read(name="run_tests_1", mode="grep"' in reference["hint"]
    assert len(shown) < 4_096
    # Automatic names are never reused.
    assert json.loads(pad.offload("run_tests", big))["scratchpad"] == "run_tests_2"


def test_python_values_cross_as_json_values(pad: Scratchpad) -> None:
    value = {"ok": True, "none": None, "ratio": 0.25, "big": 2**63 - 1, "neg": -5, "pair": (1, "two"), "text": "é\u2028"}
    stored = pad.offload_result("api", value, name="value", metadata={"nested": {"list": [1, 2.5, None]}})
    assert stored.entry is not None
    assert json.loads(pad.read("value", full=True).text) == {**value, "pair": [1, "two"]}
    assert pad.get("value").meta["nested"] == {"list": [1, 2.5, None]}
    # What JSON cannot hold is refused with what it can, and nothing is stored.
    for bad in ({1: "int key"}, {"a": object()}):
        with pytest.raises(ValueError, match="not a JSON value"):
            pad.offload("api", bad, name="bad")
    with pytest.raises(NotFound):
        pad.get("bad")
    # Nesting deeper than JSON readers take, or a value that contains itself, is refused, never a crash.
    deep: List[object] = []
    inner = deep
    for _ in range(200_000):
        inner.append([])
        inner = inner[0]  # type: ignore[assignment]
    looped: List[object] = []
    looped.append(looped)
    for bad in (deep, {"meta": looped}):
        with pytest.raises(ValueError, match="nested more than 128 levels"):
            pad.offload("api", bad, name="bad")
    nested_128 = current = []  # type: ignore[var-annotated]
    for _ in range(127):
        current.append([])
        current = current[0]
    assert pad.offload_result("api", nested_128, name="deep-ok").entry is not None


def test_offload_result_names_json_and_binary(pad: Scratchpad) -> None:
    saved = pad.offload_result("echo", "tiny", name="kept")
    assert not saved.stored and saved.shown == "tiny"
    assert saved.entry is not None and saved.entry.name == "kept"
    doc = {"items": [{"id": i, "name": f"item-{i}"} for i in range(2_000)]}
    result = pad.offload_result("api", doc, metadata={"status": 200}, args={"page": 1})
    assert result.stored and result.entry is not None
    assert result.entry.kind == "json" and result.entry.tool == "api"
    assert json.loads(result.shown)["metadata"] == {"status": 200}
    assert pad.read(result.entry.name, json=".items[1].name").text.strip() == '"item-1"'
    small_json = pad.offload("api", {"a": 1})
    assert json.loads(small_json) == {"a": 1}
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
    image = pad.offload_result("screenshot", png)
    assert image.stored and image.entry is not None
    assert image.entry.kind == "binary" and image.entry.mime == "image/png"
    assert pad.content(image.entry.name) == png


def test_every_read_mode(pad: Scratchpad) -> None:
    log = log_with_errors(5_000, [120, 2_500])
    pad.put(log, name="log")
    head = pad.read("log", head=10)
    assert head.text == "".join(log.splitlines(keepends=True)[:10])
    assert head.location == "lines 1–10 of 5,000" and head.first_line == 1
    assert pad.read("log").text == pad.read("log", head=True).text
    assert pad.read("log", tail=5).text == "".join(log.splitlines(keepends=True)[-5:])
    assert pad.read("log", range=(1_000, 1_200)).text == log[1_000:1_200]
    lines = pad.read("log", lines=(100, 120))
    assert lines.first_line == 100
    assert lines.text.splitlines() == log.splitlines()[99:120]
    assert lines.numbered_text.splitlines()[0].startswith("100: ")
    grep = pad.read("log", grep="ERROR", context=2)
    assert grep.total_matches == 2 and grep.shown_matches == 2
    assert "120:2026-01-01T00:00:00Z ERROR" in grep.text and "118-" in grep.text
    matched = [line.number for line in grep.grep_lines if line.matched]
    assert matched == [120, 2_500]
    assert {line.number for line in grep.grep_lines if not line.matched} >= {118, 119, 121, 122}
    assert pad.read("log", grep="error", ignore_case=True).total_matches == 2
    summary = pad.read("log", summary=True)
    assert "ERROR" in summary.text and "summary of 5,000 lines" in summary.location
    full = pad.read("log", full=True, force=True, budget=1_000_000)
    assert full.text == log
    pad.write("data", json.dumps({"items": [{"id": 7}]}))
    assert pad.read("data", json=".items[0].id").text.strip() == "7"
    pad.put(b"\x00\x01binary\xff", name="blob")
    assert pad.read("blob", bytes=(0, 4)).text == "AAFiaQ=="


def test_every_form_of_text_and_bytes_is_stored_exactly(pad: Scratchpad) -> None:
    # ASCII, Latin-1, BMP and astral strings are three layouts inside CPython; each is read in place.
    texts = ["ascii only\n" * 50_000, "café déjà vu\n" * 50_000, "日本語 ✓ 𝄞 🙂\n" * 50_000]
    for i, text in enumerate(texts):
        assert pad.content(pad.put(text, name=f"t{i}").name) == text.encode()
        assert pad.read(f"t{i}", tail=3).text == text.splitlines(keepends=True)[0] * 3
        offloaded = pad.offload_result("tool", text)
        assert offloaded.stored and offloaded.entry is not None
        assert pad.content(offloaded.entry.name) == text.encode()
    data = bytes(range(256)) * 4_000
    buffer = bytearray(data)
    pad.put(data, name="b")
    pad.put(buffer, name="ba")
    buffer[0] = 1  # the stored copy of a bytearray does not follow the object
    assert pad.content("b") == data and pad.content("ba") == data
    pad.write("note", texts[2][:200])
    pad.append("note", "✓ appended")
    assert pad.content("note").decode() == texts[2][:200] + "✓ appended"
    pad.edit("note", old="✓ appended", new="édité")
    assert pad.content("note").decode().endswith("édité")


def test_a_cut_reply_continues_where_it_stopped(pad: Scratchpad) -> None:
    pad.put(log_with_errors(5_000, []), name="log")
    first = pad.read("log", lines=(1, 5_000), budget=2_000)
    assert first.truncated and first.continuation is not None
    nxt = pad.read("log", **first.continuation, budget=2_000)
    assert nxt.first_line == first.first_line + first.text.count("\n")  # type: ignore[operator]
    grep = pad.read("log", grep="INFO", max_matches=3)
    assert grep.continuation == {"grep": "INFO", "max_matches": 3, "from_line": 4}
    # str() renders the reply with its continuation spelled as a Python call.
    assert 'pad.read("log", grep="INFO", max_matches=3, from_line=4)' in str(grep)


def test_notes_lifecycle_with_versions(pad: Scratchpad) -> None:
    plan = pad.write("plan", "1. reproduce\n")
    assert plan.version == 1 and plan.expires_at is None and plan.kind == "text"
    edited = pad.edit("plan", old="reproduce", new="reproduce (done)")
    assert edited.replacements == 1 and edited.entry.version == 2
    pad.append("plan", "2. fix\n", if_version=2)
    assert pad.read("plan", full=True).text == "1. reproduce (done)\n2. fix\n"
    with pytest.raises(Conflict) as conflict:
        pad.write("plan", "stale", if_version=1)
    assert conflict.value.current_version == 3 and conflict.value.expected_version == 1
    assert "if_version=3" in str(conflict.value)
    pad.edit("plan", old="\n", new="\r\n", replace_all=True)
    assert pad.pin("plan").pinned and not pad.unpin("plan").pinned
    assert pad.set_ttl("plan", "2h").expires_at is not None
    assert pad.set_ttl("plan", timedelta(minutes=5)).expires_at is not None
    assert pad.set_ttl("plan", "never").expires_at is None
    renamed = pad.rename("plan", "plan-v2")
    assert renamed.name == "plan-v2"
    gone = pad.delete("plan-v2", if_version=renamed.version)
    assert gone.name == "plan-v2"
    with pytest.raises(NotFound):
        pad.get("plan-v2")
    expiring = pad.write("scratch", "x", ttl=60, meta={"by": "test"}, turn="t1")
    assert expiring.expires_at is not None and expiring.meta == {"by": "test"} and expiring.turn == "t1"
    assert pad.expire_turn("t1") == 1


def test_errors_are_python_classes_with_the_engine_messages(pad: Scratchpad) -> None:
    pad.write("plan", "text")
    with pytest.raises(NotFound) as missing:
        pad.read("plna")
    err = missing.value
    assert isinstance(err, ScratchpadError) and isinstance(err, LookupError)
    assert err.name == "plna" and err.session == "test" and err.similar == ["plan"]
    assert str(err) == (
        "no entry named `plna` in session `test`; existing names include `plan`; `pad.list()` shows them all"
    )
    with pytest.raises(InvalidArgument, match="invalid regex"):
        pad.read("plan", grep="(")
    with pytest.raises(InvalidName) as bad_name:
        pad.write("../etc/passwd", "x")
    assert isinstance(bad_name.value, InvalidArgument) and isinstance(bad_name.value, ValueError)
    assert bad_name.value.what == "name" and "names are 1 to 128 characters" in str(bad_name.value)
    pad.put(b"\x00\xff", name="blob")
    with pytest.raises(WrongKind, match=r'pad\.read\("blob", bytes=\(0, 3000\)\)'):
        pad.read("blob", lines=(1, 2))
    pad.put("x" * 300_000, name="big")
    with pytest.raises(TooLarge, match="force=True"):
        pad.read("big", full=True)
    with pytest.raises(InvalidArgument, match="one way at a time"):
        pad.read("plan", head=10, tail=10)
    with pytest.raises(InvalidArgument, match="refines a grep"):
        pad.read("plan", context=2)
    with pytest.raises(InvalidArgument, match="the text to replace occurs 2 times"):
        pad.write("twice", "a a")
        pad.edit("twice", old="a", new="b")
    with pytest.raises(ConfigError, match="does not exist"):
        Scratchpad("sqlite:///no/such/dir/pad.db")


# Text only another face writes when it spells a call: the library's Rust calls, the command line,
# the MCP tools, the web view's addresses.
OTHER_FACES = ("ReadMode::", "pad.list(..)", "`scratchpad ", "`scratchpad_", "</s/")


def test_no_error_speaks_another_face_syntax(pad: Scratchpad) -> None:
    messages: List[str] = []

    def failure(call: Callable[[], object]) -> None:
        with pytest.raises(ScratchpadError) as raised:
            call()
        messages.append(str(raised.value))

    failure(lambda: pad.read("nothing-yet"))
    pad.write("plan", "one\ntwo\n")
    failure(lambda: pad.read("plna"))
    failure(lambda: pad.write("../etc/passwd", "x"))
    failure(lambda: pad.write("plan", "x", if_version=7))
    failure(lambda: pad.write("plan", "x", if_version=0))
    failure(lambda: pad.read("plan", grep="("))
    failure(lambda: pad.read("plan", context=2))
    failure(lambda: pad.read("plan", json="."))
    pad.put(b"\x00\xff", name="blob")
    failure(lambda: pad.read("blob", lines=(1, 2)))
    pad.put("x" * 300_000, name="big")
    failure(lambda: pad.read("big", full=True))
    held = pad.acquire_lease("plan", "agent-a", 60)
    failure(lambda: pad.acquire_lease("plan", "agent-b", 60))
    failure(lambda: pad.release_lease("plan", held.token, holder="agent-b"))
    failure(lambda: pad.write("plan", "x", lease=held.token + 1))
    pad.release_lease("plan", held.token, holder="agent-a")
    failure(lambda: pad.write("plan", "x", lease=held.token))
    failure(lambda: pad.acquire_lease("plan", "agent-a", "never"))
    failure(lambda: pad.restore("plan", 9))
    pad.delete("plan")
    pad.write("plan", "reused")
    failure(lambda: pad.restore_removed("plan"))
    assert len(messages) == 17
    for message in messages:
        assert not [piece for piece in OTHER_FACES if piece in message], message
    # The calls they suggest are Python calls.
    assert any("`pad." in message for message in messages), messages


def test_a_store_password_never_reaches_an_error() -> None:
    # Nothing listens on port 1. An unencoded `@` in the password ends at the last one, so no part
    # of the password is taken for the host and printed.
    with pytest.raises(ConfigError) as refused:
        Scratchpad("postgres://agent:p@zq9xw@127.0.0.1:1/pad?connect_timeout=2")
    message = str(refused.value)
    assert "cannot connect to PostgreSQL at agent@127.0.0.1:1/pad" in message
    assert "zq9xw" not in message
    # A one-letter password: the message is not masked wherever that letter occurs.
    with pytest.raises(ConfigError) as short:
        Scratchpad("postgres://agent:a@127.0.0.1:1/pad?connect_timeout=2")
    assert "***" not in str(short.value) and "check that the server is running" in str(short.value)
    with pytest.raises(ConfigError) as bad_ca:
        Scratchpad("postgres://agent:hunter2x@127.0.0.1:1/pad?sslmode=verify-full&sslrootcert=/no/ca.pem")
    assert "cannot read the store URL's sslrootcert /no/ca.pem" in str(bad_ca.value)
    assert "hunter2x" not in str(bad_ca.value)


def test_resolve_list_search_stats(pad: Scratchpad) -> None:
    pad.put(log_with_errors(300, [150]), name="log", tool="journal")
    pad.write("plan", "remember the disk quota")
    assert pad.resolve("line: {{scratchpad:log#lines=150-150}}") == (
        "line: 2026-01-01T00:00:00Z ERROR disk full at line 150"
    )
    with pytest.raises(NotFound):
        pad.resolve("{{scratchpad:nope}}")
    page = pad.list()
    assert [e.name for e in page] == ["plan", "log"] and page.next_cursor is None and len(page) == 2
    assert [e.name for e in pad.list(tool="journal")] == ["log"]
    first = pad.list(limit=1)
    assert len(first) == 1 and first.next_cursor is not None
    assert [e.name for e in pad.list(cursor=first.next_cursor)] == ["log"]
    hits = pad.search("quota")
    assert [h.entry.name for h in hits] == ["plan"] and "«quota»" in hits[0].snippet
    stats = pad.stats()
    assert stats.session == "test" and stats.entries == 2 and stats.tokens_kept_out > 0
    info = pad.get("log")
    assert info == pad.get(info.id)
    assert info.to_dict()["name"] == "log" and info.tokens_est > 0
    assert "EntryInfo(name='log'" in repr(info).replace('"', "'")


def test_put_streams_a_file_and_sessions_are_walls(pad: Scratchpad, tmp_path: Path) -> None:
    path = tmp_path / "big.log"
    path.write_text(log_with_errors(100_000, [77_777]))
    info = pad.put(path, name="file")
    assert info.lines == 100_000
    assert pad.read("file", grep="ERROR").grep_lines[0].number == 77_777
    other = pad.with_session("other")
    assert other.session == "other"
    with pytest.raises(NotFound):
        other.get("file")
    with pytest.raises(ScratchpadError):
        pad.put(tmp_path / "missing.log", name="nope")


def test_no_arguments_open_the_same_default_store_as_the_cli(tmp_path: Path, cli: Callable[..., str]) -> None:
    # The CLI and the package read the same variables and the same default file.
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "cfg")}
    env.pop("SCRATCHPAD_STORE", None)
    env.pop("SCRATCHPAD_SESSION", None)
    script = "from scratchpad import Scratchpad; p = Scratchpad(); p.write('hello', 'from python'); print(p.session)"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "default"
    binary = os.environ["SCRATCHPAD_BIN"]
    read = subprocess.run([binary, "read", "hello"], env=env, capture_output=True, text=True)
    assert read.returncode == 0, read.stderr
    assert "from python" in read.stdout
    env["SCRATCHPAD_SESSION"] = "from-env"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "from-env"


def test_entries_written_here_are_read_by_the_cli_and_back(pad: Scratchpad, store: str, cli: Callable[..., str]) -> None:
    pad.offload("run_tests", log_with_errors(5_000, [4_321]))
    assert "run_tests_1" in cli("ls")
    assert "4321:2026-01-01T00:00:00Z ERROR disk full at line 4321" in cli("read", "run_tests_1", "--grep", "ERROR")
    subprocess.run(
        [os.environ["SCRATCHPAD_BIN"], "--store", store, "--session", "test", "put", "from-cli"],
        input="written by the CLI",
        text=True,
        check=True,
        capture_output=True,
    )
    assert pad.read("from-cli", full=True).text == "written by the CLI"


def test_escape_makes_a_literal_grep(pad: Scratchpad) -> None:
    pad.write("code", "call(a.b)\ncallXaYb\n")
    assert pad.read("code", grep=scratchpad.escape("call(a.b)")).total_matches == 1


@pytest.mark.postgres
def test_the_shared_postgres_store() -> None:
    url = os.environ.get("SCRATCHPAD_TEST_PG_URL")
    if not url:
        pytest.fail("SCRATCHPAD_TEST_PG_URL is not set; scripts/test starts a throwaway PostgreSQL and sets it")
    session = f"py-{os.getpid()}"
    pad = Scratchpad(url, session=session)
    pad.write("plan", "shared")
    pad.offload("run", log_with_errors(5_000, [99]))
    assert pad.read("run_1", grep="ERROR").grep_lines[0].number == 99
    assert Scratchpad(url, session=session).read("plan", full=True).text == "shared"
    with pytest.raises(NotFound):
        Scratchpad(url, session=session + "-other").get("plan")


def test_head_and_tail_count_lines(pad: Scratchpad) -> None:
    """head=N and tail=N take lines, as head -n and tail -n count them (they took characters)."""
    ten = "".join(f"line {i}\n" for i in range(1, 11))
    pad.write("ten", ten)
    pad.write("open", ten.rstrip("\n"))
    three = pad.read("ten", head=3)
    assert three.text == "line 1\nline 2\nline 3\n" and three.location == "lines 1–3 of 10"
    for name in ("ten", "open"):
        two = pad.read(name, tail=2)
        assert two.text == "line 9\nline 10\n" and two.location == "lines 9–10 of 10"
        assert two.numbered_text == " 9: line 9\n10: line 10\n"
    assert pad.read("ten", head=50).text == ten and pad.read("ten", tail=50).text == ten
    # One 5 MB line without a newline: bounded by the budget, continued by characters.
    pad.write("one", "abcdefghij" * 500_000)
    for reply in (pad.read("one", head=1), pad.read("one", tail=1)):
        assert len(reply.text) < 9_000 and reply.truncated
        assert reply.continuation is not None and "range" in reply.continuation
        assert len(pad.read(reply.name, **reply.continuation).text) > 1_000
