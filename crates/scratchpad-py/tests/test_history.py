"""History, old versions, diffs, restore, leases and check: and every call the package's messages
and replies name is one that runs."""

from __future__ import annotations

import re
import sqlite3
import time
from datetime import timedelta
from typing import Any, List

import pytest

from conftest import log_with_errors
from scratchpad import (
    CheckReport,
    Conflict,
    Diff,
    History,
    InvalidArgument,
    Lease,
    ReadReply,
    Scratchpad,
    ScratchpadError,
)

CALL = re.compile(r"`(pad\.[a-z_]+\(.*?\))`")


def calls(text: str) -> List[str]:
    """The `pad.…(…)` calls a message or a rendered reply names."""
    return CALL.findall(text)


def run(pad: Scratchpad, call: str) -> Any:
    """Evaluates a call the package printed, as a user would paste it."""
    return eval(call, {"__builtins__": {}}, {"pad": pad, "True": True, "False": False, "None": None})


def plan_with_three_versions(pad: Scratchpad) -> None:
    a = pad.with_author("agent-a")
    b = pad.with_author("agent-b")
    a.write("plan", "1. reproduce\n2. fix\n")
    b.edit("plan", old="fix", new="fix the parser")
    a.append("plan", "3. test\n")


def test_two_handles_racing_for_a_lease_see_the_holder(store: str) -> None:
    a = Scratchpad(store, session="test", author="agent-a")
    b = Scratchpad(store, session="test", author="agent-b")
    assert a.author == "agent-a"
    assert a.lease("plan") is None
    lease = a.acquire_lease("plan", "agent-a", 60)
    assert isinstance(lease, Lease)
    assert (lease.holder, lease.state, lease.name) == ("agent-a", "held", "plan")
    assert lease.expires_at - lease.acquired_at == 60_000
    assert 0 < lease.remaining <= 60
    with pytest.raises(Conflict) as caught:
        b.acquire_lease("plan", "agent-b", "10m")
    err = caught.value
    assert "agent-a" in str(err)
    assert err.holder == "agent-a" and err.lease_token == lease.token and err.name == "plan"
    shown = [run(b, call) for call in calls(str(err))]
    assert shown and isinstance(shown[0], Lease) and shown[0].holder == "agent-a"
    # Renewed and released by its token; then the other handle gets it, with a newer token.
    assert a.renew_lease("plan", lease.token, timedelta(minutes=5)).expires_at > lease.expires_at
    assert a.release_lease("plan", lease.token).state == "released"
    taken = b.acquire_lease("plan", "agent-b", 30.5)
    assert taken.token > lease.token and taken.expires_at - taken.acquired_at == 30_500


def test_a_stale_token_is_refused_after_a_successor_wrote(store: str) -> None:
    a = Scratchpad(store, session="test", author="agent-a")
    b = Scratchpad(store, session="test", author="agent-b")
    first = a.acquire_lease("plan", "agent-a", 0.05)
    a.write("plan", "1. profile the parser\n", lease=first.token)
    time.sleep(0.1)
    assert a.lease("plan").state == "expired"  # type: ignore[union-attr]
    second = b.acquire_lease("plan", "agent-b", 60)
    b.write("plan", "1. cache tokens\n", lease=second.token)
    with pytest.raises(Conflict) as caught:
        a.write("plan", "1. rewrite the lexer\n", lease=first.token)
    err = caught.value
    assert err.stale_token == first.token and err.lease_token == second.token
    assert err.holder == "agent-b" and "agent-b" in str(err)
    # Every other change with the stale token is refused too.
    for change in (
        lambda: a.append("plan", "x", lease=first.token),
        lambda: a.edit("plan", old="cache", new="drop", lease=first.token),
        lambda: a.rename("plan", "plan2", lease=first.token),
        lambda: a.delete("plan", lease=first.token),
        lambda: a.put("x", name="plan", if_version=2, lease=first.token),
        lambda: a.pin("plan", lease=first.token),
        lambda: a.unpin("plan", lease=first.token),
        lambda: a.set_ttl("plan", "1d", lease=first.token),
        lambda: a.restore("plan", 1, lease=first.token),
    ):
        with pytest.raises(Conflict):
            change()
    # The message says to look at the history, as a call that runs.
    assert any(call.startswith("pad.history(") for call in calls(str(err)))
    histories = [run(a, call) for call in calls(str(err))]
    history = next(h for h in histories if isinstance(h, History))
    assert [v.author for v in history] == ["agent-b", "agent-a"]
    assert a.read("plan", full=True).text == "1. cache tokens\n"


