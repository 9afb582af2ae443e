//! Streaming ingestion: one pass over the input that cuts chunks, hashes, counts, detects the kind and
//! builds the preview, with memory bounded by a few chunks whatever the input size.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::{ErrorKind, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::{Scope, ScopedJoinHandle};

use crate::error::{Error, Result};
use crate::model::Kind;
use crate::preview::text::count_chars_finding_nul;
use crate::preview::{
    JsonShape, PreviewConfig, TextPreview, TextPreviewBuilder, TextProfile, binary_preview,
    json_shape, sniff_mime,
};
use crate::read::Stop;
use crate::store::{BlobStats, BlobWriter, CHUNK_BYTES, Chunk, PendingBlob, Store};

mod boundary;
/// Bytes kept to sniff a binary type from magic bytes.
const SNIFF_BYTES: usize = 8 * 1024;
/// Text indexed for full-text search: the start and the end of each entry (bytes).
pub(crate) const SEARCH_HEAD_BYTES: usize = 192 * 1024;
pub(crate) const SEARCH_TAIL_BYTES: usize = 64 * 1024;
/// Chunks queued for the JSON shape thread.
const JSON_QUEUE_CHUNKS: usize = 4;
/// Chunks of text queued for the preview thread.
const PREVIEW_QUEUE_CHUNKS: usize = 4;
/// Content with at most one invalid byte in this many (or at most [`TEXT_MAX_INVALID_BYTES`]) is
/// text that is nearly UTF-8 (a Latin-1 name in a log, a cut multi-byte character): it stays text,
/// the bad bytes read as U+FFFD. More, any NUL byte, or the magic bytes of a binary format, and it
/// is binary.
const TEXT_MAX_INVALID_RATIO: u64 = 100;
const TEXT_MAX_INVALID_BYTES: u64 = 4;

/// What one pass over the input produced.
#[derive(Debug)]
pub(crate) struct Ingested {
    pub stats: BlobStats,
    pub kind: Kind,
    pub preview: String,
    pub profile: Option<TextProfile>,
    pub search_text: String,
    pub blob: PendingBlob,
}

/// Reads `input` to the end into a new blob of the store, which keeps small content in memory and
/// writes large content as it arrives. On error, whatever was written is removed. Text that starts
/// with a UTF-16 byte-order mark is stored transcoded to UTF-8.
pub(crate) fn ingest(
    store: &dyn Store,
    input: &mut dyn Read,
    config: &PreviewConfig,
    progress: Option<&mut dyn FnMut(u64)>,
) -> Result<Ingested> {
    ingest_until(store, input, config, progress, Stop::default())
}

/// [`ingest`], giving up as `stop` says (checked before each read of the input); what was written
/// so far is removed then, as on any error.
pub(crate) fn ingest_until(
    store: &dyn Store,
    input: &mut dyn Read,
    config: &PreviewConfig,
    progress: Option<&mut dyn FnMut(u64)>,
    stop: Stop<'_>,
) -> Result<Ingested> {
    let mut start = [0u8; 2];
    let mut got = 0;
    while got < start.len() {
        match input.read(&mut start[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(crate::read::source::from_io(e)),
        }
    }
    let mut whole = std::io::Cursor::new(start[..got].to_vec()).chain(input);
    let utf16 = match &start[..got] {
        [0xFF, 0xFE] => Some(encoding_rs::UTF_16LE),
        [0xFE, 0xFF] => Some(encoding_rs::UTF_16BE),
        _ => None,
    };
    let mut transcoded;
    let input: &mut dyn Read = match utf16 {
        Some(encoding) => {
            transcoded = encoding_rs_io::DecodeReaderBytesBuilder::new()
                .encoding(Some(encoding))
                .build(whole);
            &mut transcoded
        }
        None => &mut whole,
    };
    let writer = store.begin_blob()?;
    std::thread::scope(|scope| {
        let mut pass = Pass::new(writer, config, scope);
        pass.decoded_from = utf16.map(|encoding| encoding.name().to_owned());
        pass.run(input, progress, stop)
    })
}

struct Pass<'a, 'scope, 'env> {
    scope: &'scope Scope<'scope, 'env>,
    config: &'env PreviewConfig,
    /// Where the chunks go; dropped unfinished (on an error), it removes what it wrote.
    writer: Box<dyn BlobWriter + 'a>,
    hasher: blake3::Hasher,
    pending: Vec<u8>,
    filled: usize,
    seq: u32,
    bytes: u64,
    chars: u64,
    newlines: u64,
    /// Bytes that are not valid UTF-8 so far.
    invalid_bytes: u64,
    has_nul: bool,
    decoded_from: Option<String>,
    last_byte: Option<u8>,
    first_bytes: Vec<u8>,
    first_non_ws: Option<u8>,
    text: TextSide<'scope>,
    search_head: Vec<u8>,
    search_tail: VecDeque<u8>,
    json: Option<SyncSender<Vec<u8>>>,
    json_worker: Option<ScopedJoinHandle<'scope, Option<JsonShape>>>,
}

