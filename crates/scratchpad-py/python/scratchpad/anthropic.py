"""The Claude memory tool (``memory_20250818``) with its files kept in the scratchpad.

Agents built on the Claude API keep memory with the client-side memory tool: ``view``, ``create``,
``str_replace``, ``insert``, ``delete`` and ``rename`` under ``/memories``. :class:`ScratchpadMemoryTool`
answers every command with the texts and errors of the SDK's own ``BetaLocalFilesystemMemoryTool``
(the strings models are trained on), and keeps the files as scratchpad notes: every change is a
version with its author, so ``history``, ``diff``, ``restore`` and leases work on memory files, and
agents on several machines share one memory through a PostgreSQL store::

    import anthropic
    from scratchpad import Scratchpad
    from scratchpad.anthropic import ScratchpadMemoryTool

    memory = ScratchpadMemoryTool(Scratchpad(session="support-bot").with_author("agent-a"))
    runner = anthropic.Anthropic().beta.messages.tool_runner(
        model="claude-sonnet-4-5", max_tokens=1024, tools=[memory], messages=[...]
    )

The file ``/memories/a/b.md`` is the note ``memories--a--b.md`` (the path below ``/memories``, its
segments joined by ``--``). A path that does not fit the note naming rule (characters other than
``A-Za-z0-9._-``, a segment with ``--``, more than 128 characters) is the note
``memories--<readable part>-<digest>`` with the path in its metadata. Directories are not stored:
one exists while a file lies below it, so deleting the last file of a directory removes it too.

``str_replace`` and ``insert`` are compare-and-swap on the version they read: when another writer
changed the file in between, the command reads it again and is applied to the new content (or
answers with the error the new content calls for), so two agents never lose each other's writes.
``create`` succeeds for exactly one of two agents creating the same file.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import time
from typing import Dict, Iterator, List, Optional, Tuple

try:
    from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
    from anthropic.types.beta import (
        BetaCacheControlEphemeralParam,
        BetaMemoryTool20250818CreateCommand,
        BetaMemoryTool20250818DeleteCommand,
        BetaMemoryTool20250818InsertCommand,
        BetaMemoryTool20250818RenameCommand,
        BetaMemoryTool20250818StrReplaceCommand,
        BetaMemoryTool20250818ViewCommand,
    )
except ImportError as missing:  # pragma: no cover - the message is the point
    raise ImportError(
        "scratchpad.anthropic needs the anthropic package: pip install 'scratchpad[anthropic]'"
    ) from missing

from ._scratchpad import EntryInfo, Scratchpad
from .errors import Conflict, NotFound

__all__ = ["ScratchpadMemoryTool", "note_name", "ROOT"]

#: Where the memory tool's files live, as the model names them.
ROOT = "/memories"
#: What every memory note's name starts with.
NAME_PREFIX = "memories--"
#: What joins the segments of a path in a note's name.
SEPARATOR = "--"
#: What the SDK's file backend shows as a directory's size (a directory on ext4 is 4,096 bytes).
DIRECTORY_SIZE = "4K"
#: The longest file the SDK views (lines).
MAX_LINES = 999999
LINE_NUMBER_WIDTH = len(str(MAX_LINES))
#: How often a compare-and-swap is tried again when another writer got in first.
RETRIES = 64
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_PAGE = 500


def _path_of_name(name: str) -> str:
    return ROOT + "/" + name[len(NAME_PREFIX) :].replace(SEPARATOR, "/")


def note_name(path: str) -> str:
    """The note that holds the memory file at ``path`` (a normalized ``/memories/...`` path)."""
    name = NAME_PREFIX + path[len(ROOT) + 1 :].replace("/", SEPARATOR)
    if _NAME.match(name) and ".." not in name and _path_of_name(name) == path:
        return name
    rest = path[len(ROOT) + 1 :]
    stem = re.sub(r"[^A-Za-z0-9._]+", "_", rest).replace("..", "_").strip("._")[:80] or "file"
    digest = hashlib.sha256(path.encode("utf-8")).hexdigest()[:12]
    return f"{NAME_PREFIX}{stem}-{digest}"


def _path_of(info: EntryInfo) -> str:
    meta = info.meta
    if isinstance(meta, dict) and isinstance(meta.get("memory_path"), str):
        return str(meta["memory_path"])
    return _path_of_name(info.name)


def _format_file_size(bytes_size: int) -> str:
    # The SDK's own rendering, so that sizes read the same.
    if bytes_size == 0:
        return "0B"
    k = 1024
    sizes = ["B", "K", "M", "G"]
    i = min(int(bytes_size.bit_length() - 1) // 10, len(sizes) - 1)
    size = bytes_size / (k**i)
    if size == int(size):
        return f"{int(size)}{sizes[i]}"
    return f"{size:.1f}{sizes[i]}"


def _split_lines_keeping_cr(content: str) -> List[str]:
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _engine_insert(content: str, after_line: int, text: str) -> str:
    """What :meth:`Scratchpad.insert` makes of ``content``."""
    at = 0
    for _ in range(after_line):
        newline = content.find("\n", at)
        if newline == -1:
            at = len(content)
            break
        at = newline + 1
    head = content[:at]
    if at == len(content) and content and not content.endswith("\n"):
        head += "\n"
    return head + text + ("" if text.endswith("\n") else "\n") + content[at:]


class ScratchpadMemoryTool(BetaAbstractMemoryTool):
    """The anthropic SDK's memory tool over one scratchpad session."""

    def __init__(
        self,
        pad: Optional[Scratchpad] = None,
        *,
        author: Optional[str] = None,
        cache_control: Optional[BetaCacheControlEphemeralParam] = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        pad = pad if pad is not None else Scratchpad()
        #: The scratchpad the memory lives in; its author is recorded on every change.
        self.pad = pad.with_author(author) if author is not None else pad

    # --- paths --------------------------------------------------------------------------------

    def _validate_path(self, path: str) -> str:
        """``path`` normalized as the SDK's file backend resolves it, or its error."""
        if not path.startswith(ROOT):
            raise ToolError(f"Path must start with /memories, got: {path}")
        relative = path[len(ROOT) :].lstrip("/")
        full = posixpath.normpath(ROOT + "/" + relative) if relative else ROOT
        if full != ROOT and not full.startswith(ROOT + "/"):
            raise ToolError(f"Path {path} would escape /memories directory")
        return full

    def _entries(self) -> Iterator[EntryInfo]:
        cursor: Optional[str] = None
        while True:
            page = self.pad.list(prefix=NAME_PREFIX, cursor=cursor, limit=_PAGE)
            yield from page
            cursor = page.next_cursor
            if cursor is None:
                return

    def _files(self) -> Dict[str, EntryInfo]:
        return {_path_of(info): info for info in self._entries()}

    def _file(self, path: str) -> Optional[EntryInfo]:
        try:
            info = self.pad.get(note_name(path))
        except NotFound:
            return None
        return info if _path_of(info) == path else None

    def _is_dir(self, path: str) -> bool:
        if path == ROOT:
            return True
        prefix = path + "/"
        return any(file.startswith(prefix) for file in self._files())

    def _read(self, name: str) -> Tuple[str, int]:
        """A note's text and a version no newer than it: a compare-and-swap on that version fails
        whenever the text read is not the current one."""
        version = self.pad.get(name).version
        return self.pad.content(name).decode("utf-8"), version

    def _text_file(self, path: str, full: str) -> str:
        """The note of the file at ``full``, with the SDK's errors for what is not a file."""
        info = self._file(full)
        if info is not None:
            return info.name
        if self._is_dir(full):
            raise ToolError(f"The path {path} is not a file.")
        raise ToolError(f"The path {path} does not exist. Please provide a valid path.")

    def _write_meta(self, path: str, name: str) -> Optional[Dict[str, str]]:
        return None if name == NAME_PREFIX + path[len(ROOT) + 1 :].replace("/", SEPARATOR) else {"memory_path": path}

    # --- commands -----------------------------------------------------------------------------

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        full = self._validate_path(command.path)
        info = self._file(full) if full != ROOT else None
        if info is not None:
            try:
                content = self.pad.content(info.name).decode("utf-8")
            except NotFound as err:
                raise ToolError(
                    f"The file {command.path} no longer exists (may have been deleted or renamed concurrently)."
                ) from err
            lines = content.split("\n")
            if len(lines) > MAX_LINES:
                raise ToolError(f"File {command.path} exceeds maximum line limit of 999,999 lines.")
            shown = lines
            start = 1
            view_range = command.view_range
            if view_range and len(view_range) == 2:
                first = max(1, view_range[0]) - 1
                end = len(lines) if view_range[1] == -1 else view_range[1]
                shown = lines[first:end]
                start = first + 1
            numbered = [f"{str(i + start).rjust(LINE_NUMBER_WIDTH)}\t{line}" for i, line in enumerate(shown)]
            return f"Here's the content of {command.path} with line numbers:\n" + "\n".join(numbered)
        files = self._files()
        prefix = "" if full == ROOT else full[len(ROOT) + 1 :] + "/"
        below = {path[len(ROOT) + 1 + len(prefix) :]: info for path, info in files.items() if path.startswith(ROOT + "/" + prefix)}
        if full != ROOT and not below:
            raise ToolError(f"The path {command.path} does not exist. Please provide a valid path.")
        items: List[Tuple[str, str]] = []

        def collect(tree: Dict[str, EntryInfo], relative: str, depth: int) -> None:
            children: Dict[str, Dict[str, EntryInfo]] = {}
            files_here: Dict[str, EntryInfo] = {}
            for rest, info in tree.items():
                head, _, tail = rest.partition("/")
                if tail:
                    children.setdefault(head, {})[tail] = info
                else:
                    files_here[head] = info
            for child in sorted(set(children) | set(files_here)):
                if child.startswith("."):
                    continue
                child_relative = f"{relative}/{child}" if relative else child
                if child in files_here:
                    items.append((_format_file_size(files_here[child].bytes), child_relative))
                else:
                    items.append((DIRECTORY_SIZE, f"{child_relative}/"))
                    if depth < 2:
                        collect(children[child], child_relative, depth + 1)

        collect(below, "", 1)
        header = f"Here're the files and directories up to 2 levels deep in {command.path}, excluding hidden items:"
        lines = [f"{DIRECTORY_SIZE}\t{command.path}"]
        lines.extend(f"{size}\t{command.path}/{path}" for size, path in items)
        return f"{header}\n" + "\n".join(lines)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        full = self._validate_path(command.path)
        if full == ROOT or self._is_dir(full):
            raise ToolError(f"File {command.path} already exists")
        parent = posixpath.dirname(full)
        while parent != ROOT:
            if self._file(parent) is not None:
                raise ToolError(f"The path {parent} is a file, so {command.path} cannot be created below it.")
            parent = posixpath.dirname(parent)
        name = note_name(full)
        try:
            # Version 0 is the note before it exists: of two agents creating one file, one wins.
            self.pad.write(name, command.file_text, if_version=0, meta=self._write_meta(full, name))
        except Conflict as err:
            raise ToolError(f"File {command.path} already exists") from err
        return f"File created successfully at: {command.path}"

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        full = self._validate_path(command.path)
        name = self._text_file(command.path, full)
        old, new = command.old_str, command.new_str
        for attempt in range(RETRIES):
            try:
                content, version = self._read(name)
            except NotFound as err:
                raise ToolError(f"The path {command.path} does not exist. Please provide a valid path.") from err
            count = content.count(old)
            if count == 0:
                raise ToolError(
                    f"No replacement was performed, old_str `{old}` did not appear verbatim in {command.path}."
                )
            if count > 1:
                matching: List[int] = []
                start = 0
                while True:
                    pos = content.find(old, start)
                    if pos == -1:
                        break
                    matching.append(content[:pos].count("\n") + 1)
                    start = pos + 1
                raise ToolError(
                    f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines: "
                    f"{', '.join(map(str, matching))}. Please ensure it is unique"
                )
            changed_line_index = content[: content.find(old)].count("\n")
            new_content = content.replace(old, new)
            try:
                if old:
                    self.pad.edit(name, old=old, new=new, if_version=version)
                else:  # only an empty file holds the empty text exactly once
                    self.pad.write(name, new_content, if_version=version)
            except (Conflict, NotFound):
                _pause(attempt)
                continue
            new_lines = new_content.split("\n")
            context_start = max(0, changed_line_index - 2)
            context_end = min(len(new_lines), changed_line_index + 3)
            snippet = [
                f"{str(number).rjust(LINE_NUMBER_WIDTH)}\t{new_lines[number - 1]}"
                for number in range(context_start + 1, context_end + 1)
            ]
            return "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n" + "\n".join(
                snippet
            )
        raise ToolError(f"The file {command.path} kept changing under this edit; view it and try again.")

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        full = self._validate_path(command.path)
        name = self._text_file(command.path, full)
        text = command.insert_text.rstrip("\n")
        for attempt in range(RETRIES):
            try:
                content, version = self._read(name)
            except NotFound as err:
                raise ToolError(f"The path {command.path} does not exist. Please provide a valid path.") from err
            lines = _split_lines_keeping_cr(content)
            if command.insert_line < 0 or command.insert_line > len(lines):
                raise ToolError(
                    f"Invalid `insert_line` parameter: {command.insert_line}. "
                    f"It should be within the range [0, {len(lines)}]."
                )
            lines.insert(command.insert_line, text)
            new_content = "\n".join(lines)
            if not new_content.endswith("\n"):
                new_content += "\n"
            try:
                if _engine_insert(content, command.insert_line, text + "\n") == new_content:
                    self.pad.insert(name, command.insert_line, text + "\n", if_version=version)
                else:
                    # The SDK also ends the file with a line break, or drops a last empty line:
                    # the same result, written whole, still only on the version read.
                    self.pad.write(name, new_content, if_version=version)
            except (Conflict, NotFound):
                _pause(attempt)
                continue
            return f"The file {command.path} has been edited."
        raise ToolError(f"The file {command.path} kept changing under this edit; view it and try again.")

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        full = self._validate_path(command.path)
        if full == ROOT:
            raise ToolError("Cannot delete the /memories directory itself")
        info = self._file(full)
        doomed = [info] if info is not None else [i for p, i in self._files().items() if p.startswith(full + "/")]
        if not doomed:
            raise ToolError(f"The path {command.path} does not exist")
        for entry in doomed:
            try:
                self.pad.delete(entry.name)
            except NotFound:
                pass  # deleted by someone else meanwhile: gone either way
        return f"Successfully deleted {command.path}"

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        old_full = self._validate_path(command.old_path)
        new_full = self._validate_path(command.new_path)
        if old_full == ROOT:
            raise ToolError("Cannot rename the /memories directory itself")
        if new_full == ROOT or self._file(new_full) is not None or self._is_dir(new_full):
            raise ToolError(f"The destination {command.new_path} already exists")
        info = self._file(old_full)
        moves = (
            [(info, new_full)]
            if info is not None
            else [(i, new_full + p[len(old_full) :]) for p, i in self._files().items() if p.startswith(old_full + "/")]
        )
        if not moves:
            raise ToolError(f"The path {command.old_path} does not exist")
        for entry, destination in moves:
            self._move(entry, destination, command)
        return f"Successfully renamed {command.old_path} to {command.new_path}"

    def _move(self, entry: EntryInfo, destination: str, command: BetaMemoryTool20250818RenameCommand) -> None:
        new_name = note_name(destination)
        try:
            moved = self.pad.rename(entry.name, new_name)
        except Conflict as err:
            raise ToolError(f"The destination {command.new_path} already exists") from err
        except NotFound as err:
            raise ToolError(f"The path {command.old_path} does not exist") from err
        meta = self._write_meta(destination, new_name)
        if meta is not None or _path_of(moved) != destination:
            # The path lives in the metadata when the name cannot carry it.
            content = self.pad.content(new_name).decode("utf-8")
            self.pad.write(new_name, content, if_version=moved.version, meta=meta if meta is not None else {})

    def clear_all_memory(self) -> str:
        for info in list(self._entries()):
            try:
                self.pad.delete(info.name)
            except NotFound:
                pass
        return "All memory cleared"


def _pause(attempt: int) -> None:
    """A short, growing pause before another compare-and-swap, so that writers in a loop interleave."""
    time.sleep(min(0.001 * (2 ** min(attempt, 6)), 0.05))
