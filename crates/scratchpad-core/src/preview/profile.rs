//! One pass over an entry's lines that counts them by level, groups them by template and follows
//! the multi-line events (tracebacks, stack traces, panics, diagnostics) so that each counts once,
//! anchored at the line that says what happened. Previews and the summary read share it.
//!
//! Memory is bounded whatever the input: at most a fixed number of templates per level, each
//! with a few example lines cut to a fixed number of characters; lines past the cap are counted per
//! level as not grouped.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use serde::{Deserialize, Serialize};

use super::hint::{GrepSuggestion, LevelMarks, suggest};
use super::report;
use super::severity::{How, Level, LineClass, LineKind, classify};
use super::template::{Prehashed, template};
use crate::figures::thousands;

/// How many lines an entry has at each level; lines without a level are `unleveled`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LevelCounts {
    #[serde(skip_serializing_if = "is_zero")]
    pub fatal: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub error: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub warning: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub notice: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub info: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub debug: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub trace: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub unleveled: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl LevelCounts {
    pub fn get(&self, level: Level) -> u64 {
        match level {
            Level::Fatal => self.fatal,
            Level::Error => self.error,
            Level::Warning => self.warning,
            Level::Notice => self.notice,
            Level::Info => self.info,
            Level::Debug => self.debug,
            Level::Trace => self.trace,
        }
    }

    fn slot(&mut self, level: Option<Level>) -> &mut u64 {
        match level {
            Some(Level::Fatal) => &mut self.fatal,
            Some(Level::Error) => &mut self.error,
            Some(Level::Warning) => &mut self.warning,
            Some(Level::Notice) => &mut self.notice,
            Some(Level::Info) => &mut self.info,
            Some(Level::Debug) => &mut self.debug,
            Some(Level::Trace) => &mut self.trace,
            None => &mut self.unleveled,
        }
    }

    /// Every line, with a level or without.
    pub fn total(&self) -> u64 {
        Level::ALL.iter().map(|&l| self.get(l)).sum::<u64>() + self.unleveled
    }

    /// Lines that have a level.
    pub fn leveled(&self) -> u64 {
        self.total() - self.unleveled
    }

    /// The most severe level with at least one line.
    pub fn most_severe(&self) -> Option<Level> {
        Level::ALL.into_iter().find(|&l| self.get(l) > 0)
    }

    /// `2 fatal, 595 error, 31 warning, 190,000 info`: the levels present, most severe first.
    pub fn render(&self) -> String {
        Level::ALL
            .iter()
            .filter(|&&l| self.get(l) > 0)
            .map(|&l| format!("{} {}", thousands(self.get(l)), l.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What one pass learned about an entry's lines, small enough to store with the entry and render
/// later in any face: counts per level, the search that finds the most severe lines, and the
/// result line of a test run or build.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TextProfile {
    pub levels: LevelCounts,
    /// A search that finds the most severe lines (`None` when nothing is at warning or above).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grep: Option<GrepSuggestion>,
    /// The most severe summary line of a test run or build (its latest occurrence).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<NumberedLine>,
    /// Some level had more forms of line than were grouped; its lines were still counted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub capped: bool,
    /// Bytes that are not valid UTF-8: they are stored as they came and read as U+FFFD (`�`).
    #[serde(skip_serializing_if = "is_zero")]
    pub invalid_utf8_bytes: u64,
    /// The encoding the content came in when it was not UTF-8 (`UTF-16LE`); it is stored as UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decoded_from: Option<String>,
    /// For a JSON document: jq queries valid for it, most useful first ([`super::JsonShape`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub json_queries: Vec<String>,
    /// What the first of `json_queries` finds, in words, when they were chosen from the data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json_finds: Option<String>,
    /// Lines the preview shows whole from the start of the text (`1..=head_through`); zero when
    /// it shows none or the profile is older than the field.
    #[serde(skip_serializing_if = "is_zero")]
    pub head_through: u64,
    /// The first of the lines the preview shows whole at its end (`tail_from..`, to the last line);
    /// zero when unknown. A caller that prints lines of the entry under the preview (a command's
    /// last lines on stderr) leaves out those it already shows.
    #[serde(skip_serializing_if = "is_zero")]
    pub tail_from: u64,
}

impl TextProfile {
    /// Whether the preview shows line `number` whole at its start or its end.
    pub fn shows_line(&self, number: u64) -> bool {
        number <= self.head_through || (self.tail_from > 0 && number >= self.tail_from)
    }

    /// What a reader should know about how the text was decoded, if anything.
    pub fn decoding_note(&self) -> Option<String> {
        match (&self.decoded_from, self.invalid_utf8_bytes) {
            (Some(encoding), _) => Some(format!(
                "decoded from {encoding} when stored: characters and lines are those of the text, bytes \
                 (mode=bytes) those of its UTF-8 form"
            )),
            (None, 0) => None,
            (None, n) => Some(format!(
                "{} not valid UTF-8, stored as {} and shown as `�`; mode=bytes reads {} exactly",
                crate::figures::counted(n, "byte is", "bytes are"),
                if n == 1 { "it came" } else { "they came" },
                if n == 1 { "it" } else { "them" },
            )),
        }
    }
}

/// A numbered line of an entry, cut to a preview's width.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberedLine {
    /// 1-based line number.
    pub line: u64,
    pub text: String,
}

/// Lines of a failure block shown with its headline, at most: a diagnostic's location and label,
/// a test's expected and received values, a resolver's cause.
pub const MAX_DETAILS: usize = 3;

/// Lines of context a suggested search shows around each line it finds: at least enough for a
/// headline's next lines, at most a long block's.
const DEFAULT_CONTEXT_LINES: u64 = 2;
const MAX_CONTEXT_LINES: u64 = 10;

/// Lines after a headline searched for its block's detail, at most.
const BLOCK_LINES: u8 = 24;

/// An occurrence of a group: the line, and what the event around it added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Example {
    pub line: NumberedLine,
    /// The lines that complete it, in line order (at most [`MAX_DETAILS`]): a panic's message, a
    /// diagnostic's location and label, an exception's root cause (`Caused by: …`) or the frame
    /// that raised it, a failed test's assertion, the file a linter row is about.
    pub details: Vec<NumberedLine>,
    /// Where a multi-line event began (a traceback's first line), when not at this line.
    pub from_line: Option<u64>,
}

/// Lines of one template at one level.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub level: Option<Level>,
    /// The highest grade within the level among its lines ([`LineClass`]'s).
    pub grade: u8,
    pub kind: LineKind,
    pub count: u64,
    pub first_line: u64,
    pub last_line: u64,
    /// The first occurrence.
    pub first: Example,
    /// The first occurrence after the preview's head (previews only).
    pub after_head: Option<Example>,
    /// The latest two occurrences, newest first (previews only).
    pub latest: [Option<Example>; 2],
    /// The template (summaries only).
    pub template: Option<String>,
    /// The group this one was merged into when its form was masked (summaries only); its lines
    /// were counted there.
    merged_into: Option<u32>,
}

