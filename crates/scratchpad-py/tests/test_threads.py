"""One Scratchpad shared by threads, and the GIL released while the engine works."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import List

from conftest import log_with_errors
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
    spent: List[float] = []

    def engine_work() -> None:
        start = time.perf_counter()
        pad.put(big, name="big")
        for _ in range(5):
            assert pad.read("big", grep="ERROR disk").total_matches == 1
        spent.append(time.perf_counter() - start)
        done.set()

    worker = threading.Thread(target=engine_work)
    beats: List[float] = []
    worker.start()
    while not done.is_set():
        beats.append(time.perf_counter())
    worker.join()
    gaps = [b - a for a, b in zip(beats, beats[1:])]
    # Held by the engine, the GIL would stop this loop for the whole call; released, the loop
    # only waits for its turn (the interpreter's switch interval is 5 ms).
    assert spent[0] > 0.2, spent
    assert max(gaps) < spent[0] / 4, (max(gaps), spent[0])
    assert len(beats) > 10_000
