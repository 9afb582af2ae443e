//! What the classifier says of a line, as data: its level, its kind, and how the level was
//! recognised. The nouns every part of the preview names; the classifier itself is
//! [`super::severity`].

use serde::{Deserialize, Serialize};

/// How severe a line is, least severe first (so `Ord` sorts by severity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Trace,
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Fatal,
}

impl Level {
    /// Every level, most severe first.
    pub const ALL: [Level; 7] = [
        Level::Fatal,
        Level::Error,
        Level::Warning,
        Level::Notice,
        Level::Info,
        Level::Debug,
        Level::Trace,
    ];

    /// The level's name as previews print it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Fatal => "fatal",
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
            Level::Info => "info",
            Level::Debug => "debug",
            Level::Trace => "trace",
        }
    }

    /// Position in [`Level::ALL`] (0 = fatal).
    pub fn rank(self) -> usize {
        match self {
            Level::Fatal => 0,
            Level::Error => 1,
            Level::Warning => 2,
            Level::Notice => 3,
            Level::Info => 4,
            Level::Debug => 5,
            Level::Trace => 6,
        }
    }

    /// A syslog / journald priority (0 emerg … 7 debug).
    pub fn from_syslog(priority: u8) -> Level {
        match priority & 7 {
            0..=2 => Level::Fatal,
            3 => Level::Error,
            4 => Level::Warning,
            5 => Level::Notice,
            6 => Level::Info,
            _ => Level::Debug,
        }
    }

    /// A bunyan / pino numeric level (10 trace … 60 fatal).
    pub(crate) fn from_bunyan(n: u32) -> Level {
        match n {
            60.. => Level::Fatal,
            50.. => Level::Error,
            40.. => Level::Warning,
            30.. => Level::Info,
            20.. => Level::Debug,
            _ => Level::Trace,
        }
    }
}

/// What a line is, beyond its level: the multi-line kinds say which lines belong with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// A line that stands alone.
    Plain,
    /// Names a failing test (`test a::b ... FAILED`, `--- FAIL: TestX`, `● suite › test`).
    TestFailure,
    /// A test run's or build's result (`test result: FAILED. …`, `=== 1 failed … ===`, `Tests: …`).
    Summary,
    /// A panic (`thread 'x' panicked at …`, Go `panic: …`); its message may follow on the next line.
    Panic,
    /// The first line of an exception whose stack frames follow (JVM, JavaScript).
    Exception,
    /// The final line of a Python traceback, the exception itself.
    Traceback,
    /// `Traceback (most recent call last):`, the start of a Python traceback.
    TracebackStart,
    /// A compiler diagnostic at the start of a line (`error[E0308]: …`) whose location follows.
    Diagnostic,
    /// A stack frame or a continuation of the event above (`\tat …`, `Caused by: …`, `… 3 more`).
    Frame,
}

/// Which convention recognised a line's level: the hint turns it back into a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum How {
    None,
    /// An upper-case level word; the span is the word.
    Upper,
    /// A level word in brackets; the span includes the brackets.
    Bracket,
    /// `key=value`; the span is the whole pair.
    KeyValue,
    /// `"key": value`; the span runs from the key's opening quote to the value's end.
    JsonKey,
    /// `error: …`, `error[E0308]: …`, `error TS2322: …`; the span is the level word.
    Label,
    /// `fatal error:`; the span is both words.
    FatalError,
    /// A capitalised level word in a column; the span is the word.
    Column,
    /// Logcat `E/Tag`; the span is the letter.
    LogcatBrief,
    /// Logcat threadtime `1234  1245 E Tag`; the span is the letter.
    LogcatThreadtime,
    /// klog `E1121 10:00:01.123456`; the span is the letter.
    Klog,
    /// Syslog `<3>`; the span is the priority with its brackets.
    SyslogPriority,
    /// Syslog `kern.err`; the span is the pair.
    Facility,
    /// An exception class name used as a label (`ValueError: …`); the span is the dotted name.
    Exception,
    /// A fixed phrase at a fixed place; the span is the phrase.
    Phrase,
    /// A failure phrase in a message without a level (`timed out`); the span is the phrase.
    FailurePhrase,
    /// pytest's `E   ` explanation lines; the span is the letter.
    PytestE,
    /// A test run's or build's count of failures (`1 failed`, `Failures: 2`); the span is the count.
    FailureCount,
    /// An access log's HTTP status; the span is the three digits.
    HttpStatus,
    /// A test runner's failure mark (`✕`, `●`); the span is the mark.
    Mark,
    /// A linter row's level cell after its location (`  27:11  error  …`, `a.md:4 error …`); the
    /// span is the word or mark.
    LintRow,
}

/// A classified line: its level (if any), its kind and where the level was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineClass {
    pub level: Option<Level>,
    pub kind: LineKind,
    pub(crate) how: How,
    pub(crate) start: u32,
    pub(crate) end: u32,
    /// How severe within its level, higher first: fatal is where syslog's emerg, alert and crit
    /// and PostgreSQL's PANIC and FATAL all land, and they are not equally bad.
    pub(crate) grade: u8,
}

impl LineClass {
    pub const NONE: LineClass = LineClass {
        level: None,
        kind: LineKind::Plain,
        how: How::None,
        start: 0,
        end: 0,
        grade: 0,
    };

    pub(crate) fn new(
        level: Level,
        kind: LineKind,
        how: How,
        start: usize,
        end: usize,
    ) -> LineClass {
        LineClass {
            level: Some(level),
            kind,
            how,
            start: start as u32,
            end: end as u32,
            grade: 0,
        }
    }

    pub(crate) fn kind_only(kind: LineKind) -> LineClass {
        LineClass {
            kind,
            ..LineClass::NONE
        }
    }
}
