//! Unified line diffs of two entries or two versions, in bounded memory.
//!
//! Both sides are streamed line by line from their chunks. Equal lines pass through one at a time;
//! at a difference, a window of the following lines of each side (256 lines at first, growing to
//! [`WINDOW_LINES`] while no common run is found after the change) is aligned with patience diff,
//! and the changes in the first half of the window are emitted. Memory is bounded by the window
//! (at most [`WINDOW_BYTES`] of line text per side, a line's first [`LINE_KEEP_BYTES`] bytes and a
//! hash of the rest), never by the size of either side: two 100 MB entries are compared in tens of
//! megabytes. The price is that a block inserted or removed whole that is longer than the window
//! shows as removed and added again.
//!
//! A reply stops at its budget at a hunk boundary and says where the next one starts, as a pair of
//! line numbers ([`DiffCursor`]); the diff from there is the rest of the same diff.

use std::collections::VecDeque;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{self, BufRead, BufReader, Read};
use std::str::FromStr;
use std::time::{Duration, Instant};

use serde::Serialize;
use similar::{Algorithm, DiffTag};

use crate::advice::{Call, Speak};
use crate::error::{Error, Result};
use crate::figures::{thousands, utc_time};
use crate::history::LineDelta;
use crate::model::Kind;

pub mod target;

pub use target::{DiffCall, DiffCursor, Target};

/// Lines of each side an alignment looks at, at most.
pub const WINDOW_LINES: usize = 65_536;
/// Bytes of line text of each side an alignment holds, at most.
pub const WINDOW_BYTES: usize = 8 * 1024 * 1024;
/// Bytes of each line kept for comparing and showing; the rest is compared by hash and length.
pub const LINE_KEEP_BYTES: usize = 1024;
/// The first window (lines): most changes are resolved within a few lines of where they start.
const FIRST_WINDOW_LINES: usize = 256;
/// Equal lines after a change that show the alignment found its way back.
const ANCHOR_LINES: usize = 3;
/// How long one alignment may search for the best diff before settling for a good one.
const ALIGN_TIME: Duration = Duration::from_millis(500);
/// Context lines around each change when none are asked for.
pub const DEFAULT_CONTEXT: usize = 3;
/// Largest JSON document (bytes, each side) compared as normalized JSON.
pub const JSON_DIFF_MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Buffer of each side's reader (bytes).
const READ_BUFFER: usize = 64 * 1024;

impl FromStr for DiffCursor {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        let parsed = text
            .split_once(':')
            .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
        match parsed {
            Some((a_line, b_line)) if a_line >= 1 && b_line >= 1 => Ok(Self { a_line, b_line }),
            _ => Err(Error::invalid(format!(
                "invalid diff cursor `{text}`: it is two line numbers from 1, `A:B`, as a cut diff \
                 prints it; pass it back unchanged"
            ))),
        }
    }
}

/// One side of a diff, as the reply describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffSide {
    pub name: String,
    pub version: u64,
    /// Whether this is the entry's current version.
    pub current: bool,
    pub kind: Kind,
    pub bytes: u64,
    pub lines: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// When this version was written (unix ms).
    pub written_at: i64,
}

impl DiffSide {
    /// `plan (version 3, agent-a, 2026-11-25 10:00:05 UTC)`
    fn label(&self) -> String {
        let mut label = format!("{} (version {}", self.name, self.version);
        if self.current {
            label.push_str(", current");
        }
        if let Some(author) = &self.author {
            label.push_str(&format!(", {author}"));
        }
        label.push_str(&format!(", {})", utc_time(self.written_at)));
        label
    }
}

/// What a diff returned, kept structured until a face renders it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffReply {
    pub a: DiffSide,
    pub b: DiffSide,
    /// Unified hunks (`@@ -a,n +b,m @@`, then ` `, `-` and `+` lines), without the `---`/`+++` header.
    pub text: String,
    /// The two sides hold the same content.
    pub identical: bool,
    /// Both sides are JSON and were compared as normalized JSON (keys sorted, one value per line).
    pub normalized_json: bool,
    /// Lines added, removed and hunks in this reply.
    pub added: u64,
    pub removed: u64,
    pub hunks: u64,
    /// The lines this reply started from.
    pub from: DiffCursor,
    /// True when the budget cut the diff short.
    pub truncated: bool,
    /// Where the next reply starts, when cut.
    pub continuation: Option<DiffCursor>,
    /// Remarks the reader should know.
    pub notes: Vec<String>,
    #[serde(skip)]
    pub(crate) call: Option<DiffCall>,
}

