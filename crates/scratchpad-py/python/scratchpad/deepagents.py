"""A deepagents backend whose files are scratchpad entries.

deepagents evicts large tool results to its backend (``/large_tool_results/<call id>``) and serves
its ``ls``, ``read_file``, ``grep``, ``glob``, ``write_file`` and ``edit_file`` tools from it. With
:class:`ScratchpadBackend` those results land in the scratchpad store, with its previews, and the
file tools read slices of them, so the agent, the ``scratchpad`` CLI and the MCP server all see the
same entries::

    from deepagents import create_deep_agent
    from scratchpad import Scratchpad
    from scratchpad.deepagents import ScratchpadBackend

    agent = create_deep_agent(model, tools, backend=ScratchpadBackend(Scratchpad(session="agent-7")))

A file ``/a/b`` is the entry ``a--b`` (segments joined by ``--``), and an entry the CLI or the MCP
server made, say ``run_tests_1``, is the file ``/run_tests_1``. A path that does not fit the entry
naming rule gets a readable name with a digest, and the path is kept in the entry's metadata.

``grep`` matches literally, as deepagents' tool promises the model; ``ScratchpadBackend(regex=True)``
makes it a regular expression (Rust regex syntax, like ripgrep) for harnesses that say so in the
tool's description. Every search and slice runs in the engine, never over a copy in Python.

deepagents shows the model its own head-and-tail sample of what it evicts. To show the scratchpad's
preview instead (the lines that look like errors, numbered, from the whole output) and to offload at
the scratchpad's threshold, add :class:`ScratchpadMiddleware` too::

    backend = ScratchpadBackend(pad)
    agent = create_deep_agent(model, tools, backend=backend, middleware=[ScratchpadMiddleware(backend)])
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Dict, Iterator, List, Optional, Tuple, Union

try:
    from deepagents.backends.protocol import (
        BackendProtocol,
        DeleteResult,
        EditResult,
        FileDownloadResponse,
        FileInfo,
        FileUploadResponse,
        GlobResult,
        GrepMatch,
        GrepResult,
        LsResult,
        ReadResult,
        WriteResult,
    )
    from deepagents.backends.utils import InvalidGlobPatternError, compile_grep_include_glob, sanitize_tool_call_id
    from langchain.agents.middleware import AgentMiddleware
    from langchain.agents.middleware.types import ToolCallRequest
    from langchain_core.messages import ToolMessage
    from langgraph.types import Command
except ImportError as missing:  # pragma: no cover - the message is the point
    raise ImportError(
        "scratchpad.deepagents needs the deepagents package (0.7.x): pip install 'deepagents>=0.7,<0.8'"
    ) from missing

from ._scratchpad import EntryInfo, Scratchpad, escape
from .errors import NotFound, ScratchpadError

__all__ = ["ScratchpadBackend", "ScratchpadMiddleware", "entry_name"]

#: What joins the segments of a path in an entry's name.
SEPARATOR = "--"
#: Top-level folders deepagents writes its own evictions to: stored with the offload lifetime.
EVICTION_FOLDERS = ("large_tool_results", "conversation_history")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_PAGE = 500


def _normalize(path: Optional[str]) -> str:
    """``/dir`` for ``dir``, ``/dir/`` or ``/dir``; ``/`` for nothing."""
    path = (path or "/").strip()
    path = "/" + path.strip("/")
    return path


def entry_name(path: str) -> str:
    """The entry that holds the file at ``path``."""
    path = _normalize(path)
    name = path[1:].replace("/", SEPARATOR)
    if _NAME.match(name) and ".." not in name and _path_of_name(name) == path:
        return name
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).replace("..", "_").strip("._-")[:100] or "file"
    digest = hashlib.sha256(path.encode("utf-8")).hexdigest()[:12]
    return f"{stem}-{digest}"


def _path_of_name(name: str) -> str:
    return "/" + name.replace(SEPARATOR, "/")


def _path_of(info: EntryInfo) -> str:
    meta = info.meta
    if isinstance(meta, dict) and isinstance(meta.get("path"), str):
        return str(meta["path"])
    return _path_of_name(info.name)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat()


def _file_info(path: str, info: EntryInfo) -> FileInfo:
    return {"path": path, "is_dir": False, "size": info.bytes, "modified_at": _iso(info.updated_at)}


def _under(files: Dict[str, EntryInfo], root: str) -> Dict[str, EntryInfo]:
    """The file at ``root``, or every file below it."""
    if root in files:
        return {root: files[root]}
    prefix = "/" if root == "/" else root + "/"
    return {path: info for path, info in files.items() if path.startswith(prefix)}


def _relative(path: str, root: str) -> str:
    if root == "/":
        return path[1:]
    if path == root:
        return path.rsplit("/", 1)[-1]
    return path[len(root) + 1 :]


class ScratchpadBackend(BackendProtocol):
    """deepagents' ``BackendProtocol`` over one scratchpad session."""

    def __init__(self, pad: Optional[Scratchpad] = None, *, regex: bool = False) -> None:
        #: The scratchpad the files live in (the CLI's default store and session when not given).
        self.pad = pad if pad is not None else Scratchpad()
        #: Whether ``grep`` patterns are regular expressions (else literal text).
        self.regex = regex

    # --- finding files ------------------------------------------------------------------------

    def _entries(self) -> Iterator[EntryInfo]:
        cursor: Optional[str] = None
        while True:
            page = self.pad.list(cursor=cursor, limit=_PAGE)
            yield from page
            cursor = page.next_cursor
            if cursor is None:
                return

    def _files(self) -> Dict[str, EntryInfo]:
        return {_path_of(info): info for info in self._entries()}

    def _find(self, path: str) -> Optional[EntryInfo]:
        """The entry holding ``path``, if any."""
        try:
            info = self.pad.get(entry_name(path))
        except NotFound:
            return None
        return info if _path_of(info) == _normalize(path) else None

    # --- reading ------------------------------------------------------------------------------

    def ls(self, path: str) -> LsResult:
        root = _normalize(path)
        prefix = "/" if root == "/" else root + "/"
        entries: List[FileInfo] = []
        folders = set()
        try:
            files = self._files()
        except ScratchpadError as err:
            return LsResult(error=str(err))
        for file_path, info in files.items():
            if not file_path.startswith(prefix):
                continue
            rest = file_path[len(prefix) :]
            if "/" in rest:
                folders.add(prefix + rest.split("/", 1)[0] + "/")
            else:
                entries.append(_file_info(file_path, info))
        entries.extend({"path": folder, "is_dir": True, "size": 0, "modified_at": ""} for folder in sorted(folders))
        entries.sort(key=lambda entry: entry.get("path", ""))
        return LsResult(entries=entries)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        offset, limit = max(int(offset), 0), max(int(limit), 0)
        info = self._find(file_path)
        if info is None:
            return ReadResult(error=f"File '{file_path}' not found")
        if info.kind == "binary":
            data = base64.standard_b64encode(self.pad.content(info.name)).decode("ascii")
            return ReadResult(file_data={"content": data, "encoding": "base64"})
        if info.bytes == 0:
            return ReadResult(file_data={"content": "", "encoding": "utf-8"})
        if limit == 0:
            return ReadResult(file_data={"content": "", "encoding": "utf-8"}, no_lines_requested=True)
        if offset >= info.lines:
            return ReadResult(error=f"Line offset {offset} exceeds file length ({info.lines} lines)")
        try:
            reply = self.pad.read(info.name, lines=(offset + 1, offset + limit))
        except ScratchpadError as err:
            return ReadResult(error=str(err))
        shown = reply.text.count("\n")
        if shown == 0 or reply.first_line is None:
            return ReadResult(file_data={"content": reply.text, "encoding": "utf-8"})
        start = reply.first_line
        end = start + shown - 1
        return ReadResult(
            file_data={"content": reply.text, "encoding": "utf-8"},
            total_lines=max(info.lines, end),
            start_line=start,
            end_line=end,
            next_offset=end if end < info.lines else None,
        )

    def grep(
        self,
        pattern: str,
        path: Optional[str] = None,
        glob: Optional[str] = None,
        *,
        max_count: Optional[int] = None,
    ) -> GrepResult:
        root = _normalize(path)
        try:
            files = _under(self._files(), root)
        except ScratchpadError as err:
            return GrepResult(error=str(err))
        if glob:
            try:
                included = compile_grep_include_glob(glob)
            except InvalidGlobPatternError as err:
                return GrepResult(error=str(err))
            files = {p: info for p, info in files.items() if included(_relative(p, root))}
        regex = pattern if self.regex else escape(pattern)
        matches: List[GrepMatch] = []
        truncated = False
        for file_path, info in sorted(files.items()):
            if info.kind == "binary":
                continue
            room = None if max_count is None else max_count - len(matches)
            if room is not None and room <= 0:
                truncated = True
                break
            try:
                reply = self.pad.read(info.name, grep=regex, max_matches=room or 1_000_000)
            except ScratchpadError as err:
                return GrepResult(error=str(err), matches=matches or None)
            matches.extend(
                {"path": file_path, "line": line.number, "text": line.text} for line in reply.grep_lines if line.matched
            )
            truncated = truncated or reply.truncated
        return GrepResult(matches=matches, truncated=truncated)

    def glob(self, pattern: str, path: Optional[str] = None) -> GlobResult:
        root = _normalize(path)
        try:
            included = compile_grep_include_glob(pattern)
        except InvalidGlobPatternError as err:
            return GlobResult(error=str(err))
        try:
            files = _under(self._files(), root)
        except ScratchpadError as err:
            return GlobResult(error=str(err))
        found = [(p, info) for p, info in files.items() if included(_relative(p, root))]
        found.sort(key=lambda item: item[1].updated_at, reverse=True)
        return GlobResult(matches=[_file_info(p, info) for p, info in found])

    # --- writing ------------------------------------------------------------------------------

    def store_file(self, file_path: str, content: Union[str, bytes], *, tool: Optional[str] = None) -> EntryInfo:
        """Stores ``content`` as the file at ``file_path`` and returns its entry. Files under
        ``/large_tool_results/`` and ``/conversation_history/`` live as long as offloads; others are
        notes."""
        path = _normalize(file_path)
        name = entry_name(path)
        evicted = path.split("/")[1] in EVICTION_FOLDERS
        return self.pad.put(
            content,
            name=name,
            tool=tool or (path.split("/")[1] if evicted else None),
            meta={"path": path},
            # Notes keep the configured note lifetime (by default they never expire).
            ttl=self.pad.offload_ttl if evicted else None,
        )

    def write(self, file_path: str, content: str) -> WriteResult:
        try:
            self.store_file(file_path, content)
        except ScratchpadError as err:
            return WriteResult(error=str(err))
        return WriteResult(path=file_path)

    def edit(
        self,
        file_path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,  # noqa: FBT001, FBT002 - deepagents' signature
    ) -> EditResult:
        info = self._find(file_path)
        if info is None:
            return EditResult(error=f"Error: File '{file_path}' not found")
        try:
            outcome = self.pad.edit(info.name, old=old_string, new=new_string, replace_all=replace_all)
        except ScratchpadError as err:
            return EditResult(error=f"Error: {err}")
        return EditResult(path=file_path, occurrences=outcome.replacements)

    def delete(self, file_path: str) -> DeleteResult:
        root = _normalize(file_path)
        try:
            doomed = _under(self._files(), root)
            if not doomed:
                return DeleteResult(error=f"Error: File '{file_path}' not found")
            for info in doomed.values():
                self.pad.delete(info.name)
        except ScratchpadError as err:
            return DeleteResult(error=f"Error: {err}")
        return DeleteResult(path=file_path)

    def upload_files(self, files: List[Tuple[str, bytes]]) -> List[FileUploadResponse]:
        responses = []
        for path, content in files:
            try:
                self.store_file(path, content)
                responses.append(FileUploadResponse(path=path))
            except ScratchpadError as err:
                responses.append(FileUploadResponse(path=path, error=str(err)))
        return responses

    def download_files(self, paths: List[str]) -> List[FileDownloadResponse]:
        responses = []
        for path in paths:
            info = self._find(path)
            if info is None:
                responses.append(FileDownloadResponse(path=path, error="file_not_found"))
                continue
            responses.append(FileDownloadResponse(path=path, content=self.pad.content(info.name)))
        return responses