/// Which lines get grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Track {
    /// Notice and above, failed tests and summaries: what a preview lists.
    Notable,
    /// Every line: what a summary lists.
    Everything,
}

/// The multi-line event the next lines may belong to.
#[derive(Debug, Clone, Copy)]
enum Pending {
    None,
    /// Inside a Python traceback that began on this line, at the level of the log record it
    /// belongs to.
    Traceback {
        start: u64,
        in_head: bool,
        level: Level,
    },
    /// The event of `group` at line `anchor` may be completed by the next line(s).
    Detail {
        group: u32,
        anchor: u64,
        want: Want,
        blank_left: u8,
    },
    /// Stack frames of an exception.
    Frames {
        group: u32,
        anchor: u64,
    },
    /// The lines under a failure's headline (a diagnostic's source and label, a test's expected
    /// and received values, a resolver's cause), searched for its detail; `scanned` lines so far.
    Block {
        group: u32,
        anchor: u64,
        scanned: u8,
        blanks: u8,
        /// Jest's blocks: blank lines inside, the code frame and the `at` line close them.
        jest: bool,
    },
    /// The goroutine dump after a Go `panic: …`, searched for the first frame of the program's
    /// own code; `left` bounds the lines searched.
    GoStack {
        group: u32,
        anchor: u64,
        in_goroutine: bool,
        left: u8,
    },
}

/// Lines after a Go `panic: …` searched for the first frame of the program's own code: past the
/// runtime's and the testing package's frames, which come first.
const GO_STACK_LINES: u8 = 40;

/// What completes an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// A Rust panic's message, on the line after `panicked at …:`.
    PanicMessage,
    /// A Go test's message: `    x_test.go:12: got 4, want 3`.
    GoTestMessage,
    /// The `left:` and `right:` lines after `assertion `left == right` failed`.
    AssertSides,
}

/// Exact templates indexed, at most: past the groups' own, those of lines whose form was masked
/// (bounds memory when every line has a name of its own).
const MAX_INDEXED_TEMPLATES: usize = 1 << 16;

/// The level of a traceback that starts after a line at `previous`: a log record that carries a
/// traceback (`log.debug("retrying", exc_info=True)`) prints it under its message, and the
/// traceback is as severe as the record, so a tool's own debug traces rank below the failure they
/// explain. Without a record above it, a traceback is a crash: an error.
fn traceback_level(previous: Option<Level>) -> Level {
    previous.unwrap_or(Level::Error)
}

/// A traceback's exception line recorded below error, kept in case it turns out to end the output.
#[derive(Debug)]
struct Demoted {
    start: u64,
    number: u64,
    text: Vec<u8>,
    frame: Vec<NumberedLine>,
    in_head: bool,
    level: Level,
    /// The group it was counted in, if any.
    group: Option<u32>,
}

/// Groups per bucket (seven levels and "no level").
const BUCKETS: usize = 8;

fn bucket(level: Option<Level>) -> usize {
    level.map_or(BUCKETS - 1, Level::rank)
}

