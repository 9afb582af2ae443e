"""The stubs and py.typed are what a type checker sees: typical use passes mypy --strict, mistakes
do not, and the package's own Python passes too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import scratchpad

HERE = Path(__file__).parent / "typing"


def mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--strict", *args],
        capture_output=True,
        text=True,
        cwd=HERE,
    )


def test_the_package_is_typed() -> None:
    package = Path(scratchpad.__file__).parent
    assert (package / "py.typed").is_file() and (package / "_scratchpad.pyi").is_file()


def test_typical_use_passes_strict_checking() -> None:
    done = mypy("usage_ok.py")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mistakes_are_caught() -> None:
    done = mypy("usage_wrong.py")
    assert done.returncode == 1, done.stdout + done.stderr
    for line in (6, 7, 8, 9, 10, 11, 12):
        assert f"usage_wrong.py:{line}: error" in done.stdout, done.stdout


def test_the_package_itself_passes_strict_checking() -> None:
    done = mypy("-p", "scratchpad")
    assert done.returncode == 0, done.stdout + done.stderr
