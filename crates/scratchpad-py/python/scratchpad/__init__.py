"""The scratchpad for LLM agents, in-process: store whole tool outputs, show previews, read slices,
keep notes, in the same store the ``scratchpad`` CLI and MCP server use.

>>> from scratchpad import Scratchpad
>>> pad = Scratchpad("sqlite:///tmp/pad.db", session="agent-7")  # doctest: +SKIP
>>> shown = pad.offload("run_tests", big_text)  # doctest: +SKIP
>>> pad.read("run_tests_1", grep="ERROR", context=2)  # doctest: +SKIP
"""

from ._scratchpad import (
    DEFAULT_SESSION,
    EditResult,
    EntryInfo,
    GrepLine,
    OffloadResult,
    Page,
    ReadReply,
    Scratchpad,
    SearchHit,
    Stats,
    __version__,
    escape,
)
from .errors import (
    Conflict,
    ConfigError,
    InvalidArgument,
    InvalidName,
    IoError,
    NotFound,
    Raced,
    ScratchpadError,
    Stopped,
    StorageError,
    TooLarge,
    WrongKind,
)
from .tools import offloads

__all__ = [
    "DEFAULT_SESSION",
    "Conflict",
    "ConfigError",
    "EditResult",
    "EntryInfo",
    "GrepLine",
    "InvalidArgument",
    "InvalidName",
    "IoError",
    "NotFound",
    "OffloadResult",
    "Page",
    "Raced",
    "ReadReply",
    "Scratchpad",
    "ScratchpadError",
    "SearchHit",
    "Stats",
    "Stopped",
    "StorageError",
    "TooLarge",
    "WrongKind",
    "__version__",
    "escape",
    "offloads",
]
