"""Typical use, written as a user would; mypy --strict must accept it."""

from __future__ import annotations

from typing import Dict, List, Optional

from scratchpad import Conflict, EntryInfo, NotFound, ReadReply, Scratchpad, offloads


def session_notes(pad: Scratchpad) -> List[str]:
    pad.write("plan", "1. reproduce")
    pad.edit("plan", old="reproduce", new="reproduce (done)")
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
