//! Random access to one entry's content through the chunk index, so a read costs O(slice).

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::store::{ChunkPos, Locate, Store};

/// A caller's way to say that it no longer wants what it asked for: a flag it sets (an MCP client's
/// `notifications/cancelled`, an HTTP client gone) or a question it answers when asked (an embedding
/// asks its interpreter whether the user pressed Ctrl-C). Asked between pieces of work, on the
/// thread that does the work and on threads that help it, so answering must be cheap.
pub trait Cancel: Sync {
    fn is_cancelled(&self) -> bool;
}

impl Cancel for AtomicBool {
    fn is_cancelled(&self) -> bool {
        self.load(Ordering::Relaxed)
    }
}

/// When work gives up: at a deadline, or when its caller cancels it. Checked before each piece of
/// content is read or stored, so a search that would run long ends within one buffer of its
/// deadline, and a cancelled put leaves nothing behind.
#[derive(Clone, Copy, Default)]
pub struct Stop<'a> {
    deadline: Option<(Instant, Duration)>,
    cancelled: Option<&'a dyn Cancel>,
}

impl std::fmt::Debug for Stop<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stop")
            .field("deadline", &self.deadline)
            .field("cancellable", &self.cancelled.is_some())
            .finish()
    }
}

impl<'a> Stop<'a> {
    /// Stops `after` from now.
    pub fn after(after: Duration) -> Self {
        Self {
            deadline: Instant::now().checked_add(after).map(|at| (at, after)),
            cancelled: None,
        }
    }

    /// Also stops once `cancel` says so.
    pub fn or_when(self, cancel: &'a dyn Cancel) -> Self {
        Self {
            cancelled: Some(cancel),
            ..self
        }
    }

    /// Whether the caller cancelled, whatever the deadline says: for work with a time limit of its
    /// own (a jq query).
    pub(crate) fn check_cancelled(&self) -> Result<()> {
        if self.cancelled.is_some_and(|cancel| cancel.is_cancelled()) {
            return Err(Error::Stopped(
                "cancelled by its caller before it finished".into(),
            ));
        }
        Ok(())
    }

    pub(crate) fn check(&self) -> Result<()> {
        self.check_cancelled()?;
        if let Some((at, after)) = self.deadline
            && Instant::now() >= at
        {
            return Err(Error::Stopped(
                format!(
                    "the read ran longer than {} s, the limit for one read; narrow it: a more \
                     specific pattern, or a line range to search (`from`)",
                    after.as_secs_f64()
                )
                .into(),
            ));
        }
        Ok(())
    }
}

/// One entry's content as the store holds it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EntryContent<'a> {
    pub store: &'a dyn Store,
    /// When reading gives up.
    pub stop: Stop<'a>,
    pub blob: i64,
    pub bytes: u64,
    pub chars: u64,
    /// The last chunk's number; `None` for empty content.
    pub last_seq: Option<u32>,
}

impl<'a> EntryContent<'a> {
    pub fn new(store: &'a dyn Store, entry: &crate::store::Entry) -> Self {
        Self {
            store,
            stop: Stop::default(),
            blob: entry.blob,
            bytes: entry.info.bytes,
            chars: entry.info.chars,
            last_seq: entry.chunks.checked_sub(1),
        }
    }

    fn locate(&self, at: Locate) -> Result<ChunkPos> {
        self.store
            .locate(self.blob, at)?
            .ok_or_else(|| Error::Raced(format!("blob {}", self.blob)))
    }

    /// Characters `start..end` (clamped to the content).
    pub fn chars(&self, start: u64, end: u64) -> Result<String> {
        let end = end.min(self.chars);
        if start >= end {
            return Ok(String::new());
        }
        let pos = self.locate(Locate::Char(start))?;
        let mut out = String::with_capacity(usize::try_from(end - start).unwrap_or(0));
        let mut seq = pos.seq;
        let mut char_at = pos.char_start;
        while char_at < end {
            self.stop.check()?;
            let data = self.store.chunk(self.blob, seq)?;
            let text = as_text(&data);
            let from = char_offset(&text, start.saturating_sub(char_at));
            let to = char_offset(&text[from..], end - char_at.max(start)) + from;
            out.push_str(&text[from..to]);
            if to < text.len() {
                break;
            }
            char_at += crate::preview::text::count_chars(text.as_bytes());
            seq += 1;
        }
        Ok(out)
    }