def test_only_the_holder_renews_or_releases_and_a_released_token_fences(store: str) -> None:
    """Regression: anyone could renew or release another holder's lease with the token a lease
    shows, and a write carrying a released lease's token still landed."""
    a = Scratchpad(store, session="test", author="agent-a")
    b = Scratchpad(store, session="test", author="agent-b")
    lease = a.acquire_lease("plan", "agent-a", 60)
    a.write("plan", "1. profile the parser\n", lease=lease.token)
    shown = b.lease("plan")
    assert shown is not None and shown.token == lease.token
    for refused in (
        lambda: b.renew_lease("plan", shown.token, "1h"),
        lambda: b.release_lease("plan", shown.token),
        lambda: a.release_lease("plan", shown.token, holder="agent-b"),
    ):
        with pytest.raises(Conflict) as caught:
            refused()
        assert caught.value.holder == "agent-a" and caught.value.lease_token == lease.token
        assert "held by `agent-a`" in str(caught.value) and "`agent-b`" in str(caught.value)
    assert a.lease("plan").state == "held"  # type: ignore[union-attr]
    with pytest.raises(InvalidArgument, match="holder"):
        Scratchpad(store, session="test").release_lease("plan", lease.token)

    released = a.release_lease("plan", lease.token)
    assert (released.state, released.holder) == ("released", "agent-a")
    assert released.released_at is not None
    with pytest.raises(Conflict) as caught:
        a.write("plan", "a late change\n", lease=lease.token)
    err = caught.value
    assert err.stale_token == lease.token and "was released" in str(err)
    # The message names the call that claims it again, and that call runs.
    again = [run(a, call) for call in calls(str(err)) if call.startswith("pad.acquire_lease(")]
    assert len(again) == 1 and again[0].holder == "agent-a" and again[0].token == lease.token + 1
    assert a.read("plan", full=True).text == "1. profile the parser\n"


def test_a_token_for_a_name_never_leased_names_the_lease_call(pad: Scratchpad) -> None:
    with pytest.raises(Conflict) as caught:
        pad.write("plan", "x", lease=7)
    assert caught.value.stale_token == 7
    found = calls(str(caught.value))
    assert found and all(run(pad, call) is None for call in found)


def test_a_lease_always_ends(pad: Scratchpad) -> None:
    with pytest.raises(InvalidArgument, match="always ends"):
        pad.acquire_lease("plan", "agent-a", "never")


def test_history_after_edits_shows_the_authors_and_changes(pad: Scratchpad) -> None:
    plan_with_three_versions(pad)
    history = pad.history("plan")
    assert isinstance(history, History) and len(history) == 3
    assert history.entry.version == 3 and history.keeps_history
    assert [v.version for v in history.versions] == [3, 2, 1]
    assert [v.author for v in history] == ["agent-a", "agent-b", "agent-a"]
    summaries = [v.summary or "" for v in history]
    assert summaries[0].startswith("appended") and summaries[1].startswith("edited")
    assert summaries[2] == "created"
    assert all(v.written_at > 0 and v.bytes > 0 for v in history)


def test_read_an_old_version_with_every_mode(pad: Scratchpad) -> None:
    plan_with_three_versions(pad)
    assert pad.read("plan", version=1, full=True).text == "1. reproduce\n2. fix\n"
    assert pad.read("plan", version=2, lines=(2, 2)).text.splitlines() == ["2. fix the parser"]
    assert pad.read("plan", version=1, grep="fix").total_matches == 1
    assert pad.read("plan", version=1, head=1).text == "1. reproduce\n"
    assert pad.read("plan", version=1, tail=1).text == "2. fix\n"
    one = pad.read("plan", version=1)
    assert one.version == 1 and pad.read("plan").version is None