impl DiffReply {
    /// The call that continues a cut diff.
    pub fn next_call(&self) -> Option<Call> {
        let cursor = self.continuation?;
        let call = self.call.clone()?;
        Some(Call::Diff(DiffCall {
            cursor: Some(cursor),
            ..call
        }))
    }

    /// A one-line account of the reply: what differs and which lines it covers.
    pub fn summary(&self) -> String {
        if self.identical {
            return "identical content".to_owned();
        }
        let shown = format!(
            "{} added, {} removed in {}",
            thousands(self.added),
            thousands(self.removed),
            crate::figures::counted(self.hunks, "hunk", "hunks")
        );
        let from = if self.from == DiffCursor::START {
            String::new()
        } else {
            format!(
                " from line {} of a and {} of b",
                thousands(self.from.a_line),
                thousands(self.from.b_line)
            )
        };
        match (self.hunks, self.truncated) {
            (0, false) if self.from == DiffCursor::START && self.normalized_json => {
                "the same JSON: only key order or formatting differ".to_owned()
            }
            (0, false) if self.from == DiffCursor::START => {
                "no line differs (the content differs only in bytes a line diff does not show)"
                    .to_owned()
            }
            (0, false) => format!("no more differences{from}"),
            (_, false) => format!("{shown}{from}"),
            (_, true) => format!("{shown}{from}, cut at the reply budget"),
        }
    }

    /// Header, hunks and continuation as one text, with the continuation spelled by the face.
    pub fn render(&self, speak: &dyn Speak) -> String {
        let mut out = format!(
            "--- {}\n+++ {}\n[diff: {}",
            self.a.label(),
            self.b.label(),
            self.summary()
        );
        if self.normalized_json {
            out.push_str("; compared as JSON with keys sorted");
        }
        out.push_str("]\n");
        for note in &self.notes {
            out.push_str(&format!("[note: {note}]\n"));
        }
        out.push_str(&self.text);
        if let Some(next) = self.next_call() {
            out.push_str(&format!(
                "[more differences; continue with: {}]\n",
                crate::advice::code_span(&speak.call(&next))
            ));
        }
        out
    }
}

/// Limits of one diff reply.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DiffLimits {
    pub budget_chars: usize,
    pub context: usize,
}

/// What the engine produced.
#[derive(Debug, Default)]
pub(crate) struct Body {
    pub text: String,
    pub added: u64,
    pub removed: u64,
    pub hunks: u64,
    /// Where the next reply starts; `None` when both sides were compared to the end.
    pub next: Option<DiffCursor>,
}

/// One line of a side: its first bytes, and a hash and length of the whole, so a long line costs
/// no more memory than a short one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Line {
    hash: u64,
    len: u64,
    newline: bool,
    head: Vec<u8>,
}

impl Hash for Line {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// Lines of a stream, read through a buffer of their own.
struct Lines<R> {
    reader: BufReader<R>,
}

impl<R: Read> Lines<R> {
    fn new(inner: R) -> Self {
        Self {
            reader: BufReader::with_capacity(READ_BUFFER, inner),
        }
    }

    fn next(&mut self) -> io::Result<Option<Line>> {
        let mut hasher = DefaultHasher::new();
        let mut head = Vec::new();
        let mut len = 0u64;
        let mut any = false;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if buf.is_empty() {
                return Ok(any.then(|| Line {
                    hash: hasher.finish(),
                    len,
                    newline: false,
                    head,
                }));
            }
            any = true;
            let (piece, newline) = match memchr::memchr(b'\n', buf) {
                Some(at) => (&buf[..at], true),
                None => (buf, false),
            };
            hasher.write(piece);
            len += piece.len() as u64;
            let room = LINE_KEEP_BYTES.saturating_sub(head.len());
            head.extend_from_slice(&piece[..piece.len().min(room)]);
            let used = piece.len() + usize::from(newline);
            self.reader.consume(used);
            if newline {
                return Ok(Some(Line {
                    hash: hasher.finish(),
                    len,
                    newline: true,
                    head,
                }));
            }
        }
    }
}