    /// A reader positioned at the first byte of `line` (1-based); `None` past the last line.
    pub fn reader_at_line(&self, line: u64) -> Result<Option<ChunkReader<'a>>> {
        if line <= 1 {
            return Ok((self.bytes > 0).then(|| ChunkReader::new(*self, 0, 0)));
        }
        let newlines = line - 1;
        let Some(pos) = self
            .store
            .locate(self.blob, Locate::AfterNewlines(newlines))?
        else {
            return Ok(None);
        };
        let data = self.store.chunk(self.blob, pos.seq)?;
        let wanted = usize::try_from(newlines - pos.line_start).unwrap_or(usize::MAX);
        let Some(nl) = memchr::memchr_iter(b'\n', &data).nth(wanted.saturating_sub(1)) else {
            return Ok(None);
        };
        if nl + 1 == data.len() && pos.byte_start + data.len() as u64 == self.bytes {
            // The newline ends the content: there is no line after it.
            return Ok(None);
        }
        let mut reader = ChunkReader::new(*self, pos.seq, 0);
        reader.current = data;
        reader.pos = nl + 1;
        reader.loaded = true;
        Ok(Some(reader))
    }

    /// A reader from the byte offset to the end.
    pub fn reader_at_byte(&self, offset: u64) -> Result<ChunkReader<'a>> {
        if offset >= self.bytes {
            return Ok(ChunkReader::new(*self, u32::MAX, 0));
        }
        let pos = self.locate(Locate::Byte(offset))?;
        Ok(ChunkReader::new(
            *self,
            pos.seq,
            usize::try_from(offset - pos.byte_start).unwrap_or(0),
        ))
    }
}

/// Unwraps an engine error that travelled through `std::io::Read`.
pub(crate) fn from_io(err: std::io::Error) -> Error {
    if err.get_ref().is_some_and(|inner| inner.is::<Error>()) {
        if let Some(inner) = err.into_inner()
            && let Ok(engine) = inner.downcast::<Error>()
        {
            return *engine;
        }
        return Error::Storage("a read failed".into());
    }
    Error::Io(err)
}

/// The byte offset of character `n` of `text`, or its length when it has `n` characters or fewer.
/// Counts the bytes that start a character, a block at a time: a range from the middle of a chunk
/// does not decode the characters before it.
fn char_offset(text: &str, n: u64) -> usize {
    const BLOCK: usize = 64;
    let bytes = text.as_bytes();
    let (mut at, mut seen) = (0, 0u64);
    while at + BLOCK <= bytes.len() {
        let starts = crate::preview::text::count_chars(&bytes[at..at + BLOCK]);
        if seen + starts > n {
            break;
        }
        seen += starts;
        at += BLOCK;
    }
    for (i, &b) in bytes[at..].iter().enumerate() {
        // A byte that does not continue a character starts one.
        if (b as i8) >= -0x40 {
            if seen == n {
                return at + i;
            }
            seen += 1;
        }
    }
    bytes.len()
}

/// A text chunk as readers see it: bytes that are not UTF-8 read as U+FFFD, as they were counted
/// when the entry was stored (chunk by chunk, in the same way).
pub(crate) fn as_text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Chunks a read-ahead thread asks the store for at once (about 128 KiB each, 256 KiB at most, as
/// their content cuts them): one round trip to PostgreSQL per MiB or so.
const READ_AHEAD_BATCH: u32 = 8;
/// Chunks fetched and not yet read that the read-ahead thread waits on before fetching more.
const READ_AHEAD_CHUNKS: usize = 4;
/// A read with fewer chunks left than this fetches them itself: starting a thread would cost more
/// than it saves.
const READ_AHEAD_MIN_CHUNKS: u32 = 4;

/// Streams an entry's chunks from a starting point, fetching one chunk at a time, or ahead on a
/// thread of its own ([`ChunkReader::with_read_ahead`]).
#[derive(Debug)]
pub(crate) struct ChunkReader<'a> {
    content: EntryContent<'a>,
    seq: u32,
    current: Vec<u8>,
    pos: usize,
    loaded: bool,
    done: bool,
    /// The chunks after the current one, in order, when a thread fetches them.
    ahead: Option<Receiver<Result<Vec<u8>>>>,
}

