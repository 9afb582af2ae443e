"""Mistakes the stubs must catch."""

from scratchpad import Scratchpad

pad = Scratchpad("sqlite:///tmp/x.db")
pad.read("log", lines="100-120")
pad.write("plan")
count: str = pad.get("plan").bytes
pad.nonexistent()
pad.diff("plan", ("plan", "v1"))
pad.acquire_lease("plan", "agent-a", [60])
pad.insert("plan", "2", "text")