/// One side being compared: the lines read ahead of the comparison.
struct Side<R> {
    lines: Lines<R>,
    window: VecDeque<Line>,
    window_bytes: usize,
    /// The number of `window[0]` (or of the next line read when the window is empty).
    next_no: u64,
    eof: bool,
}

impl<R: Read> Side<R> {
    fn new(inner: R, first: u64) -> Self {
        Self {
            lines: Lines::new(inner),
            window: VecDeque::new(),
            window_bytes: 0,
            next_no: first,
            eof: false,
        }
    }

    /// Reads ahead until the window holds `lines` lines, its byte bound, or the end.
    fn fill(&mut self, lines: usize) -> io::Result<()> {
        while !self.eof
            && self.window.len() < lines
            && (self.window.is_empty() || self.window_bytes < WINDOW_BYTES)
        {
            match self.lines.next()? {
                Some(line) => {
                    self.window_bytes += line.head.len();
                    self.window.push_back(line);
                }
                None => self.eof = true,
            }
        }
        Ok(())
    }

    /// Whether reading could add to a window of `lines` lines.
    fn can_grow(&self, lines: usize) -> bool {
        !self.eof && self.window.len() >= lines && self.window_bytes < WINDOW_BYTES
    }

    fn pop(&mut self) -> Option<Line> {
        let line = self.window.pop_front()?;
        self.window_bytes -= line.head.len();
        self.next_no += 1;
        Some(line)
    }
}

/// What to do with the lines at the front of each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Same(usize),
    Delete(usize),
    Insert(usize),
}

/// Compares two streams from `start`, returning the hunks that fit the budget.
pub(crate) fn unified(
    a: impl Read,
    b: impl Read,
    start: DiffCursor,
    limits: DiffLimits,
) -> io::Result<Body> {
    let mut a = Side::new(a, start.a_line);
    let mut b = Side::new(b, start.b_line);
    let mut hunks = Hunks::new(limits);
    'compare: loop {
        a.fill(1)?;
        b.fill(1)?;
        match (a.window.front(), b.window.front()) {
            (None, None) => break,
            (Some(x), Some(y)) if x == y => {
                if !hunks.same(a.next_no, b.next_no, x) {
                    break;
                }
                a.pop();
                b.pop();
                continue;
            }
            _ => {}
        }
        for step in next_block(&mut a, &mut b)? {
            let (count, kind) = match step {
                Step::Same(n) => (n, 0),
                Step::Delete(n) => (n, 1),
                Step::Insert(n) => (n, 2),
            };
            for _ in 0..count {
                let go_on = match kind {
                    0 => {
                        let Some(line) = a.window.front() else { break };
                        hunks.same(a.next_no, b.next_no, line)
                    }
                    1 => {
                        let Some(line) = a.window.front() else { break };
                        hunks.change('-', a.next_no, b.next_no, line)
                    }
                    _ => {
                        let Some(line) = b.window.front() else { break };
                        hunks.change('+', a.next_no, b.next_no, line)
                    }
                };
                if !go_on {
                    break 'compare;
                }
                if kind != 2 {
                    a.pop();
                }
                if kind != 1 {
                    b.pop();
                }
            }
        }
    }
    Ok(hunks.finish(a.next_no, b.next_no))
}

