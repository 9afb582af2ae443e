"""The README's Python examples, run as a user pastes them: on a store that already holds what an
earlier paste left, twice in a row. Those that need a model or a remote service (the deepagents
agents, the Claude API on a PostgreSQL server) are left out."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Dict, List

from scratchpad import Scratchpad

README = Path(__file__).resolve().parents[3] / "README.md"


def python_examples() -> List[str]:
    blocks = re.findall(r"^```python\n(.*?)^```$", README.read_text(encoding="utf-8"), re.S | re.M)
    # Those that run on their own (or on what the ones before them defined): not the agents.
    needs_more = ("create_deep_agent", "Middleware", "anthropic.Anthropic(")
    return [b for b in blocks if not any(word in b for word in needs_more)]


def test_the_readme_python_examples_run_twice_in_a_row(tmp_path: Path) -> None:
    blocks = python_examples()
    assert len(blocks) >= 3, f"the README's Python examples moved: {len(blocks)} found"
    store = f"sqlite://{tmp_path}/pad.db"
    # A session that has had entries: automatic names are past their first number.
    earlier = Scratchpad(store, session="agent-7")
    earlier.offload_result("run_tests", "".join(f"earlier {i}\n" for i in range(5_000)))
    earlier.write("plan", "an earlier plan")
    for round in (1, 2):
        namespace: Dict[str, object] = {}
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            for block in blocks:
                exec(compile(block.replace("sqlite:///tmp/pad.db", store), str(README), "exec"), namespace)
        out = printed.getvalue()
        # What the comments promise, every time.
        assert "[(2500, 'ERROR disk full')]" in out, f"round {round}:\n{out}"
        assert "line: ERROR disk full" in out, f"round {round}:\n{out}"
        assert re.search(r"failing_run_\d+", out), f"round {round}:\n{out}"
        assert "no entry named `plna`" in out, f"round {round}:\n{out}"