/// Counts, groups and events of one entry, fed line by line.
#[derive(Debug)]
pub(crate) struct Profiler {
    track: Track,
    example_chars: usize,
    cap_per_level: usize,
    pub counts: LevelCounts,
    pub groups: Vec<Group>,
    index: HashMap<u64, u32, BuildHasherDefault<Prehashed>>,
    per_bucket: [usize; BUCKETS],
    /// Lines not grouped because their level already had `cap_per_level` templates.
    pub ungrouped: [u64; BUCKETS],
    pub marks: [LevelMarks; 7],
    pending: Pending,
    /// The Python traceback's first line, kept to anchor a traceback the input cuts short.
    traceback_text: String,
    /// In a Go panic's stack: the last function line of the program's own code, waiting for its
    /// location on the next line.
    go_function: Option<NumberedLine>,
    /// In a Python traceback: the last `File "…", line N, in f` and the code line under it.
    traceback_frame: Vec<NumberedLine>,
    /// Candidate detail lines of the open block, with their worth (higher first).
    block: Vec<(u8, NumberedLine)>,
    /// The widest block shown with a line at warning or above: lines from its headline to its
    /// last detail, for the suggested search's context.
    pub block_span: u64,
    /// The last line that named a file on its own (a linter's header), kept for the rows under it.
    header: Option<(u64, Vec<u8>)>,
    /// Inside a commit's message in `git log` output: its lines are prose, not events.
    in_commit_message: bool,
    /// The level of the line before this one, if it had one.
    previous_level: Option<Level>,
    /// The last traceback logged below error, until a line with a level follows it.
    demoted: Option<Demoted>,
    pub paths: super::paths::PathStats,
    /// Forms that differ by a name, masked where they do (summaries only).
    forms: super::forms::Forms,
    scratch: Vec<u8>,
}

impl Profiler {
    pub fn new(track: Track, example_chars: usize, cap_per_level: usize) -> Profiler {
        Profiler {
            track,
            example_chars,
            cap_per_level,
            counts: LevelCounts::default(),
            groups: Vec::new(),
            index: HashMap::default(),
            per_bucket: [0; BUCKETS],
            ungrouped: [0; BUCKETS],
            marks: Default::default(),
            pending: Pending::None,
            traceback_text: String::new(),
            go_function: None,
            traceback_frame: Vec::new(),
            block: Vec::new(),
            block_span: 0,
            header: None,
            in_commit_message: false,
            previous_level: None,
            demoted: None,
            paths: super::paths::PathStats::default(),
            forms: super::forms::Forms::default(),
            scratch: Vec::with_capacity(super::template::TEMPLATE_BYTES),
        }
    }

    /// True when some level had more templates than the cap.
    pub fn capped(&self) -> bool {
        self.ungrouped.iter().any(|&n| n > 0)
    }