/// Aligns the lines ahead of each side, growing the window until the alignment finds common lines
/// after the first change, and returns the steps to take: the first half of the window's changes
/// (all of them when the window holds the rest of both sides).
fn next_block<R: Read, S: Read>(a: &mut Side<R>, b: &mut Side<S>) -> io::Result<Vec<Step>> {
    let mut lines = FIRST_WINDOW_LINES;
    loop {
        a.fill(lines)?;
        b.fill(lines)?;
        let (na, nb) = (a.window.len().min(lines), b.window.len().min(lines));
        let whole = a.eof && na == a.window.len() && b.eof && nb == b.window.len();
        let ops = similar::capture_diff_deadline(
            Algorithm::Patience,
            &a.window,
            0..na,
            &b.window,
            0..nb,
            Some(Instant::now() + ALIGN_TIME),
        );
        let mut seen_change = false;
        let mut synced = false;
        for op in &ops {
            let (tag, old, new) = op.as_tag_tuple();
            match tag {
                DiffTag::Equal if seen_change => {
                    synced |=
                        old.len() >= ANCHOR_LINES || (whole && old.end == na && new.end == nb);
                }
                DiffTag::Equal => {}
                DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => seen_change = true,
            }
        }
        let grow =
            !whole && !synced && lines < WINDOW_LINES && (a.can_grow(lines) || b.can_grow(lines));
        if grow {
            lines *= 4;
            continue;
        }
        let (half_a, half_b) = (na.div_ceil(2), nb.div_ceil(2));
        let mut steps = Vec::new();
        for op in ops {
            let (tag, old, new) = op.as_tag_tuple();
            if !whole && !steps.is_empty() && (old.start >= half_a || new.start >= half_b) {
                break;
            }
            match tag {
                DiffTag::Equal => steps.push(Step::Same(old.len())),
                DiffTag::Delete => steps.push(Step::Delete(old.len())),
                DiffTag::Insert => steps.push(Step::Insert(new.len())),
                DiffTag::Replace => {
                    steps.push(Step::Delete(old.len()));
                    steps.push(Step::Insert(new.len()));
                }
            }
        }
        return Ok(steps);
    }
}

/// A hunk being built: its first lines on each side, and its lines rendered.
struct Open {
    a_start: u64,
    b_start: u64,
    a_len: u64,
    b_len: u64,
    body: String,
    added: u64,
    removed: u64,
    /// Equal lines after the last change: trailing context, or the gap before the next change.
    tail: Vec<(u64, u64, String)>,
}

/// Builds unified hunks within a budget.
struct Hunks {
    limits: DiffLimits,
    /// Characters of a line shown at most.
    line_chars: usize,
    out: String,
    added: u64,
    removed: u64,
    hunks: u64,
    /// Equal lines seen since the last hunk, the last `context` of them.
    before: VecDeque<(u64, u64, String)>,
    open: Option<Open>,
    next: Option<DiffCursor>,
}

/// Room for a hunk header (`@@ -1234567,89 +1234567,89 @@`).
const HEADER_CHARS: usize = 64;

impl Hunks {
    fn new(limits: DiffLimits) -> Self {
        Self {
            limits,
            line_chars: (limits.budget_chars / 4).clamp(40, LINE_KEEP_BYTES),
            out: String::new(),
            added: 0,
            removed: 0,
            hunks: 0,
            before: VecDeque::new(),
            open: None,
            next: None,
        }
    }

    fn render(&self, mark: char, line: &Line) -> String {
        let text = String::from_utf8_lossy(&line.head);
        let mut out = String::with_capacity(text.len().min(self.line_chars) + 24);
        out.push(mark);
        let mut shown = 0;
        for (i, c) in text.char_indices() {
            if i + c.len_utf8() > self.line_chars {
                break;
            }
            out.push(c);
            shown = i + c.len_utf8();
        }
        if shown < text.len() || line.len > line.head.len() as u64 {
            let hidden = line.len.saturating_sub(shown as u64);
            out.push_str(&format!(" …[{} more bytes]", thousands(hidden)));
        }
        out.push('\n');
        if !line.newline {
            out.push_str("\\ No newline at end of file\n");
        }
        out
    }

    /// An equal line at (`a_no`, `b_no`). False: the budget is spent, stop.
    fn same(&mut self, a_no: u64, b_no: u64, line: &Line) -> bool {
        let context = self.limits.context;
        if self.open.is_none() {
            if context > 0 {
                let text = self.render(' ', line);
                self.before.push_back((a_no, b_no, text));
                if self.before.len() > context {
                    self.before.pop_front();
                }
            }
            return true;
        }
        let text = self.render(' ', line);
        let Some(open) = self.open.as_mut() else {
            return true;
        };
        open.tail.push((a_no, b_no, text));
        if open.tail.len() > 2 * context {
            // The next change, if any, is too far for this hunk: end it with `context` lines.
            let mut tail = std::mem::take(&mut open.tail);
            let rest = tail.split_off(context);
            for (_, _, text) in tail {
                open.a_len += 1;
                open.b_len += 1;
                open.body.push_str(&text);
            }
            let keep = rest.len().saturating_sub(context);
            self.before = rest.into_iter().skip(keep).collect();
            return self.close();
        }
        self.fits_open()
    }

