"""One Scratchpad shared by threads, and the GIL released while the engine works."""

from __future__ import annotations

import bisect
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, List, Tuple

from conftest import log_with_errors, run_python
from scratchpad import Scratchpad


def test_threads_share_one_object_without_losing_a_write(pad: Scratchpad) -> None:
    workers, each = 8, 25
    log = log_with_errors(3_000, [1_500])

    def work(worker: int) -> List[str]:
        names = []
        for i in range(each):
            pad.append("journal", f"{worker}:{i}\n")
            names.append(pad.offload_result("tool", log).entry.name)  # type: ignore[union-attr]
            assert pad.read("journal", grep=f"^{worker}:").total_matches == i + 1
        return names

    with ThreadPoolExecutor(workers) as pool:
        names = [name for batch in pool.map(work, range(workers)) for name in batch]
    # Every append landed, every offload got a name of its own.
    lines = pad.read("journal", full=True, budget=1_000_000).text.splitlines()
    assert sorted(lines) == sorted(f"{w}:{i}" for w in range(workers) for i in range(each))
    assert len(set(names)) == workers * each


def test_the_gil_is_released_while_the_engine_stores_and_searches(pad: Scratchpad) -> None:
    big = log_with_errors(600_000, [599_999])  # about 28 MB
    done = threading.Event()
    calls: List[Tuple[float, float]] = []

    def timed(call: Callable[[], object]) -> None:
        start = time.perf_counter()
        call()
        calls.append((start, time.perf_counter()))

    def engine_work() -> None:
        timed(lambda: pad.put(big, name="big"))
        # Searches until the engine has worked for half a second, however fast this machine is.
        while sum(end - start for start, end in calls) < 0.5:
            timed(lambda: pad.read("big", grep="ERROR disk"))
        done.set()

    worker = threading.Thread(target=engine_work)
    beats: List[float] = []
    worker.start()
    while not done.is_set():
        beats.append(time.perf_counter())
    worker.join()
    assert pad.read("big", grep="ERROR disk").total_matches == 1

    # Held by the engine, the GIL would stop this loop for the whole of every call; released, the
    # loop only waits for its turn (the interpreter's switch interval is 5 ms). So the loop keeps
    # beating inside the calls, and never stops for long inside the longest one.
    def beats_within(start: float, end: float) -> List[float]:
        return beats[bisect.bisect_right(beats, start) : bisect.bisect_left(beats, end)]

    inside = sum(len(beats_within(start, end)) for start, end in calls)
    assert inside > 1_000, (inside, len(calls))
    start, end = max(calls, key=lambda call: call[1] - call[0])
    window = [start] + beats_within(start, end) + [end]
    longest_stop = max(b - a for a, b in zip(window, window[1:]))
    assert longest_stop < (end - start) / 3, (longest_stop, end - start)


def test_the_interpreter_exits_cleanly_while_daemon_threads_are_inside_calls(store: str) -> None:
    # At exit, CPython before 3.14 ends a daemon thread that takes the GIL back with a forced unwind
    # (pthread_exit); through the frames of a call it aborted the process ("FATAL: exception not
    # rethrown", SIGABRT) in nearly every run. Calls that end after finalization began now wait
    # there until the process is gone.
    script = """
        import sys, threading
        from scratchpad import Scratchpad

        pad = Scratchpad(sys.argv[1], session="test")
        pad.put("x\\n" * 200_000, name="log")
        inside = threading.Event()

        def calls():
            while True:
                pad.read("log", grep="x", max_matches=5)
                pad.append("journal", "x\\n")
                inside.set()

        for _ in range(2):
            threading.Thread(target=calls, daemon=True).start()
        inside.wait()
        print("exiting")
    """
    for _ in range(3):
        done = run_python(script, store)
        assert (done.returncode, done.stdout) == (0, "exiting\n"), done.stderr
