"""Ctrl-C during a long call: the call raises KeyboardInterrupt at once, not when it would have ended,
and the store is as it was (no partial entry, nothing staged)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

from conftest import run_python

# Sends SIGINT to this process, as Ctrl-C does, once `ready()` says that the call is under way:
# engine threads have names, so a call is seen to run by its threads in /proc. Profile events say
# whether the call itself raised KeyboardInterrupt or returned first (when the interpreter runs the
# handler right after a call that ignored the signal, the exception comes from the same line).
INTERRUPT = """
    import json, os, signal, sys, threading, time
    from pathlib import Path

    def threads_named(name):
        return sum(1 for task in Path("/proc/self/task").iterdir()
                   if (task / "comm").read_text().strip() == name)

    def ctrl_c_when(ready):
        def wait_then_interrupt():
            while not ready():
                time.sleep(0.01)
            os.kill(os.getpid(), signal.SIGINT)
        threading.Thread(target=wait_then_interrupt, daemon=True).start()

    class Watch:
        # Whether the C method `method` ("Scratchpad.read") is running, and how it ended.
        def __init__(self, method):
            self.method, self.running, self.ended = method, False, None
        def __enter__(self):
            sys.setprofile(self.event)
            return self
        def __exit__(self, *exc):
            sys.setprofile(None)
        def event(self, frame, event, arg):
            if getattr(arg, "__qualname__", None) == self.method:
                if event == "c_call":
                    self.running = True
                elif event in ("c_return", "c_exception"):
                    self.running, self.ended = False, event

    def outcome(method, call):
        with Watch(method) as watch:
            try:
                call()
                return "completed"
            except KeyboardInterrupt:
                if watch.ended == "c_exception":
                    return "interrupted"
                return "interrupted after the call returned"
            except Exception as err:
                return f"{type(err).__name__}: {err}"
"""


def interrupted(script: str, *args: str, env: dict | None = None) -> dict:
    done = run_python(textwrap.dedent(INTERRUPT) + textwrap.dedent(script), *args, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_ctrl_c_stops_a_jq_query(store: str) -> None:
    # Regression: the query ran to its own timeout (here ten minutes) before KeyboardInterrupt.
    seen = interrupted(
        """
        from scratchpad import Scratchpad
        pad = Scratchpad(sys.argv[1], session="test")
        pad.put('{"items": [1, 2, 3]}', name="doc")
        ctrl_c_when(lambda: threads_named("jq") > 0)
        got = outcome("Scratchpad.read", lambda: pad.read("doc", json="last(range(1e15))"))
        print(json.dumps({"outcome": got, "items": pad.read("doc", json=".items | length").text.strip()}))
        """,
        store,
        env={"SCRATCHPAD_JQ_TIMEOUT_MS": "600000"},
    )
    assert seen == {"outcome": "interrupted", "items": "3"}


def test_ctrl_c_stops_a_long_grep(store: str) -> None:
    # Regression: a grep that runs for a while (an expensive pattern over 13 MB: 16 s here) ran to
    # its end, and only then did KeyboardInterrupt come.
    seen = interrupted(
        """
        from scratchpad import Scratchpad
        pad = Scratchpad(sys.argv[1], session="test")
        line = "é" * 10 + " word" * 12 + " zzz\\n"
        pad.put(line * 150_000, name="log")
        ctrl_c_when(lambda: threads_named("read ahead") > 0)
        got = outcome("Scratchpad.read", lambda: pad.read("log", grep=r"(\\w+\\s*){1,60}\\bzzz\\b\\s*q"))
        print(json.dumps({"outcome": got, "lines": pad.get("log").lines}))
        """,
        store,
    )
    assert seen == {"outcome": "interrupted", "lines": 150_000}


def test_ctrl_c_stops_a_put_and_leaves_nothing_behind(store: str, tmp_path: Path) -> None:
    # Regression: the put went on to the end of its input (here 64 MB written slowly, 8 s) and kept
    # the entry, then KeyboardInterrupt came.
    fifo = tmp_path / "output"
    os.mkfifo(fifo)
    seen = interrupted(
        """
        from scratchpad import Scratchpad
        pad = Scratchpad(sys.argv[1], session="test")
        pad.write("before", "an earlier note")
        written = [0]

        def slow_producer():
            block = b"a line of a tool's output\\n" * 2_500
            try:
                with open(sys.argv[2], "wb") as out:
                    while written[0] < 64_000_000:
                        out.write(block)
                        written[0] += len(block)
                        time.sleep(0.008)
            except BrokenPipeError:
                pass

        threading.Thread(target=slow_producer, daemon=True).start()
        ctrl_c_when(lambda: written[0] > 2_000_000)
        got = outcome("Scratchpad.put", lambda: pad.put(Path(sys.argv[2]), name="output"))
        staging = Path(sys.argv[1].removeprefix("sqlite://") + "-blobs") / "tmp"
        print(json.dumps({
            "outcome": got,
            "names": [entry.name for entry in pad.list()],
            "staged": sorted(p.name for p in staging.iterdir()) if staging.exists() else [],
            "check": pad.check().ok,
        }))
        """,
        store,
        str(fifo),
    )
    assert seen == {"outcome": "interrupted", "names": ["before"], "staged": [], "check": True}


def test_a_signal_handler_that_does_not_raise_runs_during_the_call_which_goes_on(store: str, tmp_path: Path) -> None:
    # The handler runs while the put still reads its input, not after; as it raises nothing, the
    # put goes on and stores everything.
    fifo = tmp_path / "output"
    os.mkfifo(fifo)
    seen = interrupted(
        """
        from scratchpad import Scratchpad
        pad = Scratchpad(sys.argv[1], session="test")
        written, handled = [0], []

        def slow_producer():
            block = b"a line of a tool's output\\n" * 2_500
            with open(sys.argv[2], "wb") as out:
                for _ in range(120):
                    out.write(block)
                    written[0] += len(block)
                    time.sleep(0.008)

        threading.Thread(target=slow_producer).start()
        signal.signal(signal.SIGINT, lambda signum, frame: handled.append(written[0]))
        ctrl_c_when(lambda: written[0] > 1_000_000)
        stored = pad.put(Path(sys.argv[2]), name="output")
        print(json.dumps({"handled_before_the_end": [n < written[0] for n in handled], "bytes": stored.bytes}))
        """,
        store,
        str(fifo),
    )
    assert seen == {"handled_before_the_end": [True], "bytes": 120 * 2_500 * 26}
