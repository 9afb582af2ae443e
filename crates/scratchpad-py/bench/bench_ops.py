"""Offload and slice latency through the Python package next to the same operations in Rust
(`scratchpad-ops`), on the same input, in the same run. Prints medians and their ratio.

Run it with scripts/bench-python (which builds both in release first).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List

from scratchpad import Scratchpad

OPS = [
    ("offload_small", "offload 1 KB (shown inline)"),
    ("offload_large", "offload 2 MB log (stored, reference JSON)"),
    ("read_lines", "read 50 lines from the middle"),
    ("read_grep", "grep ERROR, context 2"),
    ("read_head", "head, 2,000 chars"),
    ("write_note", "write a 50 B note"),
]


def make_log(megabytes: float) -> str:
    """A deterministic log: INFO lines, an ERROR every 10,007 lines."""
    lines: List[str] = []
    size, i = 0, 0
    while size < megabytes * 1_000_000:
        i += 1
        if i % 10_007 == 0:
            line = f"2026-01-01T00:00:{i % 60:02d}Z ERROR worker-{i % 7} request {i} failed: disk full\n"
        else:
            line = f"2026-01-01T00:00:{i % 60:02d}Z INFO worker-{i % 7} request {i} served in {i % 97} ms\n"
        lines.append(line)
        size += len(line)
    return "".join(lines)


def python_ops(big: str, directory: str, reps: int) -> Dict[str, List[float]]:
    small = big[:1_000]
    pad = Scratchpad(f"sqlite://{directory}/ops.db")
    pad.write("big", big)
    middle = big.count("\n") // 2
    ops: Dict[str, Callable[[], object]] = {
        "offload_small": lambda: pad.offload("bench", small),
        "offload_large": lambda: pad.offload("bench", big),
        "read_lines": lambda: pad.read("big", lines=(middle, middle + 49)),
        "read_grep": lambda: pad.read("big", grep="ERROR", context=2),
        "read_head": lambda: pad.read("big", head=50),
        "write_note": lambda: pad.write("note", "1. reproduce the failure with the smallest input\n"),
    }
    timings: Dict[str, List[float]] = {}
    for key, _ in OPS:
        micros = []
        for _ in range(reps):
            start = time.perf_counter()
            ops[key]()
            micros.append((time.perf_counter() - start) * 1e6)
        timings[key] = micros
    return timings


def rust_ops(binary: str, input_path: Path, directory: str, reps: int) -> Dict[str, List[float]]:
    done = subprocess.run(
        [binary, "--input", str(input_path), "--dir", directory, "--reps", str(reps)],
        capture_output=True,
        text=True,
        check=True,
    )
    return {key: [float(v) for v in values] for key, values in json.loads(done.stdout).items()}


def shown(micros: float) -> str:
    if abs(micros) < 10:
        return f"{micros:.2f} µs"
    return f"{micros:,.0f} µs" if abs(micros) < 10_000 else f"{micros / 1000:,.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rust", required=True, help="the scratchpad-ops binary")
    parser.add_argument("--mb", type=float, default=2.0, help="size of the large output")
    parser.add_argument("--reps", type=int, default=31)
    parser.add_argument("--rounds", type=int, default=2, help="Rust and Python take turns this many times")
    args = parser.parse_args()
    big = make_log(args.mb)
    rust: Dict[str, List[float]] = {key: [] for key, _ in OPS}
    python: Dict[str, List[float]] = {key: [] for key, _ in OPS}
    with tempfile.TemporaryDirectory() as tmp:
        input_path = Path(tmp) / "input.log"
        input_path.write_text(big)
        for round_ in range(args.rounds):
            for side, run in (("rust", rust), ("python", python)):
                directory = Path(tmp) / f"{side}-{round_}"
                directory.mkdir()
                if side == "rust":
                    got = rust_ops(args.rust, input_path, str(directory), args.reps)
                else:
                    got = python_ops(big, str(directory), args.reps)
                for key, values in got.items():
                    run[key].extend(values)
    print(f"{len(big):,} byte log, {args.rounds} rounds x {args.reps} reps per side, medians:\n")
    print("| operation | Rust | Python | Python / Rust | added by Python |")
    print("|---|---:|---:|---:|---:|")
    for key, label in OPS:
        r, p = statistics.median(rust[key]), statistics.median(python[key])
        print(f"| {label} | {shown(r)} | {shown(p)} | {p / r:.2f} | {shown(p - r)} |")


if __name__ == "__main__":
    main()
