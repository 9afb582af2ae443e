"""Types of the native module; see the package's ``__init__`` for the public names."""

import os
from datetime import timedelta
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

__version__: str
DEFAULT_SESSION: str

Ttl = Union[str, int, float, timedelta]
DiffTarget = Union[str, Tuple[str, int]]
Count = Union[bool, int]
Span = Union[Tuple[int, Optional[int]], int]
Json = Any

def escape(text: str) -> str:
    """Escapes ``text`` so that a grep matches it literally."""

class EntryInfo:
    """Everything known about an entry except its content. Times are Unix milliseconds."""

    @property
    def session(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str:
        """``text``, ``json`` or ``binary``."""
    @property
    def bytes(self) -> int: ...
    @property
    def chars(self) -> int: ...
    @property
    def lines(self) -> int: ...
    @property
    def hash(self) -> str: ...
    @property
    def preview(self) -> str: ...
    @property
    def tool(self) -> Optional[str]: ...
    @property
    def server(self) -> Optional[str]: ...
    @property
    def args_digest(self) -> Optional[str]: ...
    @property
    def meta(self) -> Json: ...
    @property
    def turn(self) -> Optional[str]: ...
    @property
    def created_at(self) -> int: ...
    @property
    def updated_at(self) -> int: ...
    @property
    def accessed_at(self) -> int: ...
    @property
    def expires_at(self) -> Optional[int]: ...
    @property
    def pinned(self) -> bool: ...
    @property
    def version(self) -> int: ...
    @property
    def mime(self) -> Optional[str]: ...
    @property
    def tokens_est(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class GrepLine:
    """One line of grep output: a match, or context around one."""

    @property
    def number(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def matched(self) -> bool: ...

class ReadReply:
    """What a read returned; ``str(reply)`` renders it with its header and continuation."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def location(self) -> str:
        """Which part of the entry this covers, e.g. "lines 100–120 of 5,000"."""
    @property
    def truncated(self) -> bool: ...
    @property
    def continuation(self) -> Optional[Dict[str, Any]]:
        """The next read when cut: ``pad.read(reply.name, **reply.continuation)``."""
    @property
    def version(self) -> Optional[int]:
        """The version read, when it was not the current one."""
    @property
    def notes(self) -> List[str]: ...
    @property
    def first_line(self) -> Optional[int]: ...
    @property
    def total_matches(self) -> Optional[int]: ...
    @property
    def shown_matches(self) -> Optional[int]: ...
    @property
    def grep_lines(self) -> List[GrepLine]: ...
    @property
    def numbered_text(self) -> str: ...

class Page:
    """One page of a listing, newest first."""

    @property
    def entries(self) -> List[EntryInfo]: ...
    @property
    def next_cursor(self) -> Optional[str]: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[EntryInfo]: ...

class SearchHit:
    @property
    def entry(self) -> EntryInfo: ...
    @property
    def snippet(self) -> str: ...

class Stats:
    @property
    def session(self) -> str: ...
    @property
    def entries(self) -> int: ...
    @property
    def pinned(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def tokens_est(self) -> int: ...
    @property
    def tokens_kept_out(self) -> int: ...
    @property
    def store_bytes(self) -> int: ...
    @property
    def quota_bytes(self) -> Optional[int]: ...

class EditResult:
    @property
    def entry(self) -> EntryInfo: ...
    @property
    def replacements(self) -> int: ...

class OffloadResult:
    @property
    def shown(self) -> str:
        """The content when small enough, else the reference the MCP server would show."""
    @property
    def stored(self) -> bool: ...
    @property
    def entry(self) -> Optional[EntryInfo]: ...

class Scratchpad:
    """One store seen from one session. Safe to share between threads."""

    def __init__(
        self,
        store: Optional[str] = None,
        *,
        session: Optional[str] = None,
        config: Optional[Union[str, os.PathLike[str]]] = None,
        threshold: Optional[int] = None,
        author: Optional[str] = None,
    ) -> None: ...
    @property
    def session(self) -> str: ...
    @property
    def threshold(self) -> int: ...
    @property
    def offload_ttl(self) -> str: ...
    @property
    def author(self) -> Optional[str]:
        """Who changes made through this object are recorded as."""
    def with_session(self, session: str) -> Scratchpad: ...
    def with_author(self, author: str) -> Scratchpad: ...
    def offload(
        self,
        tool: str,
        content: Union[str, bytes, bytearray, Json],
        *,
        name: Optional[str] = None,
        metadata: Optional[Dict[str, Any]] = None,
        args: Optional[Json] = None,
        server: Optional[str] = None,
        is_error: bool = False,
    ) -> str: ...
    def offload_result(
        self,
        tool: str,
        content: Union[str, bytes, bytearray, Json],
        *,
        name: Optional[str] = None,
        metadata: Optional[Dict[str, Any]] = None,
        args: Optional[Json] = None,
        server: Optional[str] = None,
        is_error: bool = False,
    ) -> OffloadResult: ...
    def put(
        self,
        content: Union[str, bytes, bytearray, os.PathLike[str]],
        *,
        name: Optional[str] = None,
        tool: Optional[str] = None,
        meta: Optional[Json] = None,
        turn: Optional[str] = None,
        ttl: Optional[Ttl] = None,
        pinned: bool = False,
        if_version: Optional[int] = None,
        lease: Optional[int] = None,
    ) -> EntryInfo: ...
    def read(
        self,
        name: str,
        *,
        head: Optional[Count] = None,
        tail: Optional[Count] = None,
        range: Optional[Span] = None,
        lines: Optional[Span] = None,
        grep: Optional[str] = None,
        context: Optional[int] = None,
        max_matches: Optional[int] = None,
        ignore_case: bool = False,
        from_line: Optional[int] = None,
        json: Optional[str] = None,
        bytes: Optional[Span] = None,
        full: bool = False,
        force: bool = False,
        summary: Optional[Count] = None,
        budget: Optional[int] = None,
        version: Optional[int] = None,
    ) -> ReadReply: ...
    def get(self, name: str) -> EntryInfo: ...
    def content(self, name: str) -> bytes: ...
    def write(
        self,
        name: str,
        text: str,
        *,
        if_version: Optional[int] = None,
        ttl: Optional[Ttl] = None,
        pinned: Optional[bool] = None,
        turn: Optional[str] = None,
        meta: Optional[Json] = None,
        lease: Optional[int] = None,
    ) -> EntryInfo: ...
    def append(
        self,
        name: str,
        text: str,
        *,
        if_version: Optional[int] = None,
        ttl: Optional[Ttl] = None,
        pinned: Optional[bool] = None,
        turn: Optional[str] = None,
        meta: Optional[Json] = None,
        lease: Optional[int] = None,
    ) -> EntryInfo: ...
    def edit(
        self,
        name: str,
        *,
        old: str,
        new: str,
        replace_all: bool = False,
        if_version: Optional[int] = None,
        lease: Optional[int] = None,
    ) -> EditResult: ...
    def insert(
        self,
        name: str,
        after_line: int,
        text: str,
        *,
        if_version: Optional[int] = None,
        lease: Optional[int] = None,
    ) -> EntryInfo:
        """Inserts ``text`` as whole lines after line ``after_line`` (0: before the first line)."""
    def rename(
        self, name: str, new_name: str, *, if_version: Optional[int] = None, lease: Optional[int] = None
    ) -> EntryInfo: ...
    def delete(
        self,
        name: str,
        *,
        purge: bool = False,
        if_version: Optional[int] = None,
        lease: Optional[int] = None,
    ) -> Removal:
        """Removes an entry; a note stays restorable for the retention period, unless ``purge``."""
    def removed(self, limit: int = 50) -> List[RemovedEntry]:
        """The session's removed notes whose versions are kept, most recently removed first."""
    def removed_history(self, name: str) -> RemovedHistory:
        """A removed note's versions, newest first, with who removed it and when."""
    def restore_removed(
        self,
        name: str,
        *,
        version: Optional[int] = None,
        new_name: Optional[str] = None,
        lease: Optional[int] = None,
    ) -> EntryInfo:
        """Brings back a removed note with its versions; a name in use again needs ``new_name``."""
    def pin(
        self, name: str, *, if_version: Optional[int] = None, lease: Optional[int] = None
    ) -> EntryInfo: ...
    def unpin(
        self, name: str, *, if_version: Optional[int] = None, lease: Optional[int] = None
    ) -> EntryInfo: ...
    def set_ttl(
        self, name: str, ttl: Ttl, *, if_version: Optional[int] = None, lease: Optional[int] = None
    ) -> EntryInfo: ...
    def resolve(self, text: str) -> str: ...
    def list(
        self,
        *,
        kind: Optional[str] = None,
        prefix: Optional[str] = None,
        tool: Optional[str] = None,
        pinned: Optional[bool] = None,
        turn: Optional[str] = None,
        cursor: Optional[str] = None,
        limit: int = 50,
    ) -> Page: ...
    def search(self, query: str, *, limit: int = 10) -> List[SearchHit]: ...
    def stats(self) -> Stats: ...
    def expire_turn(self, turn: str) -> int: ...
    def history(self, name: str) -> History:
        """The entry's versions, newest first: who wrote each, when, and what the change did."""
    def restore(
        self, name: str, version: int, *, if_version: Optional[int] = None, lease: Optional[int] = None
    ) -> EntryInfo:
        """Makes an older version current again, as a new version."""
    def diff(
        self,
        a: DiffTarget,
        b: DiffTarget,
        *,
        cursor: Optional[str] = None,
        plain: bool = False,
        budget: Optional[int] = None,
        context: Optional[int] = None,
    ) -> Diff:
        """Compares two entries or two versions: each side is a name or ``(name, version)``."""
    def lease(self, name: str) -> Optional[Lease]: ...
    def acquire_lease(self, name: str, holder: str, ttl: Ttl) -> Lease:
        """Claims ``name``; pass ``lease=result.token`` to the writes it guards."""
    def renew_lease(self, name: str, token: int, ttl: Ttl, *, holder: Optional[str] = None) -> Lease:
        """Only the holder (``holder``, by default this object's author) may renew its claim."""
    def release_lease(self, name: str, token: int, *, holder: Optional[str] = None) -> Lease:
        """Only the holder (``holder``, by default this object's author) may release its claim;
        writes carrying ``token`` are refused from then on."""
    def check(self) -> CheckReport:
        """Reads every content of the store back and verifies it."""

class Version:
    """One version of an entry. Times are Unix milliseconds."""

    @property
    def version(self) -> int: ...
    @property
    def written_at(self) -> int: ...
    @property
    def author(self) -> Optional[str]: ...
    @property
    def kind(self) -> str: ...
    @property
    def bytes(self) -> int: ...
    @property
    def chars(self) -> int: ...
    @property
    def lines(self) -> int: ...
    @property
    def hash(self) -> str: ...
    @property
    def summary(self) -> Optional[str]:
        """What the change did, in one line: ``+3 −1 lines``, ``restored version 2``."""

class Removal:
    """What removing an entry did: versions kept (and until when, Unix ms) or deleted for good."""

    @property
    def name(self) -> str: ...
    @property
    def id(self) -> Optional[str]: ...
    @property
    def kept_versions(self) -> Optional[int]: ...
    @property
    def kept_until(self) -> Optional[int]: ...
    @property
    def versions_deleted(self) -> int: ...
    @property
    def bytes_freed(self) -> int: ...
    @property
    def message(self) -> str:
        """The one-line reply, with the calls that restore or purge it."""

class RemovedEntry:
    """A removed note whose versions are kept. Times are Unix milliseconds."""

    @property
    def name(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def versions(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def removed_at(self) -> int: ...
    @property
    def removed_by(self) -> Optional[str]: ...
    @property
    def keep_until(self) -> Optional[int]: ...

class RemovedHistory:
    """A removed note and its versions, newest first. Iterate it for them."""

    @property
    def removed(self) -> RemovedEntry: ...
    @property
    def versions(self) -> List[Version]: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Version]: ...

class History:
    """An entry's versions, newest first. Iterate it for them."""

    @property
    def entry(self) -> EntryInfo: ...
    @property
    def versions(self) -> List[Version]: ...
    @property
    def keeps_history(self) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Version]: ...

class DiffSide:
    @property
    def name(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def current(self) -> bool: ...
    @property
    def kind(self) -> str: ...
    @property
    def bytes(self) -> int: ...
    @property
    def lines(self) -> int: ...
    @property
    def author(self) -> Optional[str]: ...
    @property
    def written_at(self) -> int: ...

class Diff:
    """A unified line diff; ``str()`` renders it with the call that continues a cut one."""

    @property
    def a(self) -> DiffSide: ...
    @property
    def b(self) -> DiffSide: ...
    @property
    def text(self) -> str: ...
    @property
    def identical(self) -> bool: ...
    @property
    def normalized_json(self) -> bool: ...
    @property
    def added(self) -> int: ...
    @property
    def removed(self) -> int: ...
    @property
    def hunks(self) -> int: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def continuation(self) -> Optional[str]:
        """When cut, the ``cursor`` of the next ``diff`` call."""
    @property
    def notes(self) -> List[str]: ...
    @property
    def summary(self) -> str: ...

class Lease:
    """A lease on a name. Times are Unix milliseconds by the store's clock."""

    @property
    def name(self) -> str: ...
    @property
    def holder(self) -> Optional[str]: ...
    @property
    def token(self) -> int: ...
    @property
    def acquired_at(self) -> int: ...
    @property
    def expires_at(self) -> int: ...
    @property
    def released_at(self) -> Optional[int]:
        """When its holder released it; ``None`` while it is claimed."""
    @property
    def state(self) -> str:
        """``held``, ``expired`` or ``released``."""
    @property
    def remaining(self) -> float:
        """Seconds left by the store's clock."""

class CheckProblem:
    @property
    def what(self) -> str: ...
    @property
    def entries(self) -> List[Tuple[str, str]]: ...

class CheckReport:
    @property
    def blobs(self) -> int: ...
    @property
    def chunks(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def chunks_without_checksum(self) -> int: ...
    @property
    def problems(self) -> List[CheckProblem]: ...
    @property
    def unreferenced_files(self) -> int: ...
    @property
    def unreferenced_bytes(self) -> int: ...
    @property
    def ok(self) -> bool: ...