impl<'a> ChunkReader<'a> {
    fn new(content: EntryContent<'a>, seq: u32, pos: usize) -> Self {
        Self {
            content,
            seq,
            current: Vec::new(),
            pos,
            loaded: false,
            done: content.last_seq.is_none_or(|last| seq > last),
            ahead: None,
        }
    }

    /// Runs `read` over this reader with the chunks after the current one fetched by a thread of
    /// their own, a few at a time and [`READ_AHEAD_CHUNKS`] at most waiting: fetching (a side
    /// file's read and checksum, a round trip to PostgreSQL) overlaps the work on what came
    /// before. For a whole scan such as a grep. A short read, or one that cannot start a thread,
    /// fetches as usual.
    pub fn with_read_ahead<R>(mut self, read: impl FnOnce(&mut Self) -> R) -> R {
        let first = if self.loaded {
            self.seq.saturating_add(1)
        } else {
            self.seq
        };
        let Some(last) = self
            .content
            .last_seq
            .filter(|last| !self.done && last.saturating_sub(first) + 1 >= READ_AHEAD_MIN_CHUNKS)
        else {
            return read(&mut self);
        };
        let content = self.content;
        std::thread::scope(|scope| {
            let (sender, receiver) = sync_channel(READ_AHEAD_CHUNKS);
            let fetch = move || {
                let mut from = first;
                while from <= last {
                    let to = from.saturating_add(READ_AHEAD_BATCH - 1).min(last);
                    let batch = content
                        .stop
                        .check()
                        .and_then(|()| content.store.chunks(content.blob, from..=to));
                    let chunks = match batch {
                        Ok(chunks) => chunks,
                        Err(err) => {
                            let _ = sender.send(Err(err));
                            return;
                        }
                    };
                    for chunk in chunks {
                        // A send fails once the reader is gone: it has read all it wanted.
                        if sender.send(Ok(chunk)).is_err() {
                            return;
                        }
                    }
                    match to.checked_add(1) {
                        Some(next) => from = next,
                        None => return,
                    }
                }
            };
            if std::thread::Builder::new()
                .name("read ahead".into())
                .spawn_scoped(scope, fetch)
                .is_ok()
            {
                self.ahead = Some(receiver);
            }
            let out = read(&mut self);
            // Unblocks the thread before the scope waits for it.
            self.ahead = None;
            out
        })
    }

    fn fetch(&mut self) -> Result<Vec<u8>> {
        if let Some(ahead) = &self.ahead
            && let Ok(chunk) = ahead.recv()
        {
            return chunk;
        }
        // The thread ended early (it cannot, short of a panic, which the scope reports).
        self.ahead = None;
        self.content.store.chunk(self.content.blob, self.seq)
    }

    /// Makes sure unread bytes are in `current` unless the content is exhausted.
    fn fill(&mut self) -> Result<()> {
        while !self.done && (!self.loaded || self.pos >= self.current.len()) {
            if self.loaded {
                self.seq += 1;
                self.pos = 0;
                self.loaded = false;
            }
            if self.content.last_seq.is_none_or(|last| self.seq > last) {
                self.done = true;
                break;
            }
            self.current = self.fetch()?;
            self.loaded = true;
        }
        Ok(())
    }
}

impl Read for ChunkReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.content.stop.check().map_err(std::io::Error::other)?;
        self.fill().map_err(std::io::Error::other)?;
        if self.done {
            return Ok(0);
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::char_offset;

    #[test]
    fn char_offsets_agree_with_decoding() {
        let text = "ab é€😀 line\n".repeat(40);
        let chars = text.chars().count() as u64;
        for n in 0..=chars + 3 {
            let expected = text
                .char_indices()
                .nth(n as usize)
                .map_or(text.len(), |(i, _)| i);
            assert_eq!(char_offset(&text, n), expected, "char {n}");
        }
    }
}