#: deepagents' own file tools: their results are slices already (deepagents never evicts them either).
FILE_TOOLS = frozenset({"ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep"})

_REFERENCE = """Tool result too large for the context ({bytes:,} bytes, {lines:,} lines): saved whole at {path}.
Read parts with read_file(file_path="{path}", offset=LINE-1, limit=N), or search it with grep(pattern="TEXT", path="{path}", output_mode="content").
Preview (numbers are line numbers in the file):
{preview}"""


class ScratchpadMiddleware(AgentMiddleware):
    """Offloads a tool's large text result into the backend's scratchpad as the tool returns it, and
    gives the model the scratchpad's preview with the file path its file tools read.

    It runs inside deepagents' own filesystem middleware, so deepagents sees a small result and
    evicts nothing itself; the file is where deepagents would have put it
    (``/large_tool_results/<call id>``).
    """

    def __init__(self, backend: ScratchpadBackend) -> None:
        super().__init__()
        self.backend = backend

    def _offload(self, result: Union[ToolMessage, Command[Any]]) -> Union[ToolMessage, Command[Any]]:
        if not isinstance(result, ToolMessage) or result.name in FILE_TOOLS:
            return result
        content = result.content
        if not isinstance(content, str):
            return result
        if len(content.encode("utf-8")) <= self.backend.pad.threshold:
            return result
        path = f"/large_tool_results/{sanitize_tool_call_id(result.tool_call_id)}"
        try:
            info = self.backend.store_file(path, content, tool=result.name)
        except ScratchpadError:
            # Better whole in the context than lost.
            return result
        reference = _REFERENCE.format(bytes=info.bytes, lines=info.lines, path=path, preview=info.preview)
        return result.model_copy(update={"content": reference})

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Union[ToolMessage, Command[Any]]],
    ) -> Union[ToolMessage, Command[Any]]:
        return self._offload(handler(request))

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[Union[ToolMessage, Command[Any]]]],
    ) -> Union[ToolMessage, Command[Any]]:
        result = await handler(request)
        return await asyncio.get_running_loop().run_in_executor(None, self._offload, result)
