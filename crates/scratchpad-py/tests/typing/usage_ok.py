"""Typical use, written as a user would; mypy --strict must accept it."""

from __future__ import annotations

from datetime import timedelta
from typing import Dict, List, Optional

from scratchpad import (
    CheckReport,
    Conflict,
    Diff,
    EntryInfo,
    History,
    Lease,
    NotFound,
    ReadReply,
    Scratchpad,
    offloads,
)


def session_notes(pad: Scratchpad) -> List[str]:
    pad.write("plan", "1. reproduce")
    pad.edit("plan", old="reproduce", new="reproduce (done)")
    inserted: EntryInfo = pad.insert("plan", 0, "# plan", if_version=2)
    assert inserted.version == 3
    try:
        pad.write("plan", "stale", if_version=1)
    except Conflict as err:
        current: Optional[int] = err.current_version
        assert current is not None
    try:
        pad.get("nope")
    except NotFound as err:
        similar: List[str] = err.similar
        assert isinstance(similar, list)
    return [entry.name for entry in pad.list(kind="text")]


def reads(pad: Scratchpad) -> str:
    shown: str = pad.offload("run_tests", "x" * 10_000)
    reply: ReadReply = pad.read("run_tests_1", grep="ERROR", context=2)
    more: Optional[Dict[str, object]] = reply.continuation
    lines = pad.read("run_tests_1", lines=(100, 120))
    info: EntryInfo = pad.get(lines.name)
    total: int = info.bytes + info.lines + (reply.total_matches or 0)
    return shown + str(total) + str(more)


@offloads(Scratchpad())
def tool_function(query: str) -> str:
    return query * 1000


def versions_and_leases(pad: Scratchpad) -> str:
    agent = Scratchpad("sqlite:///tmp/pad.db", author="agent-a").with_author("agent-b")
    lease: Lease = agent.acquire_lease("plan", "agent-b", 60.0)
    agent.write("plan", "1. profile", lease=lease.token)
    agent.renew_lease("plan", lease.token, "10m")
    try:
        pad.acquire_lease("plan", "agent-c", timedelta(minutes=1))
    except Conflict as err:
        holder: Optional[str] = err.holder
        assert holder is not None
    current: Optional[Lease] = pad.lease("plan")
    agent.release_lease("plan", lease.token, holder="agent-b")
    released_at: Optional[int] = current.released_at if current else None
    history: History = pad.history("plan")
    authors = [version.author for version in history]
    old: ReadReply = pad.read("plan", version=history.versions[-1].version, lines=(1, 10))
    diff: Diff = pad.diff(("plan", 1), "plan", plain=True, budget=2_000)
    later: Optional[str] = diff.continuation
    restored: EntryInfo = pad.restore("plan", 1, if_version=history.entry.version)
    report: CheckReport = pad.check()
    return str(authors) + old.text + str(diff) + str(later) + str(current) + str(restored) + str(report.ok)


def memory_tool(pad: Scratchpad) -> object:
    from scratchpad.anthropic import ScratchpadMemoryTool

    memory = ScratchpadMemoryTool(pad, author="agent-a")
    return memory.call({"command": "view", "path": "/memories"})