    /// A removed (`-`) or added (`+`) line, met at (`a_no`, `b_no`). False: stop.
    fn change(&mut self, mark: char, a_no: u64, b_no: u64, line: &Line) -> bool {
        let text = self.render(mark, line);
        let open = self.open.get_or_insert_with(|| {
            let (a_start, b_start) = self
                .before
                .front()
                .map_or((a_no, b_no), |(a, b, _)| (*a, *b));
            let mut open = Open {
                a_start,
                b_start,
                a_len: 0,
                b_len: 0,
                body: String::new(),
                added: 0,
                removed: 0,
                tail: Vec::new(),
            };
            for (_, _, text) in self.before.drain(..) {
                open.a_len += 1;
                open.b_len += 1;
                open.body.push_str(&text);
            }
            open
        });
        for (_, _, context) in open.tail.drain(..) {
            open.a_len += 1;
            open.b_len += 1;
            open.body.push_str(&context);
        }
        let room = self
            .limits
            .budget_chars
            .saturating_sub(self.out.len() + HEADER_CHARS + open.body.len());
        if text.len() > room {
            if !self.out.is_empty() {
                // Shown next time, whole: start there.
                self.next = Some(DiffCursor {
                    a_line: open.a_start,
                    b_line: open.b_start,
                });
                self.open = None;
                return false;
            }
            if open.added + open.removed == 0 {
                // Not even one change fits with its context: show this line alone, cut to the
                // budget, and go on after it.
                open.a_start = a_no;
                open.b_start = b_no;
                open.a_len = 0;
                open.b_len = 0;
                open.body.clear();
                let room = self.limits.budget_chars.saturating_sub(HEADER_CHARS).max(8);
                let cut: String = text.chars().take(room).collect();
                open.body.push_str(cut.trim_end_matches('\n'));
                open.body.push_str(" …\n");
                self.next = Some(match mark {
                    '-' => {
                        open.a_len = 1;
                        open.removed = 1;
                        DiffCursor {
                            a_line: a_no + 1,
                            b_line: b_no,
                        }
                    }
                    _ => {
                        open.b_len = 1;
                        open.added = 1;
                        DiffCursor {
                            a_line: a_no,
                            b_line: b_no + 1,
                        }
                    }
                });
            } else {
                // The first hunk is larger than the budget: show what fits, go on from this line.
                self.next = Some(DiffCursor {
                    a_line: a_no,
                    b_line: b_no,
                });
            }
            self.emit();
            return false;
        }
        match mark {
            '-' => {
                open.a_len += 1;
                open.removed += 1;
            }
            _ => {
                open.b_len += 1;
                open.added += 1;
            }
        }
        open.body.push_str(&text);
        true
    }

    /// Whether the open hunk with its pending context still fits; if not, stop before it.
    fn fits_open(&mut self) -> bool {
        let Some(open) = &self.open else {
            return true;
        };
        let pending: usize = open.tail.iter().map(|(_, _, t)| t.len()).sum();
        if self.out.len() + HEADER_CHARS + open.body.len() + pending <= self.limits.budget_chars {
            return true;
        }
        if self.out.is_empty() {
            // Context alone overflows: show the hunk without it.
            self.next = open.tail.first().map(|(a, b, _)| DiffCursor {
                a_line: *a,
                b_line: *b,
            });
            if let Some(open) = self.open.as_mut() {
                open.tail.clear();
            }
            self.emit();
            return false;
        }
        self.next = Some(DiffCursor {
            a_line: open.a_start,
            b_line: open.b_start,
        });
        self.open = None;
        false
    }