/// Where the text preview is built: here for the first chunk, on a thread of its own from the
/// second on, so that a large input is previewed on one core while it is read, hashed and written
/// on the other.
enum TextSide<'scope> {
    Here(Box<TextPreviewBuilder>),
    Worker {
        pieces: SyncSender<String>,
        done: ScopedJoinHandle<'scope, TextPreview>,
    },
    /// For a moment, while the builder moves to its thread.
    Moving,
}

impl<'a, 'scope, 'env> Pass<'a, 'scope, 'env> {
    fn new(
        writer: Box<dyn BlobWriter + 'a>,
        config: &'env PreviewConfig,
        scope: &'scope Scope<'scope, 'env>,
    ) -> Self {
        Self {
            scope,
            config,
            writer,
            hasher: blake3::Hasher::new(),
            pending: vec![0; CHUNK_BYTES],
            filled: 0,
            seq: 0,
            bytes: 0,
            chars: 0,
            newlines: 0,
            invalid_bytes: 0,
            has_nul: false,
            decoded_from: None,
            last_byte: None,
            first_bytes: Vec::new(),
            first_non_ws: None,
            text: TextSide::Here(Box::new(TextPreviewBuilder::new(config))),
            search_head: Vec::new(),
            search_tail: VecDeque::new(),
            json: None,
            json_worker: None,
        }
    }

    fn run(
        mut self,
        input: &mut dyn Read,
        mut progress: Option<&mut dyn FnMut(u64)>,
        stop: Stop<'_>,
    ) -> Result<Ingested> {
        let mut json_possible = true;
        loop {
            stop.check()?;
            // `pending` stays CHUNK_BYTES long; `filled` marks how much of it holds input.
            let start = self.filled;
            let n = match input.read(&mut self.pending[start..]) {
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                // An entry's own content (an append) fails with the engine's error inside.
                Err(e) => return Err(crate::read::source::from_io(e)),
            };
            self.filled += n;
            if n == 0 {
                break;
            }
            if self.first_non_ws.is_none() {
                self.first_non_ws = self.pending[start..self.filled]
                    .iter()
                    .copied()
                    .find(|b| !b.is_ascii_whitespace());
                if matches!(self.first_non_ws, Some(b'{' | b'[')) {
                    if std::mem::take(&mut json_possible) {
                        let (tx, rx) = sync_channel(JSON_QUEUE_CHUNKS);
                        let budget = self.config.json_chars;
                        // Without a thread (the system has none to give), the content is previewed
                        // as text.
                        self.json_worker = std::thread::Builder::new()
                            .name("json preview".into())
                            .spawn_scoped(self.scope, move || {
                                json_shape(ChannelReader::new(rx), budget).ok().flatten()
                            })
                            .ok();
                        self.json = self.json_worker.is_some().then_some(tx);
                    }
                } else if self.first_non_ws.is_some() {
                    json_possible = false;
                }
            }
            if self.filled == CHUNK_BYTES {
                let cut = boundary::chunk_cut(&self.pending);
                let mut next = vec![0; CHUNK_BYTES];
                next[..CHUNK_BYTES - cut].copy_from_slice(&self.pending[cut..]);
                let mut data = std::mem::replace(&mut self.pending, next);
                data.truncate(cut);
                self.filled = CHUNK_BYTES - cut;
                self.emit(data)?;
                if let Some(report) = progress.as_mut() {
                    report(self.bytes);
                }
            }
        }
        if self.filled > 0 {
            let mut data = std::mem::take(&mut self.pending);
            data.truncate(self.filled);
            self.emit(data)?;
        }
        if let Some(report) = progress.as_mut() {
            report(self.bytes);
        }
        // Closing the channel ends the JSON document for the worker.
        self.json = None;
        let json_shape = self
            .json_worker
            .take()
            .and_then(|worker| worker.join().ok().flatten());
        self.finish(json_shape)
    }