    /// Feeds line `number` (1-based, without its newline). `in_head`: the preview shows it already.
    pub fn line(&mut self, number: u64, line: &[u8], in_head: bool) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        self.paths.line(line);
        let class = if self.quoted(line) {
            LineClass::NONE
        } else {
            classify(line)
        };
        let previous_level = std::mem::replace(&mut self.previous_level, class.level);
        if class.level.is_some() {
            // The program went on after a traceback it logged below error.
            self.demoted = None;
        }
        if class.level.is_none() && report::is_path_header(line) {
            let header = self.header.get_or_insert_with(|| (0, Vec::new()));
            header.0 = number;
            header.1.clear();
            header.1.extend_from_slice(line);
        }
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::None => {}
            Pending::Block {
                group,
                anchor,
                scanned,
                blanks,
                jest,
            } => {
                if let Some((blanks, worth)) = block_line(line, &class, blanks, jest)
                    && scanned < BLOCK_LINES
                {
                    if worth > 0 {
                        let detail = self.numbered(number, line.trim_ascii());
                        self.block.push((worth, detail));
                    }
                    self.pending = Pending::Block {
                        group,
                        anchor,
                        scanned: scanned + 1,
                        blanks,
                        jest,
                    };
                    self.other(number, line, in_head, class);
                    return;
                }
                self.close_block(group, anchor);
            }
            Pending::Traceback {
                start,
                in_head: start_in_head,
                level,
            } => {
                if line.first().is_none_or(|&b| b == b' ' || b == b'\t') {
                    // The innermost frame is the last: keep its `File …` line and its code line.
                    let trimmed = line.trim_ascii();
                    if trimmed.starts_with(b"File \"") {
                        self.traceback_frame.clear();
                        let frame = self.numbered(number, trimmed);
                        self.traceback_frame.push(frame);
                    } else if self.traceback_frame.len() == 1
                        && !trimmed.is_empty()
                        && !trimmed.iter().all(|&b| matches!(b, b'^' | b'~' | b' '))
                    {
                        let code = self.numbered(number, trimmed);
                        self.traceback_frame.push(code);
                    }
                    self.pending = Pending::Traceback {
                        start,
                        in_head: start_in_head,
                        level,
                    };
                    self.other(number, line, in_head, LineClass::NONE);
                    return;
                }
                // The first line back at the margin is the exception: `ValueError: bad input`.
                let frame = std::mem::take(&mut self.traceback_frame);
                let kept = (level < Level::Error).then(|| frame.clone());
                let group = self.exception(number, line, in_head, start, level, frame);
                if let Some(frame) = kept {
                    // Under a record below error: the program went on, unless nothing follows.
                    self.demoted = Some(Demoted {
                        start,
                        number,
                        text: line.to_vec(),
                        frame,
                        in_head,
                        level,
                        group,
                    });
                }
                return;
            }
            Pending::Detail {
                group,
                anchor,
                want,
                blank_left,
            } => {
                if line.trim_ascii().is_empty() && blank_left > 0 {
                    self.pending = Pending::Detail {
                        group,
                        anchor,
                        want,
                        blank_left: blank_left - 1,
                    };
                    self.other(number, line, in_head, class);
                    return;
                }
                if completes(want, line) {
                    let trimmed = line.trim_ascii();
                    if want == Want::AssertSides {
                        self.append_detail(group, anchor, number, trimmed);
                    } else {
                        self.set_detail(group, anchor, number, line, false);
                    }
                    // `assert_eq!`'s message is only half of it: the values follow.
                    // (Rust before 1.73 said ``assertion failed: `(left == right)` ``.)
                    let sides_follow = (want == Want::PanicMessage
                        && (trimmed.starts_with(b"assertion `left ")
                            || trimmed.starts_with(b"assertion failed: `(left ")))
                        || (want == Want::AssertSides && trimmed.starts_with(b"left:"));
                    if sides_follow {
                        self.pending = Pending::Detail {
                            group,
                            anchor,
                            want: Want::AssertSides,
                            blank_left: 0,
                        };
                    }
                    self.other(number, line, in_head, class);
                    return;
                }
            }
            Pending::GoStack {
                group,
                anchor,
                in_goroutine,
                left,
            } if left > 0 && class.level.is_none() => {
                let mut in_goroutine = in_goroutine;
                let mut done = false;
                if !in_goroutine {
                    in_goroutine = line.starts_with(b"goroutine ") && line.ends_with(b"]:");
                } else if line.first() == Some(&b'\t') {
                    // `\t/app/main.go:12 +0x1d`: the location of the function line above it.
                    if let Some(function) = self.go_function.take() {
                        let mut detail = function.text.clone();
                        detail.push_str("  ");
                        detail.push_str(&String::from_utf8_lossy(line.trim_ascii()));
                        let detail = NumberedLine {
                            line: function.line,
                            text: super::clip::shorten(&detail, self.example_chars),
                        };
                        self.put_detail(group, anchor, detail, false);
                        done = true;
                    }
                } else if !line.is_empty() {
                    let own_code = !(line.starts_with(b"runtime.")
                        || line.starts_with(b"panic(")
                        || line.starts_with(b"testing."));
                    self.go_function = own_code.then(|| NumberedLine {
                        line: number,
                        text: String::from_utf8_lossy(line.trim_ascii()).into_owned(),
                    });
                }
                if !done {
                    self.pending = Pending::GoStack {
                        group,
                        anchor,
                        in_goroutine,
                        left: left - 1,
                    };
                }
                self.other(number, line, in_head, class);
                return;
            }
            Pending::GoStack { .. } => self.go_function = None,
            Pending::Frames { group, anchor } => {
                if class.kind == LineKind::Frame {
                    let trimmed = line.trim_ascii_start();
                    if trimmed.starts_with(b"Caused by: ") {
                        // The last cause is the root cause: it replaces earlier ones.
                        self.set_detail(group, anchor, number, trimmed, true);
                    }
                    self.pending = Pending::Frames { group, anchor };
                    self.counts.unleveled += 1;
                    self.other_template(number, line, in_head);
                    return;
                }
            }
        }
        match class.kind {
            LineKind::TracebackStart => {
                self.traceback_frame.clear();
                self.pending = Pending::Traceback {
                    start: number,
                    in_head,
                    level: traceback_level(previous_level),
                };
                self.traceback_text =
                    super::clip::shorten(&String::from_utf8_lossy(line), self.example_chars);
                self.other(number, line, in_head, class);
            }
            LineKind::Frame => self.other(number, line, in_head, LineClass::NONE),
            _ => {
                *self.counts.slot(class.level) += 1;
                if !self.tracks(&class) {
                    if self.track == Track::Everything {
                        self.record(number, line, in_head, &class, None);
                    }
                    return;
                }
                let Some(group) = self.record(number, line, in_head, &class, None) else {
                    return;
                };
                if class.how == How::LintRow
                    && class.level.is_some_and(|l| l >= Level::Error)
                    && line.first().is_some_and(|&b| b == b' ' || b == b'\t')
                    && let Some((header_line, header)) = &self.header
                {
                    // An indented row is about the file named above it.
                    let detail = self.numbered(*header_line, header);
                    self.put_details(group, number, vec![detail], false);
                }
                let want = match class.kind {
                    LineKind::Panic if line.starts_with(b"panic: ") => {
                        self.go_function = None;
                        self.pending = Pending::GoStack {
                            group,
                            anchor: number,
                            in_goroutine: false,
                            left: GO_STACK_LINES,
                        };
                        None
                    }
                    LineKind::Panic if line.ends_with(b":") => Some((Want::PanicMessage, 0)),
                    // Rust before 1.73: ``panicked at 'assertion failed: `(left == right)` `` with
                    // the values on the next lines.
                    LineKind::Panic
                        if memchr::memmem::find(line, b"assertion failed: `(left ").is_some() =>
                    {
                        Some((Want::AssertSides, 0))
                    }
                    LineKind::TestFailure if line.starts_with(b"--- FAIL") => {
                        Some((Want::GoTestMessage, 0))
                    }
                    LineKind::TestFailure
                        if class.how == How::Mark
                            && line.trim_ascii_start().starts_with("●".as_bytes()) =>
                    {
                        self.open_block(group, number, true);
                        None
                    }
                    _ if opens_block(line, &class) => {
                        self.open_block(group, number, false);
                        None
                    }
                    LineKind::Exception => {
                        self.pending = Pending::Frames {
                            group,
                            anchor: number,
                        };
                        None
                    }
                    _ => None,
                };
                if let Some((want, blank_left)) = want {
                    self.pending = Pending::Detail {
                        group,
                        anchor: number,
                        want,
                        blank_left,
                    };
                }
            }
        }
    }

    /// A line that belongs to an event (or has no level of its own): counted, and grouped only
    /// when every line is.
    fn other(&mut self, number: u64, line: &[u8], in_head: bool, class: LineClass) {
        *self.counts.slot(class.level) += 1;
        if self.track == Track::Everything {
            self.record(number, line, in_head, &class, None);
        }
    }

    fn other_template(&mut self, number: u64, line: &[u8], in_head: bool) {
        if self.track == Track::Everything {
            self.record(number, line, in_head, &LineClass::NONE, None);
        }
    }

    /// Lines a preview groups: notice and above, failed tests and summaries.
    fn tracks(&self, class: &LineClass) -> bool {
        match self.track {
            Track::Everything => true,
            Track::Notable => {
                class.level.is_some_and(|l| l >= Level::Notice)
                    || matches!(class.kind, LineKind::TestFailure | LineKind::Summary)
            }
        }
    }

    fn example(&self, number: u64, line: &[u8], from_line: Option<u64>) -> Example {
        // A JSON line too long to show whole shows the fields that say what happened.
        let condensed = (line.first() == Some(&b'{') && line.len() > self.example_chars)
            .then(|| super::json_line::condense(line))
            .flatten();
        let text = match condensed {
            Some(text) => text,
            None => String::from_utf8_lossy(line).into_owned(),
        };
        Example {
            line: NumberedLine {
                line: number,
                text: super::clip::shorten(&text, self.example_chars),
            },
            details: Vec::new(),
            from_line,
        }
    }

    /// Adds the line to its group (creating it under the cap) and returns the group's index.
    fn record(
        &mut self,
        number: u64,
        line: &[u8],
        in_head: bool,
        class: &LineClass,
        from_line: Option<u64>,
    ) -> Option<u32> {
        if let Some(level) = class.level
            && (level >= Level::Warning || class.kind == LineKind::TestFailure)
        {
            self.marks[level.rank()].note(number, class, line);
        }
        let kind_bits = match class.kind {
            LineKind::Summary => 1u64,
            LineKind::TestFailure => 2,
            LineKind::Plain
            | LineKind::Panic
            | LineKind::Exception
            | LineKind::Traceback
            | LineKind::TracebackStart
            | LineKind::Diagnostic
            | LineKind::Frame => 0,
        };
        let mix = (bucket(class.level) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ kind_bits.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        let key = template(line, &mut self.scratch) ^ mix;
        let mut places = Vec::new();
        let index = match self.index.get(&key) {
            Some(&index) => self.live(index),
            None => {
                if self.track == Track::Everything {
                    places = self.forms.places(&self.scratch, mix);
                    if let Some(merged) = self.forms.merged(&places) {
                        let merged = self.live(merged);
                        if self.index.len() < MAX_INDEXED_TEMPLATES {
                            self.index.insert(key, merged);
                        }
                        return Some(
                            self.count_in(merged, number, line, in_head, class, from_line),
                        );
                    }
                }
                let b = bucket(class.level);
                if self.per_bucket[b] >= self.cap_per_level {
                    self.ungrouped[b] += 1;
                    return None;
                }
                self.per_bucket[b] += 1;
                let template = (self.track == Track::Everything)
                    .then(|| String::from_utf8_lossy(&self.scratch).into_owned());
                let first = self.example(number, line, from_line);
                self.groups.push(Group {
                    level: class.level,
                    grade: class.grade,
                    kind: class.kind,
                    count: 0,
                    first_line: number,
                    last_line: number,
                    first,
                    after_head: None,
                    latest: [None, None],
                    template,
                    merged_into: None,
                });
                let index = (self.groups.len() - 1) as u32;
                self.index.insert(key, index);
                match self.forms.add(index, &places) {
                    Some((place, members)) => self.merge(place, &members),
                    None => index,
                }
            }
        };
        Some(self.count_in(index, number, line, in_head, class, from_line))
    }

    /// Counts line `number` in group `index`, keeping the examples it keeps.
    fn count_in(
        &mut self,
        index: u32,
        number: u64,
        line: &[u8],
        in_head: bool,
        class: &LineClass,
        from_line: Option<u64>,
    ) -> u32 {
        let keep_latest = self.track == Track::Notable;
        let example = (keep_latest
            || (!in_head && self.groups[index as usize].after_head.is_none()))
        .then(|| self.example(number, line, from_line));
        let group = &mut self.groups[index as usize];
        group.count += 1;
        group.last_line = number;
        group.grade = group.grade.max(class.grade);
        if !in_head && group.after_head.is_none() {
            group.after_head = example.clone();
        }
        if keep_latest {
            group.latest.swap(0, 1);
            group.latest[0] = example;
        }
        index
    }

    /// The group whose lines `index`'s are counted with (itself unless it was merged).
    fn live(&self, mut index: u32) -> u32 {
        while let Some(into) = self.groups.get(index as usize).and_then(|g| g.merged_into) {
            index = into;
        }
        index
    }

    /// Merges the groups of one form that differ at `place` into the first of them, whose
    /// template is masked there; returns it.
    fn merge(&mut self, place: super::forms::Place, members: &[u32]) -> u32 {
        let Some(&first) = members.first() else {
            return 0;
        };
        let master = self.live(first);
        for &member in &members[1..] {
            // A group already merged at another place has another form: it stays there.
            if member == master || self.groups[member as usize].merged_into.is_some() {
                continue;
            }
            let (count, first_line, last_line, grade, level) = {
                let g = &mut self.groups[member as usize];
                g.merged_into = Some(master);
                let count = std::mem::take(&mut g.count);
                (count, g.first_line, g.last_line, g.grade, g.level)
            };
            self.per_bucket[bucket(level)] = self.per_bucket[bucket(level)].saturating_sub(1);
            let g = &mut self.groups[master as usize];
            g.count += count;
            g.first_line = g.first_line.min(first_line);
            g.last_line = g.last_line.max(last_line);
            g.grade = g.grade.max(grade);
        }
        let g = &mut self.groups[master as usize];
        if let Some(template) = &g.template {
            g.template = Some(super::template::mask_word(template, place.word));
        }
        self.forms.set_merged(place, master);
        master
    }

    fn numbered(&self, number: u64, line: &[u8]) -> NumberedLine {
        NumberedLine {
            line: number,
            text: super::clip::shorten(&String::from_utf8_lossy(line), self.example_chars),
        }
    }

    /// Attaches `line` as the detail of the event at `anchor` in every example that holds it.
    fn set_detail(&mut self, group: u32, anchor: u64, number: u64, line: &[u8], replace: bool) {
        let detail = self.numbered(number, line.trim_ascii());
        self.put_detail(group, anchor, detail, replace);
    }

    /// Adds `more` (line `number`) to the detail of the event at `anchor` (`assertion … failed;
    /// left: 4; right: 3`), or makes it the detail when there is none yet.
    fn append_detail(&mut self, group: u32, anchor: u64, number: u64, more: &[u8]) {
        let example_chars = self.example_chars;
        let Some(group) = self.groups.get_mut(group as usize) else {
            return;
        };
        for example in group.examples_mut().filter(|e| e.line.line == anchor) {
            let more = String::from_utf8_lossy(more);
            match example.details.last_mut() {
                Some(detail) => {
                    let text = format!("{}; {more}", detail.text);
                    detail.text = super::clip::shorten(&text, example_chars);
                }
                None => example.details.push(NumberedLine {
                    line: number,
                    text: super::clip::shorten(&more, example_chars),
                }),
            }
        }
    }

    /// Makes `detail` the one detail of the event at `anchor`, when it has none or `replace`.
    fn put_detail(&mut self, group: u32, anchor: u64, detail: NumberedLine, replace: bool) {
        self.put_details(group, anchor, vec![detail], replace);
    }

    /// Makes `details` (in line order) the details of the event at `anchor` in every example that
    /// holds it, when it has none yet or `replace`.
    fn put_details(&mut self, group: u32, anchor: u64, details: Vec<NumberedLine>, replace: bool) {
        let Some(group) = self.groups.get_mut(group as usize) else {
            return;
        };
        for example in group.examples_mut() {
            if example.line.line == anchor && (replace || example.details.is_empty()) {
                example.details.clone_from(&details);
            }
        }
    }

    fn open_block(&mut self, group: u32, anchor: u64, jest: bool) {
        self.block.clear();
        self.pending = Pending::Block {
            group,
            anchor,
            scanned: 0,
            blanks: 0,
            jest,
        };
    }

    /// Ends the open block: its most telling lines become the headline's details.
    fn close_block(&mut self, group: u32, anchor: u64) {
        let mut block = std::mem::take(&mut self.block);
        if block.is_empty() {
            return;
        }
        let Some(level) = self.groups.get(group as usize).map(|g| g.level) else {
            return;
        };
        // A warning keeps one line, its location or label; a failure its block.
        let keep = if level.is_some_and(|l| l >= Level::Error) {
            MAX_DETAILS
        } else {
            block.retain(|(worth, _)| *worth >= 4);
            1
        };
        // Most telling first, earliest first among equals; then shown in line order.
        block.sort_by_key(|(worth, line)| (std::cmp::Reverse(*worth), line.line));
        block.truncate(keep);
        let mut details: Vec<NumberedLine> = block.into_iter().map(|(_, line)| line).collect();
        details.sort_by_key(|d| d.line);
        if let Some(last) = details.last()
            && level.is_some_and(|l| l >= Level::Warning)
        {
            self.block_span = self.block_span.max(last.line.saturating_sub(anchor));
        }
        self.put_details(group, anchor, details, false);
    }

    fn note_span(&mut self, class: &LineClass, anchor: u64, detail: u64) {
        if class.level.is_some_and(|l| l >= Level::Warning) {
            self.block_span = self.block_span.max(anchor.abs_diff(detail));
        }
    }

    /// True when `line` is quoted text whose words are not events: a commit message in `git log`
    /// or `git show` output (indented four blanks under `commit <hash>`, until a diff starts).
    /// (A `> ` line is not taken as a quote: Gradle prints its tasks so, `> Task :x FAILED`.)
    fn quoted(&mut self, line: &[u8]) -> bool {
        match line.first() {
            Some(b'c') if is_commit_header(line) => {
                self.in_commit_message = true;
                false
            }
            Some(b'd') if line.starts_with(b"diff --git ") => {
                self.in_commit_message = false;
                false
            }
            Some(b' ') => self.in_commit_message && line.starts_with(b"    "),
            _ => false,
        }
    }

    /// Ends the input: a traceback it cut short is anchored at its first line, and one that ended
    /// the output is the error it was.
    pub fn finish(&mut self) {
        if let Some(crash) = self.demoted.take() {
            // Logged below error, yet nothing with a level came after it: the program stopped
            // there, so it is the failure, whatever the line above it said.
            let slot = self.counts.slot(Some(crash.level));
            *slot = slot.saturating_sub(1);
            // Out of the group it was counted in (its line's template may be shared with others).
            if let Some(group) = crash.group.and_then(|g| self.groups.get_mut(g as usize)) {
                group.count = group.count.saturating_sub(1);
            }
            self.exception(
                crash.number,
                &crash.text,
                crash.in_head,
                crash.start,
                Level::Error,
                crash.frame,
            );
        }
        let pending = std::mem::replace(&mut self.pending, Pending::None);
        if let Pending::Block { group, anchor, .. } = pending {
            self.close_block(group, anchor);
        }
        if let Pending::Traceback {
            start,
            in_head,
            level,
        } = pending
        {
            // The traceback's first line was counted without a level; it becomes the event.
            self.counts.unleveled = self.counts.unleveled.saturating_sub(1);
            *self.counts.slot(Some(level)) += 1;
            let text = std::mem::take(&mut self.traceback_text);
            let class = LineClass {
                level: Some(level),
                kind: LineKind::Traceback,
                how: How::Phrase,
                start: 0,
                end: "Traceback".len() as u32,
                grade: 0,
            };
            if self.track == Track::Everything {
                // Move the line from its unleveled template to the error group.
                self.uncount_unleveled(start);
            }
            self.record(start, text.as_bytes(), in_head, &class, None);
        }
    }

    /// Records a traceback's exception line at `level`, with the frame that raised it as detail.
    fn exception(
        &mut self,
        number: u64,
        line: &[u8],
        in_head: bool,
        start: u64,
        level: Level,
        frame: Vec<NumberedLine>,
    ) -> Option<u32> {
        let name = line
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$'))
            .count();
        let class = LineClass {
            level: Some(level),
            kind: LineKind::Traceback,
            how: if name > 0 { How::Exception } else { How::None },
            start: 0,
            end: name as u32,
            grade: 0,
        };
        *self.counts.slot(Some(level)) += 1;
        if !self.tracks(&class) {
            return None;
        }
        let group = self.record(number, line, in_head, &class, Some(start));
        if let Some(group) = group
            && !frame.is_empty()
        {
            self.note_span(&class, number, frame[0].line);
            self.put_details(group, number, frame, false);
        }
        group
    }

    /// Takes one line at `number` back out of the unleveled group that holds it.
    fn uncount_unleveled(&mut self, number: u64) {
        if let Some(group) = self.groups.iter_mut().find(|g| {
            g.level.is_none()
                && g.first_line <= number
                && g.last_line >= number
                && g.first.line.text.starts_with("Traceback")
        }) {
            group.count = group.count.saturating_sub(1);
        }
    }

    /// The profile to store with the entry.
    pub fn profile(&self) -> TextProfile {
        TextProfile {
            levels: self.counts,
            grep: self.grep(),
            summary: self.summary_line(),
            capped: self.capped(),
            ..TextProfile::default()
        }
    }

    /// Line counts per level, most severe first.
    pub fn level_list(&self) -> Vec<(Level, u64)> {
        Level::ALL
            .iter()
            .map(|&l| (l, self.counts.get(l)))
            .collect()
    }

    /// The search that finds the most severe lines seen, with the context their blocks need; for
    /// a listing of paths without levels, the paths of its largest directory.
    pub fn grep(&self) -> Option<GrepSuggestion> {
        if let Some(mut grep) = suggest(&self.level_list(), &self.marks) {
            grep.context = self
                .block_span
                .clamp(DEFAULT_CONTEXT_LINES, MAX_CONTEXT_LINES) as u32;
            return Some(grep);
        }
        let (dir, count) = self
            .paths
            .is_listing()
            .then(|| self.paths.largest_directory())
            .flatten()?;
        Some(GrepSuggestion {
            pattern: format!("^{}/", regex::escape(&dir)),
            ignore_case: false,
            finds: format!("the {} paths under {dir}/", thousands(count)),
            context: 0,
        })
    }

    /// The most severe summary line (its latest occurrence), if the entry has one.
    pub fn summary_line(&self) -> Option<NumberedLine> {
        self.groups
            .iter()
            .filter(|g| g.kind == LineKind::Summary)
            .max_by_key(|g| (g.level, g.last_line))
            .map(|g| match &g.latest[0] {
                Some(latest) => latest.line.clone(),
                None => g.first.line.clone(),
            })
    }
}