    /// Ends the open hunk; false when it does not fit (the next reply starts with it).
    fn close(&mut self) -> bool {
        let Some(open) = &self.open else {
            return true;
        };
        if self.out.len() + HEADER_CHARS + open.body.len() > self.limits.budget_chars
            && !self.out.is_empty()
        {
            self.next = Some(DiffCursor {
                a_line: open.a_start,
                b_line: open.b_start,
            });
            self.open = None;
            return false;
        }
        self.emit();
        true
    }

    /// Appends the open hunk to the output.
    fn emit(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        // An empty side is numbered by the line before it, as `diff -u` does.
        let start = |start: u64, len: u64| if len == 0 { start - 1 } else { start };
        self.out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            start(open.a_start, open.a_len),
            open.a_len,
            start(open.b_start, open.b_len),
            open.b_len
        ));
        self.out.push_str(&open.body);
        self.added += open.added;
        self.removed += open.removed;
        self.hunks += 1;
    }

    /// The end of both sides (or of this reply) at (`a_no`, `b_no`).
    fn finish(mut self, _a_no: u64, _b_no: u64) -> Body {
        if self.next.is_none() && self.open.is_some() {
            let context = self.limits.context;
            if let Some(open) = self.open.as_mut() {
                let tail = std::mem::take(&mut open.tail);
                for (_, _, text) in tail.into_iter().take(context) {
                    open.a_len += 1;
                    open.b_len += 1;
                    open.body.push_str(&text);
                }
            }
            self.close();
        }
        Body {
            text: self.out,
            added: self.added,
            removed: self.removed,
            hunks: self.hunks,
            next: self.next,
        }
    }
}

/// Lines added and removed from `old` to `new`, for a change's one-line summary.
pub(crate) fn line_delta(old: &[u8], new: &[u8]) -> LineDelta {
    let split = |text: &[u8]| -> Vec<Vec<u8>> {
        text.split_inclusive(|b| *b == b'\n')
            .map(<[u8]>::to_vec)
            .collect()
    };
    let (old, new) = (split(old), split(new));
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Patience,
        &old,
        &new,
        Some(Instant::now() + ALIGN_TIME),
    );
    let mut delta = LineDelta::default();
    for op in ops {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {}
            DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                delta.removed += old.len() as u64;
                delta.added += new.len() as u64;
            }
        }
    }
    delta
}

/// A JSON document as text a line diff reads well: one value per line, object keys sorted, two
/// spaces of indent. `None` when it is not JSON.
pub(crate) fn normalized_json(bytes: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let mut out = String::new();
    write_sorted(&value, 0, &mut out);
    out.push('\n');
    Some(out)
}