    fn emit(&mut self, data: Vec<u8>) -> Result<()> {
        self.hasher.update(&data);
        if self.first_bytes.len() < SNIFF_BYTES {
            let take = (SNIFF_BYTES - self.first_bytes.len()).min(data.len());
            self.first_bytes.extend_from_slice(&data[..take]);
        }
        // Characters and lines are counted on the text as readers decode it (chunk by chunk,
        // invalid bytes as U+FFFD, NUL bytes kept); binary content (a NUL byte, or too many
        // invalid ones) has neither, and its chunks are found by bytes only.
        let (mut chars, mut newlines) = (0, 0);
        if !self.is_binary() {
            let text = match std::str::from_utf8(&data) {
                Ok(text) => Cow::Borrowed(text),
                Err(_) => {
                    self.invalid_bytes += invalid_utf8_bytes(&data);
                    String::from_utf8_lossy(&data)
                }
            };
            let (counted, nul) = count_chars_finding_nul(text.as_bytes());
            self.has_nul = nul;
            if !self.is_binary() {
                chars = counted;
                newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
                self.preview(text)?;
            }
        }
        if !self.is_binary() {
            self.keep_search_text(&data);
        }
        if let Some(tx) = &self.json
            && tx.send(data.clone()).is_err()
        {
            // The worker stopped early: the content is not a JSON document.
            self.json = None;
        }
        self.last_byte = data.last().copied();
        let chunk = Chunk::new(self.seq, self.bytes, self.chars, self.newlines, data);
        self.seq += 1;
        self.bytes += chunk.pos.len;
        self.chars += chars;
        self.newlines += newlines;
        self.writer.push(chunk)
    }

    /// Hands the next piece of text to the preview builder: here while it is the first, else to
    /// the builder's own thread (started with the second piece).
    fn preview(&mut self, text: Cow<'_, str>) -> Result<()> {
        if let TextSide::Here(_) = self.text
            && self.seq > 0
            && let TextSide::Here(mut builder) = std::mem::replace(&mut self.text, TextSide::Moving)
        {
            let (pieces, queue) = sync_channel::<String>(PREVIEW_QUEUE_CHUNKS);
            let done = std::thread::Builder::new()
                .name("text preview".into())
                .spawn_scoped(self.scope, move || {
                    for piece in queue {
                        builder.push(&piece);
                    }
                    builder.finish()
                })
                .map_err(|e| {
                    Error::Storage(format!(
                        "cannot start a thread to preview the input ({e}); the system is out of \
                         threads or memory: retry when fewer writes run at once"
                    ))
                })?;
            self.text = TextSide::Worker { pieces, done };
        }
        match &mut self.text {
            TextSide::Here(builder) => builder.push(&text),
            TextSide::Worker { pieces, .. } => {
                // The worker ends only when this side closes the queue.
                let _ = pieces.send(text.into_owned());
            }
            TextSide::Moving => unreachable!("the builder is in place between calls"),
        }
        Ok(())
    }

    /// Binary so far: a NUL byte, or more invalid bytes than nearly-UTF-8 text has.
    fn is_binary(&self) -> bool {
        self.has_nul
            || (self.invalid_bytes > TEXT_MAX_INVALID_BYTES
                && self.invalid_bytes * TEXT_MAX_INVALID_RATIO > self.bytes)
    }

    fn keep_search_text(&mut self, data: &[u8]) {
        if self.search_head.len() < SEARCH_HEAD_BYTES {
            let take = (SEARCH_HEAD_BYTES - self.search_head.len()).min(data.len());
            self.search_head.extend_from_slice(&data[..take]);
            if take == data.len() {
                return;
            }
        }
        let tail = &data[data.len().saturating_sub(SEARCH_TAIL_BYTES)..];
        let overflow = (self.search_tail.len() + tail.len()).saturating_sub(SEARCH_TAIL_BYTES);
        self.search_tail.drain(..overflow);
        self.search_tail.extend(tail);
    }

    fn finish(self, json_shape: Option<JsonShape>) -> Result<Ingested> {
        let hash = self.hasher.finalize().to_hex().to_string();
        let binary =
            self.is_binary() || (self.invalid_bytes > 0 && infer::get(&self.first_bytes).is_some());
        let stats = BlobStats {
            hash: hash.clone(),
            chunks: self.seq,
            mime: binary.then(|| sniff_mime(&self.first_bytes).to_owned()),
            bytes: self.bytes,
            chars: if binary { 0 } else { self.chars },
            lines: if binary {
                0
            } else {
                crate::preview::text::line_count(
                    self.newlines,
                    self.chars,
                    self.last_byte == Some(b'\n'),
                )
            },
        };
        let blob = self.writer.finish()?;
        if binary {
            let mime = stats.mime.as_deref().unwrap_or("application/octet-stream");
            let preview = binary_preview(self.bytes, &hash, mime);
            return Ok(Ingested {
                stats,
                kind: Kind::Binary,
                preview,
                profile: None,
                search_text: String::new(),
                blob,
            });
        }
        let text = match self.text {
            TextSide::Here(builder) => builder.finish(),
            TextSide::Worker { pieces, done } => {
                drop(pieces);
                done.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }
            TextSide::Moving => unreachable!("the builder is in place between calls"),
        };
        let kind = if json_shape.is_some() {
            Kind::Json
        } else {
            Kind::Text
        };
        // JSON is read by its shape and queries, not by level words in its strings.
        let profile = match &json_shape {
            None => Some(TextProfile {
                invalid_utf8_bytes: self.invalid_bytes,
                decoded_from: self.decoded_from,
                ..text.profile
            }),
            Some(shape) => Some(TextProfile {
                json_queries: shape.queries.clone(),
                json_finds: shape.finds.clone(),
                ..TextProfile::default()
            }),
        };
        let mut preview = match json_shape {
            Some(shape) if !text.complete => shape.preview,
            _ => text.text,
        };
        if !text.complete
            && let Some(note) = profile.as_ref().and_then(TextProfile::decoding_note)
        {
            preview.insert_str(0, &format!("[{note}]\n"));
        }
        let tail: Vec<u8> = self.search_tail.into_iter().collect();
        Ok(Ingested {
            stats,
            kind,
            preview,
            profile,
            search_text: search_text(&self.search_head, &tail),
            blob,
        })
    }
}