/// True when `line` completes an event waiting for `want`.
fn completes(want: Want, line: &[u8]) -> bool {
    let trimmed = line.trim_ascii_start();
    match want {
        Want::PanicMessage => {
            !trimmed.is_empty()
                && !trimmed.starts_with(b"note: ")
                && !trimmed.starts_with(b"stack backtrace:")
        }
        Want::GoTestMessage => {
            line.first().is_some_and(|&b| b == b' ' || b == b'\t')
                && memchr::memmem::find(trimmed, b".go:").is_some()
        }
        Want::AssertSides => trimmed.starts_with(b"left:") || trimmed.starts_with(b"right:"),
    }
}

impl Group {
    /// The occurrences a group keeps: its first, its first after the head, its latest two.
    fn examples_mut(&mut self) -> impl Iterator<Item = &mut Example> {
        std::iter::once(&mut self.first)
            .chain(self.after_head.as_mut())
            .chain(self.latest.iter_mut().flatten())
    }
}

/// `commit 84fc13293c338a239cb35e2135d2f127fe49b168` (also with refs after it, as `--decorate`
/// prints them).
fn is_commit_header(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"commit ") else {
        return false;
    };
    let hex = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    (hex == 40 || hex == 64) && rest.get(hex).is_none_or(|&b| b == b' ')
}