def test_an_old_version_read_continues_on_that_version(pad: Scratchpad) -> None:
    pad.write("log", "".join(f"line {n}\n" for n in range(1, 2_001)))
    pad.write("log", "replaced\n")
    reply = pad.read("log", version=1, lines=(1, 2_000), budget=300)
    assert reply.truncated and reply.continuation is not None
    assert reply.continuation["version"] == 1
    following = pad.read(reply.name, **reply.continuation)
    assert following.text.startswith("line ")
    found = calls(str(reply))
    assert found and all("version=1" in call for call in found)
    for call in found:
        more = run(pad, call)
        assert isinstance(more, ReadReply) and more.text.startswith("line ")


def test_a_version_not_kept_names_the_history_call(pad: Scratchpad) -> None:
    plan_with_three_versions(pad)
    with pytest.raises(InvalidArgument) as caught:
        pad.read("plan", version=9)
    found = calls(str(caught.value))
    assert found == ['pad.history("plan")']
    assert isinstance(run(pad, found[0]), History)


def test_diff_of_two_versions_and_of_two_entries(pad: Scratchpad) -> None:
    plan_with_three_versions(pad)
    versions = pad.diff(("plan", 1), ("plan", 2))
    assert isinstance(versions, Diff)
    assert (versions.added, versions.removed) == (1, 1) and not versions.identical
    assert "-2. fix\n" in versions.text and "+2. fix the parser\n" in versions.text
    assert (versions.a.version, versions.b.version) == (1, 2)
    assert versions.b.author == "agent-b" and not versions.a.current
    to_current = pad.diff(("plan", 2), "plan")
    assert to_current.b.current and to_current.added == 1
    pad.write("other", "1. reproduce\n2. fix\n")
    entries = pad.diff("other", ("plan", 1))
    assert entries.identical and entries.text == ""
    assert "identical" in entries.summary
    with pytest.raises(InvalidArgument):
        pad.diff("plan", ["plan", 1])  # type: ignore[arg-type]


def test_a_cut_diff_names_the_call_that_continues_it(pad: Scratchpad) -> None:
    pad.write("log", "".join(f"line {n}\n" for n in range(1, 400)))
    pad.write("log", "".join(f"line {n}{'!' if n % 10 == 0 else ''}\n" for n in range(1, 400)))
    cut = pad.diff(("log", 1), ("log", 2), budget=300, plain=True)
    assert cut.truncated and cut.continuation is not None
    found = calls(str(cut))
    assert found and all(call.startswith("pad.diff(") for call in found)
    assert any("cursor=" in call and "plain=True" in call for call in found)
    more = run(pad, found[0])
    assert isinstance(more, Diff) and more.added > 0
    # The continuation is the rest of the same diff: the next budget's worth of it comes first.
    assert more.text.startswith(pad.diff(("log", 1), ("log", 2), cursor=cut.continuation, budget=300).text)


def test_restore_makes_an_old_version_current_again(pad: Scratchpad) -> None:
    plan_with_three_versions(pad)
    restored = pad.with_author("agent-c").restore("plan", 1, if_version=3)
    assert restored.version == 4
    assert pad.read("plan", full=True).text == "1. reproduce\n2. fix\n"
    newest = pad.history("plan").versions[0]
    assert newest.author == "agent-c" and newest.summary == "restored version 1"
    with pytest.raises(Conflict):
        pad.restore("plan", 2, if_version=3)


def test_check_reads_every_content_back(pad: Scratchpad) -> None:
    plan_with_three_versions(pad)
    report = pad.check()
    assert isinstance(report, CheckReport)
    assert report.ok and report.problems == []


def test_a_damaged_entry_names_the_check_call(store: str, pad: Scratchpad) -> None:
    info = pad.put(log_with_errors(2_000, [1_000]), name="small")
    with sqlite3.connect(store.removeprefix("sqlite://")) as conn:
        conn.execute(
            "UPDATE chunks SET data = CAST(replace(CAST(data AS TEXT), 'INFO', 'INF0') AS BLOB) "
            "WHERE blob = (SELECT id FROM blobs WHERE hash = ?) AND seq = 0",
            (info.hash,),
        )
    with pytest.raises(ScratchpadError) as caught:
        pad.read("small", head=2_000)
    assert calls(str(caught.value)) == ["pad.check()"]
    report = run(pad, "pad.check()")
    assert isinstance(report, CheckReport) and not report.ok
    assert ("test", "small") in report.problems[0].entries