/// The text of an entry that full-text search sees: its first [`SEARCH_HEAD_BYTES`] and, past
/// them, its last [`SEARCH_TAIL_BYTES`].
fn search_text(head: &[u8], tail: &[u8]) -> String {
    let mut search = String::from_utf8_lossy(head).into_owned();
    if !tail.is_empty() {
        search.push_str("\n…\n");
        search.push_str(&String::from_utf8_lossy(tail));
    }
    search
}

/// What full-text search sees of content longer than one chunk, given its first bytes (at least
/// [`SEARCH_HEAD_BYTES`]) and its last (at least [`SEARCH_TAIL_BYTES`]): what [`ingest`] keeps of it.
pub(crate) fn search_text_of_long(head: &[u8], tail: &[u8]) -> String {
    let head = &head[..head.len().min(SEARCH_HEAD_BYTES)];
    let tail = &tail[tail.len().saturating_sub(SEARCH_TAIL_BYTES)..];
    search_text(head, tail)
}

/// Bytes of `data` that are not part of a valid UTF-8 sequence (each reads as one U+FFFD or is
/// part of one).
fn invalid_utf8_bytes(data: &[u8]) -> u64 {
    data.utf8_chunks()
        .map(|chunk| chunk.invalid().len() as u64)
        .sum()
}

/// The largest cut ≤ len that does not split a UTF-8 character.
fn char_cut(data: &[u8]) -> usize {
    let len = data.len();
    for back in 1..=4.min(len) {
        let b = data[len - back];
        if (b & 0xC0) != 0x80 {
            // `b` starts a character: keep it only if the whole character fits.
            let width = match b {
                0x00..=0x7F => 1,
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            return if back >= width { len } else { len - back };
        }
    }
    len
}

/// Reads the chunks a channel delivers as one stream; the end of the channel is the end of input.
struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
}

impl ChannelReader {
    fn new(rx: Receiver<Vec<u8>>) -> Self {
        Self {
            rx,
            current: Vec::new(),
            pos: 0,
        }
    }
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pos == self.current.len() {
            match self.rx.recv() {
                Ok(next) => {
                    self.current = next;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::char_cut;
    use crate::preview::text::{count_chars, count_chars_finding_nul};

    #[test]
    fn characters_are_counted_as_rust_counts_them() {
        for text in [
            "",
            "a",
            "aé€😀",
            &"naïve café — 😀 ok\n".repeat(37),
            &"x".repeat(65),
        ] {
            for start in 0..text.len().min(9) {
                if let Some(part) = text.get(start..) {
                    assert_eq!(
                        count_chars(part.as_bytes()),
                        part.chars().count() as u64,
                        "{part:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_nul_byte_is_found_wherever_it_is() {
        let text = "aé€😀 line\n".repeat(5);
        assert!(!count_chars_finding_nul(text.as_bytes()).1);
        for at in 0..text.len() {
            let mut bytes = text.as_bytes().to_vec();
            bytes[at] = 0;
            assert!(count_chars_finding_nul(&bytes).1, "NUL at {at}");
        }
        // 0x01 and 0x80 next to each other are not zero, whatever the borrow does.
        for pair in [[1u8, 0x80], [0x80, 1], [0xff, 0x01]] {
            let bytes: Vec<u8> = pair.iter().copied().cycle().take(32).collect();
            assert!(!count_chars_finding_nul(&bytes).1, "{pair:?}");
        }
    }

    #[test]
    fn cuts_never_split_characters() {
        let text = "aé€😀".repeat(10);
        for len in 1..text.len() {
            let cut = char_cut(&text.as_bytes()[..len]);
            assert!(text.is_char_boundary(cut), "len {len} cut {cut}");
            assert!(len - cut < 4);
        }
    }
}