/// True when a block opens under this recorded line: a failure's headline whose detail follows
/// on the next lines: a compiler's `error[E0308]: …` or `file.c:3:5: error: …`, a tool's
/// `ERROR: Cannot install …` or `error: No solution found …`.
fn opens_block(line: &[u8], class: &LineClass) -> bool {
    if class.level.is_none_or(|l| l < Level::Warning) {
        return false;
    }
    match class.kind {
        LineKind::Diagnostic => true,
        LineKind::Plain => {
            matches!(class.how, How::Label | How::FatalError | How::Upper)
                && !line.first().is_some_and(|&b| b == b' ' || b == b'\t')
        }
        LineKind::TestFailure
        | LineKind::Summary
        | LineKind::Panic
        | LineKind::Exception
        | LineKind::Traceback
        | LineKind::TracebackStart
        | LineKind::Frame => false,
    }
}

/// Whether `line` continues an open block, and what it is worth as its detail (0: shown never):
/// `Some((blank lines seen, worth))`, or `None` when the block ends before it.
fn block_line(line: &[u8], class: &LineClass, blanks: u8, jest: bool) -> Option<(u8, u8)> {
    let trimmed = line.trim_ascii();
    if trimmed.is_empty() {
        // A compiler's block ends at a blank line; a resolver's cause and jest's values come
        // after one.
        let limit = if jest { 8 } else { 1 };
        return (blanks < limit).then_some((blanks + 1, 0));
    }
    let indented = line.first().is_some_and(|&b| b == b' ' || b == b'\t');
    if jest {
        if !indented || trimmed.starts_with("●".as_bytes()) {
            return None;
        }
        // The `at` line says where; after it come the next test's lines.
        return Some((blanks, worth(trimmed)));
    }
    let gutter = {
        let digits = trimmed.iter().take_while(|b| b.is_ascii_digit()).count();
        trimmed[digits..].trim_ascii_start().starts_with(b"|")
    };
    // `The conflict is caused by:`, `help: you can convert …`: a block's own words at the margin.
    let intro = !indented && trimmed.ends_with(b":") && class.level.is_none();
    let note = !indented && (trimmed.starts_with(b"help:") || trimmed.starts_with(b"note:"));
    // A line with its own level or kind (a traceback, a frame) starts something else.
    let own_event = (class.level.is_some_and(|l| l >= Level::Warning) && !gutter)
        || class.kind != LineKind::Plain;
    if own_event || !(indented || gutter || intro || note) {
        return None;
    }
    if intro {
        // `The conflict is caused by:` introduces the cause; it is not the cause.
        return Some((blanks, u8::from(worth(trimmed) >= 4) * 4));
    }
    Some((blanks, worth(trimmed)))
}

