"""The scratchpad for LLM agents, in-process: store whole tool outputs, show previews, read slices,
keep notes, in the same store the ``scratchpad`` CLI and MCP server use.

>>> from scratchpad import Scratchpad
>>> pad = Scratchpad("sqlite:///tmp/pad.db", session="agent-7")  # doctest: +SKIP
>>> shown = pad.offload("run_tests", big_text)  # doctest: +SKIP
>>> pad.read("run_tests_1", grep="ERROR", context=2)  # doctest: +SKIP
"""

from ._scratchpad import (
    DEFAULT_SESSION,
    CheckProblem,
    CheckReport,
    Diff,
    DiffSide,
    EditResult,
    EntryInfo,
    GrepLine,
    History,
    Lease,
    OffloadResult,
    Page,
    ReadReply,
    Scratchpad,
    SearchHit,
    Stats,
    Version,
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
    "CheckProblem",
    "CheckReport",
    "Conflict",
    "ConfigError",
    "Diff",
    "DiffSide",
    "EditResult",
    "EntryInfo",
    "GrepLine",
    "History",
    "InvalidArgument",
    "InvalidName",
    "IoError",
    "Lease",
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
    "Version",
    "WrongKind",
    "__version__",
    "escape",
    "offloads",
]
