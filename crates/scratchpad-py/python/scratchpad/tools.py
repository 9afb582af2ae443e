"""A decorator that keeps a tool function's large return value out of the context.

>>> from scratchpad import Scratchpad, offloads
>>> pad = Scratchpad("sqlite:///tmp/pad.db")  # doctest: +SKIP
>>> @offloads(pad)  # doctest: +SKIP
... def fetch_logs(job: str) -> str:
...     return run(f"journalctl -u {job}")

Stacked under LangChain's ``@tool`` (``@tool`` on top), the tool keeps its name, arguments and
description: the wrapper has the function's signature and docstring.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from typing import Any, Awaitable, Callable, Optional, TypeVar, cast

from ._scratchpad import Scratchpad

__all__ = ["offloads"]

F = TypeVar("F", bound=Callable[..., Any])


def _offloaded(pad: Scratchpad, tool: str, value: Any) -> Any:
    """The value itself when it is small or cannot be stored, else the reference (a str)."""
    if not isinstance(value, (str, bytes, bytearray, dict, list, tuple)):
        # Messages, commands, iterators...: the harness knows what to do with those.
        return value
    try:
        outcome = pad.offload_result(tool, value)
    except TypeError:
        # A dict or list holding values JSON cannot carry.
        return value
    return outcome.shown if outcome.stored else value


def offloads(
    pad: Scratchpad, *, tool: Optional[str] = None
) -> Callable[[F], F]:
    """Wraps a tool function (sync or async) so that a return value above the pad's threshold is
    stored whole and the function returns the reference (name, sizes, preview, how to read
    slices) instead. Small values, and values that are not text, bytes or JSON, pass through
    unchanged. ``tool`` names the entries (``<tool>_<n>``); it defaults to the function's name.
    """

    def decorate(function: F) -> F:
        name: str = tool if tool is not None else str(getattr(function, "__name__", "tool"))

        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                value = await cast(Callable[..., Awaitable[Any]], function)(*args, **kwargs)
                # The store releases the GIL; a thread keeps the event loop free meanwhile.
                return await asyncio.get_running_loop().run_in_executor(
                    None, _offloaded, pad, name, value
                )

            return cast(F, run_async)

        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            return _offloaded(pad, name, function(*args, **kwargs))

        return cast(F, run)

    return decorate
