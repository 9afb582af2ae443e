"""`offloads`: plain functions, async functions, and LangChain tools."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

from langchain_core.tools import BaseTool, tool

from conftest import log_with_errors
from scratchpad import Scratchpad, offloads


def test_plain_function_returns_small_values_as_they_are_and_large_as_references(pad: Scratchpad) -> None:
    @offloads(pad)
    def fetch(lines: int) -> str:
        """Fetches a log."""
        return log_with_errors(lines, [lines])

    assert fetch.__name__ == "fetch" and fetch.__doc__ == "Fetches a log."
    assert fetch(3) == log_with_errors(3, [3])
    reference = json.loads(fetch(10_000))
    assert reference["scratchpad"] == "fetch_1" and reference["lines"] == 10_000
    assert pad.read("fetch_1", grep="ERROR").grep_lines[0].number == 10_000


def test_values_that_are_not_text_or_json_pass_through(pad: Scratchpad) -> None:
    marker = object()

    @offloads(pad, tool="listing")
    def listing(big: bool) -> Any:
        return [{"id": i} for i in range(5_000)] if big else marker

    assert listing(False) is marker
    reference = json.loads(listing(True))
    assert reference["scratchpad"] == "listing_1" and reference["kind"] == "json"


def test_async_function(pad: Scratchpad) -> None:
    @offloads(pad)
    async def crawl(pages: int) -> Dict[str, List[str]]:
        await asyncio.sleep(0)
        return {"pages": [f"page {i} " * 20 for i in range(pages)]}

    assert asyncio.run(crawl(1)) == {"pages": ["page 0 " * 20]}
    assert json.loads(asyncio.run(crawl(500)))["scratchpad"] == "crawl_1"


def test_langchain_tool_stacked_on_top_keeps_name_schema_and_description(pad: Scratchpad) -> None:
    @tool
    @offloads(pad)
    def run_tests(suite: str) -> str:
        """Runs a test suite and returns its output."""
        return log_with_errors(20_000, [12_345])

    assert isinstance(run_tests, BaseTool)
    assert run_tests.name == "run_tests"
    assert run_tests.description.startswith("Runs a test suite")
    assert list(run_tests.args) == ["suite"]
    reference = json.loads(run_tests.invoke({"suite": "unit"}))
    assert reference["scratchpad"] == "run_tests_1"
    assert "12345: 2026-01-01T00:00:00Z ERROR disk full" in reference["preview"]

    @tool
    @offloads(pad)
    async def fetch_page(url: str) -> str:
        """Fetches a page."""
        return "<html>" + "x" * 10_000 + "</html>"

    reference = json.loads(asyncio.run(fetch_page.ainvoke({"url": "https://example.org"})))
    assert reference["scratchpad"].startswith("fetch_page_")