fn write_sorted(value: &serde_json::Value, indent: usize, out: &mut String) {
    use serde_json::Value;
    let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n(' ', n));
    match value {
        Value::Object(map) if !map.is_empty() => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push_str("{\n");
            for (i, key) in keys.iter().enumerate() {
                pad(out, indent + 2);
                out.push_str(&Value::String((*key).clone()).to_string());
                out.push_str(": ");
                if let Some(item) = map.get(*key) {
                    write_sorted(item, indent + 2, out);
                }
                out.push_str(if i + 1 < keys.len() { ",\n" } else { "\n" });
            }
            pad(out, indent);
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                pad(out, indent + 2);
                write_sorted(item, indent + 2, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, indent);
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(a: &str, b: &str, budget: usize) -> Body {
        unified(
            a.as_bytes(),
            b.as_bytes(),
            DiffCursor::START,
            DiffLimits {
                budget_chars: budget,
                context: 3,
            },
        )
        .unwrap()
    }

    fn numbered(range: std::ops::RangeInclusive<u32>) -> String {
        range.map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn a_changed_line_is_one_hunk_with_context() {
        let a = numbered(1..=20);
        let b = a.replace("line 10\n", "line ten\n");
        let body = diff(&a, &b, 8_000);
        assert_eq!(
            body.text,
            "@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n-line 10\n+line ten\n line 11\n line 12\n line 13\n"
        );
        assert_eq!((body.added, body.removed, body.hunks), (1, 1, 1));
        assert_eq!(body.next, None);
    }

    #[test]
    fn identical_content_has_no_hunks() {
        let a = numbered(1..=1000);
        let body = diff(&a, &a, 8_000);
        assert!(body.text.is_empty());
        assert_eq!(body.next, None);
    }

    #[test]
    fn insertions_deletions_and_the_last_line() {
        let a = "a\nb\nc\n";
        let b = "a\nc\nd";
        let body = diff(a, b, 8_000);
        assert_eq!(
            body.text,
            "@@ -1,3 +1,3 @@\n a\n-b\n c\n+d\n\\ No newline at end of file\n"
        );
        let body = diff("", "x\ny\n", 8_000);
        assert_eq!(body.text, "@@ -0,0 +1,2 @@\n+x\n+y\n");
    }

    #[test]
    fn a_large_insertion_is_found_beyond_the_first_window() {
        let a = numbered(1..=20_000);
        let mut b = numbered(1..=5_000);
        for i in 0..3_000 {
            b.push_str(&format!("inserted {i}\n"));
        }
        b.push_str(&numbered(5_001..=20_000));
        let body = diff(&a, &b, usize::MAX / 4);
        assert_eq!((body.added, body.removed, body.hunks), (3_000, 0, 1));
        assert!(
            body.text.starts_with(
                "@@ -4998,6 +4998,3006 @@\n line 4998\n line 4999\n line 5000\n+inserted 0\n"
            ),
            "{}",
            &body.text[..200]
        );
    }

    #[test]
    fn cut_replies_continue_where_they_stopped_and_add_up_to_the_whole() {
        let a = numbered(1..=2_000);
        let mut b = a.clone();
        for i in (10..2_000).step_by(40) {
            b = b.replace(&format!("line {i}\n"), &format!("line {i} changed\n"));
        }
        let whole = diff(&a, &b, usize::MAX / 4);
        let mut pieces = String::new();
        let mut start = DiffCursor::START;
        let mut replies = 0;
        loop {
            let a_rest: String = a
                .lines()
                .skip(start.a_line as usize - 1)
                .map(|l| format!("{l}\n"))
                .collect();
            let b_rest: String = b
                .lines()
                .skip(start.b_line as usize - 1)
                .map(|l| format!("{l}\n"))
                .collect();
            let body = unified(
                a_rest.as_bytes(),
                b_rest.as_bytes(),
                start,
                DiffLimits {
                    budget_chars: 600,
                    context: 3,
                },
            )
            .unwrap();
            assert!(body.text.len() <= 600, "{}", body.text.len());
            pieces.push_str(&body.text);
            replies += 1;
            match body.next {
                Some(next) => start = next,
                None => break,
            }
        }
        assert!(replies > 5);
        assert_eq!(pieces, whole.text);
    }

    #[test]
    fn long_lines_are_compared_whole_and_shown_cut() {
        let long = "x".repeat(5_000);
        let a = format!("{long}a\n");
        let b = format!("{long}b\n");
        let body = diff(&a, &b, 8_000);
        assert_eq!(body.removed, 1);
        assert!(body.text.contains("more bytes]"), "{}", body.text);
        assert!(body.text.len() < 3_000);
    }

    #[test]
    fn cursors_read_back() {
        let cursor: DiffCursor = "12:40".parse().unwrap();
        assert_eq!(cursor.to_string(), "12:40");
        assert!("0:1".parse::<DiffCursor>().is_err());
        assert!("12".parse::<DiffCursor>().is_err());
    }

    #[test]
    fn json_is_normalized_with_sorted_keys() {
        let text = normalized_json(br#"{"b":[1,{"y":2,"x":1}],"a":"s","c":{}}"#).unwrap();
        assert_eq!(
            text,
            "{\n  \"a\": \"s\",\n  \"b\": [\n    1,\n    {\n      \"x\": 1,\n      \"y\": 2\n    }\n  ],\n  \"c\": {}\n}\n"
        );
        assert!(normalized_json(b"not json").is_none());
    }

    #[test]
    fn line_deltas_count_what_changed() {
        let delta = line_delta(b"a\nb\nc\n", b"a\nB\nc\nd\n");
        assert_eq!(
            delta,
            LineDelta {
                added: 2,
                removed: 1
            }
        );
    }
}
