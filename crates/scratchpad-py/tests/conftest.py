"""Fixtures shared by the package's tests: a throwaway store, and the `scratchpad` CLI built from the
same tree (its path in SCRATCHPAD_BIN; the Rust test that runs this suite sets it). Nothing here
skips: a missing part fails the run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Callable, Dict, List, Optional

import pytest

from scratchpad import Scratchpad


@pytest.fixture
def store(tmp_path: Path) -> str:
    return f"sqlite://{tmp_path}/pad.db"


@pytest.fixture
def pad(store: str) -> Scratchpad:
    return Scratchpad(store, session="test")


@pytest.fixture
def cli(store: str) -> Callable[..., str]:
    """Runs the `scratchpad` binary on the test's store; returns stdout, fails on a non-zero exit."""
    binary = os.environ.get("SCRATCHPAD_BIN")
    if not binary or not Path(binary).is_file():
        pytest.fail(
            "SCRATCHPAD_BIN must name the scratchpad binary (cargo test sets it; or cargo build -p scratchpad "
            "and export SCRATCHPAD_BIN=target/debug/scratchpad)"
        )

    def run(*args: str, session: str = "test") -> str:
        command: List[str] = [binary, "--store", store, "--session", session, *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{args}: {done.stderr}"
        return done.stdout

    return run


def log_with_errors(lines: int, errors: List[int]) -> str:
    """A log of `lines` lines, `ERROR disk full at line N` on the given line numbers."""
    wanted = set(errors)
    return "".join(
        f"2026-01-01T00:00:00Z ERROR disk full at line {n}\n" if n in wanted else f"2026-01-01T00:00:00Z INFO step {n} ok\n"
        for n in range(1, lines + 1)
    )


def run_python(
    script: str, *args: str, timeout: float = 120, env: Optional[Dict[str, str]] = None
) -> subprocess.CompletedProcess[str]:
    """Runs `script` (dedented) in a new interpreter of this environment, with `args` as sys.argv[1:]
    and `env` added to the environment; for what only a whole process shows: its exit, fork,
    signals. `timeout` (seconds) is generous: a script that passes takes a second or two, and one
    that hangs fails the test instead of stalling the suite."""
    try:
        return subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
        )
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"the script did not end within {timeout} s; stdout: {hung.stdout!r}, stderr: {hung.stderr!r}")


@pytest.fixture
def postgres_url() -> str:
    url = os.environ.get("SCRATCHPAD_TEST_PG_URL")
    if not url:
        pytest.fail("SCRATCHPAD_TEST_PG_URL is not set; scripts/test starts a throwaway PostgreSQL and sets it")
    return url