/// How much a line of a block says about its failure: where it is (a location, a frame), what
/// differs (expected and received values, a label under the code), why (a cause).
fn worth(trimmed: &[u8]) -> u8 {
    let has = |needle: &[u8]| memchr::memmem::find(trimmed, needle).is_some();
    if trimmed.starts_with(b"--> ")
        || trimmed.starts_with(b"File \"")
        || (trimmed.starts_with(b"at ") && has(b":"))
    {
        return 5;
    }
    if trimmed.starts_with(b"Expected")
        || trimmed.starts_with(b"Received")
        || trimmed.starts_with(b"left:")
        || trimmed.starts_with(b"right:")
        || trimmed.starts_with(b"cause:")
        || has(b" because ")
        || trimmed.starts_with(b"Because ")
        || has(b" depends on ")
        || has(b"requested ")
        || has(b"requires ")
    {
        return 4;
    }
    // A label under the code: `|   ---   ^^^ expected `u32`, found `&str``.
    let carets = trimmed.iter().position(|&b| b == b'^');
    if let Some(at) = carets {
        let after = &trimmed[at..];
        let text = after
            .iter()
            .skip_while(|&&b| matches!(b, b'^' | b'~' | b'-' | b' '))
            .count();
        if text > 0 {
            return 4;
        }
    }
    // Jest's diff: `-   "discount": 0.15,` against `+   "discount": 0.1,`.
    if (trimmed.starts_with(b"- ") || trimmed.starts_with(b"+ "))
        && !has(b"Expected")
        && !has(b"Received")
    {
        return 3;
    }
    if trimmed.starts_with(b"= ") || trimmed.starts_with(b"help:") || trimmed.starts_with(b"note:")
    {
        return 2;
    }
    // A source line in a gutter: `5 |     let x = …`.
    let digits = trimmed.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 && trimmed[digits..].trim_ascii_start().starts_with(b"| ") {
        return 1;
    }
    0
}
