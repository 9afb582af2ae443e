//! The engine's values as Python objects: read-only views of the core types, with the attribute
//! names a Python caller expects, a `repr` that shows what matters and `to_dict()` for JSON.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use scratchpad_core as core;

use crate::kwargs::kwargs_dict;
use crate::speak::Python as PythonSpeak;

/// A JSON value as the Python object `json.loads` would give.
pub fn json_to_py<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(|err| {
        pyo3::exceptions::PyValueError::new_err(format!("cannot convert JSON: {err}"))
    })
}

/// Levels of nesting a Python value may have to become JSON: what the engine's JSON reader accepts.
/// The conversion recurses, so a deeper value (or one that contains itself) would overflow the
/// stack and take the interpreter down instead of raising.
const MAX_JSON_DEPTH: usize = 128;

/// A Python object (dict with string keys, list, tuple, str, int, float, bool, None) as JSON.
pub fn py_to_json(value: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    check_depth(value)?;
    pythonize::depythonize(value).map_err(|err| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "not a JSON value ({err}): pass dicts with string keys, lists, strings, numbers, \
             booleans and None"
        ))
    })
}

/// Refuses a value nested deeper than [`MAX_JSON_DEPTH`], walking it without recursion.
fn check_depth(value: &Bound<'_, PyAny>) -> PyResult<()> {
    let mut stack = vec![(value.clone(), 1usize)];
    while let Some((item, depth)) = stack.pop() {
        let children: Vec<Bound<'_, PyAny>> = if let Ok(dict) = item.cast::<PyDict>() {
            dict.values().iter().collect()
        } else if item.is_instance_of::<PyList>()
            || item.is_instance_of::<pyo3::types::PyTuple>()
            || item.is_instance_of::<pyo3::types::PySet>()
            || item.is_instance_of::<pyo3::types::PyFrozenSet>()
        {
            item.try_iter()?.collect::<PyResult<_>>()?
        } else {
            continue;
        };
        if !children.is_empty() && depth >= MAX_JSON_DEPTH {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "not a JSON value: nested more than {MAX_JSON_DEPTH} levels deep (or it contains \
                 itself); pass a flatter value"
            )));
        }
        stack.extend(children.into_iter().map(|child| (child, depth + 1)));
    }
    Ok(())
}

/// Everything known about an entry except its content. Times are Unix milliseconds.
#[pyclass(frozen, module = "scratchpad", name = "EntryInfo")]
#[derive(Debug)]
pub struct EntryInfo(pub core::EntryInfo);

#[pymethods]
impl EntryInfo {
    #[getter]
    fn session(&self) -> &str {
        &self.0.session
    }
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }
    #[getter]
    fn id(&self) -> &str {
        &self.0.id
    }
    /// `text`, `json` or `binary`.
    #[getter]
    fn kind(&self) -> &str {
        self.0.kind.as_str()
    }
    #[getter]
    fn bytes(&self) -> u64 {
        self.0.bytes
    }
    #[getter]
    fn chars(&self) -> u64 {
        self.0.chars
    }
    #[getter]
    fn lines(&self) -> u64 {
        self.0.lines
    }
    /// blake3 of the content, hex.
    #[getter]
    fn hash(&self) -> &str {
        &self.0.hash
    }
    #[getter]
    fn preview(&self) -> &str {
        &self.0.preview
    }
    /// The tool whose output this is, for offloads.
    #[getter]
    fn tool(&self) -> Option<&str> {
        self.0.source.tool.as_deref()
    }
    #[getter]
    fn server(&self) -> Option<&str> {
        self.0.source.server.as_deref()
    }
    #[getter]
    fn args_digest(&self) -> Option<&str> {
        self.0.source.args_digest.as_deref()
    }
    /// The caller's metadata (`None` when there is none).
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.0.meta)
    }
    #[getter]
    fn turn(&self) -> Option<&str> {
        self.0.turn.as_deref()
    }
    #[getter]
    fn created_at(&self) -> i64 {
        self.0.created_at
    }
    #[getter]
    fn updated_at(&self) -> i64 {
        self.0.updated_at
    }
    #[getter]
    fn accessed_at(&self) -> i64 {
        self.0.accessed_at
    }
    /// `None` when it never expires.
    #[getter]
    fn expires_at(&self) -> Option<i64> {
        self.0.expires_at
    }
    #[getter]
    fn pinned(&self) -> bool {
        self.0.pinned
    }
    /// Bumps on every change; pass it as `if_version` to write safely.
    #[getter]
    fn version(&self) -> u64 {
        self.0.version
    }
    /// The sniffed type of binary content (`image/png`).
    #[getter]
    fn mime(&self) -> Option<&str> {
        self.0.mime.as_deref()
    }
    /// Estimated tokens of the whole content.
    #[getter]
    fn tokens_est(&self) -> u64 {
        self.0.tokens_est()
    }

    /// The entry as a dict of JSON values (what `scratchpad --json` prints).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = serde_json::to_value(&self.0).map_err(|err| {
            pyo3::exceptions::PyValueError::new_err(format!("cannot convert the entry: {err}"))
        })?;
        json_to_py(py, &value)
    }

    fn __repr__(&self) -> String {
        let info = &self.0;
        format!(
            "EntryInfo(name={:?}, kind={:?}, bytes={}, lines={}, version={}, pinned={})",
            info.name,
            info.kind.as_str(),
            info.bytes,
            info.lines,
            info.version,
            if info.pinned { "True" } else { "False" }
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Self>()
            .is_ok_and(|other| other.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (&self.0.session, &self.0.name, self.0.version, &self.0.hash).hash(&mut hasher);
        hasher.finish()
    }
}

/// One line of grep output.
#[pyclass(frozen, get_all, module = "scratchpad", name = "GrepLine")]
#[derive(Debug)]
pub struct GrepLine {
    /// 1-based line number in the entry.
    pub number: u64,
    pub text: String,
    /// False for context lines.
    pub matched: bool,
}

#[pymethods]
impl GrepLine {
    fn __repr__(&self) -> String {
        format!(
            "GrepLine(number={}, matched={}, text={:?})",
            self.number,
            if self.matched { "True" } else { "False" },
            self.text
        )
    }
}

/// What a read returned: the text, which part of the entry it covers and, when the reply budget
/// cut it short, the read that continues it.
#[pyclass(frozen, module = "scratchpad", name = "ReadReply")]
#[derive(Debug)]
pub struct ReadReply(pub core::ReadReply);

#[pymethods]
impl ReadReply {
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }
    #[getter]
    fn kind(&self) -> &str {
        self.0.kind.as_str()
    }
    /// The content read: a slice, lines (numbered in `numbered_text`), grep output (`N:` for
    /// matches, `N-` for context, `--` between groups), jq results or base64.
    #[getter]
    fn text(&self) -> &str {
        &self.0.text
    }
    /// Which part of the entry this covers, e.g. "lines 100–120 of 5,000".
    #[getter]
    fn location(&self) -> &str {
        &self.0.location
    }
    /// True when the budget cut the reply short of what was asked.
    #[getter]
    fn truncated(&self) -> bool {
        self.0.truncated
    }
    /// The keyword arguments of the next read when cut: `pad.read(reply.name, **reply.continuation)`.
    /// A read of an old version continues on that version (`version` is among them).
    #[getter]
    fn continuation<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(mode) = &self.0.continuation else {
            return Ok(None);
        };
        let kwargs = kwargs_dict(py, mode)?;
        if let Some(version) = self.0.version {
            kwargs.set_item("version", version)?;
        }
        Ok(Some(kwargs))
    }
    /// The version read, when it was not the current one (`read(..., version=N)`).
    #[getter]
    fn version(&self) -> Option<u64> {
        self.0.version
    }
    /// Clamping and other remarks.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.0.notes.clone()
    }
    /// Lines reads: the number of the first line of `text`.
    #[getter]
    fn first_line(&self) -> Option<u64> {
        self.0.first_line
    }
    /// Grep: matching lines in the whole entry (also those not shown).
    #[getter]
    fn total_matches(&self) -> Option<u64> {
        self.0.total_matches
    }
    /// Grep: matching lines this reply shows.
    #[getter]
    fn shown_matches(&self) -> Option<u64> {
        self.0.shown_matches
    }
    /// Grep: the lines shown, as data.
    #[getter]
    fn grep_lines(&self) -> Vec<GrepLine> {
        self.0
            .grep_lines
            .iter()
            .map(|line| GrepLine {
                number: line.number,
                text: line.text.clone(),
                matched: line.matched,
            })
            .collect()
    }
    /// `text` with line numbers for lines reads (`100: …`), else `text` as it is.
    #[getter]
    fn numbered_text(&self) -> String {
        self.0.numbered_text().into_owned()
    }

    /// Header, content and continuation as one text, for a person or a model.
    fn __str__(&self) -> String {
        self.0.render(&PythonSpeak)
    }

    fn __repr__(&self) -> String {
        format!(
            "ReadReply(name={:?}, location={:?}, truncated={})",
            self.0.name,
            self.0.location,
            if self.0.truncated { "True" } else { "False" }
        )
    }
}

/// One page of a listing, newest first. Iterate it for the entries.
#[pyclass(frozen, module = "scratchpad", name = "Page")]
#[derive(Debug)]
pub struct Page {
    entries: Vec<Py<EntryInfo>>,
    next_cursor: Option<String>,
}

impl Page {
    pub fn new(py: Python<'_>, page: core::Page) -> PyResult<Self> {
        Ok(Self {
            entries: page
                .entries
                .into_iter()
                .map(|info| Py::new(py, EntryInfo(info)))
                .collect::<PyResult<_>>()?,
            next_cursor: page.next_cursor,
        })
    }
}

#[pymethods]
impl Page {
    #[getter]
    fn entries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.entries.iter().map(|e| e.clone_ref(py)))
    }
    /// Pass as `cursor` to `list` for the next page; `None` on the last one.
    #[getter]
    fn next_cursor(&self) -> Option<&str> {
        self.next_cursor.as_deref()
    }
    fn __len__(&self) -> usize {
        self.entries.len()
    }
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.entries(py)?.try_iter()?.into_any())
    }
    fn __repr__(&self) -> String {
        format!(
            "Page({} entries, next_cursor={:?})",
            self.entries.len(),
            self.next_cursor
        )
    }
}

/// A search hit: the entry and an excerpt with the matched words between « and ».
#[pyclass(frozen, get_all, module = "scratchpad", name = "SearchHit")]
#[derive(Debug)]
pub struct SearchHit {
    pub entry: Py<EntryInfo>,
    pub snippet: String,
}

#[pymethods]
impl SearchHit {
    fn __repr__(&self) -> String {
        format!(
            "SearchHit(name={:?}, snippet={:?})",
            self.entry.get().0.name,
            self.snippet
        )
    }
}

/// Figures for the session, and the store's size.
#[pyclass(frozen, get_all, module = "scratchpad", name = "Stats")]
#[derive(Debug)]
pub struct Stats {
    pub session: String,
    pub entries: u64,
    pub pinned: u64,
    pub bytes: u64,
    pub tokens_est: u64,
    /// Estimated tokens of the stored content minus what its previews show.
    pub tokens_kept_out: u64,
    /// Unique content bytes in the whole store (after dedup).
    pub store_bytes: u64,
    pub quota_bytes: Option<u64>,
}

impl From<core::Stats> for Stats {
    fn from(stats: core::Stats) -> Self {
        Self {
            session: stats.session,
            entries: stats.figures.entries,
            pinned: stats.figures.pinned,
            bytes: stats.figures.bytes,
            tokens_est: stats.figures.tokens_est,
            tokens_kept_out: stats.figures.tokens_kept_out,
            store_bytes: stats.store_bytes,
            quota_bytes: stats.quota_bytes,
        }
    }
}

#[pymethods]
impl Stats {
    fn __repr__(&self) -> String {
        format!(
            "Stats(session={:?}, entries={}, bytes={}, tokens_kept_out={})",
            self.session, self.entries, self.bytes, self.tokens_kept_out
        )
    }
}

/// What an edit did: the entry as it is now and how many occurrences were replaced.
#[pyclass(frozen, get_all, module = "scratchpad", name = "EditResult")]
#[derive(Debug)]
pub struct EditResult {
    pub entry: Py<EntryInfo>,
    pub replacements: usize,
}

#[pymethods]
impl EditResult {
    fn __repr__(&self) -> String {
        format!(
            "EditResult(name={:?}, version={}, replacements={})",
            self.entry.get().0.name,
            self.entry.get().0.version,
            self.replacements
        )
    }
}

/// What `offload_result` did: the text for the context, and the entry when one was stored.
#[pyclass(frozen, get_all, module = "scratchpad", name = "OffloadResult")]
#[derive(Debug)]
pub struct OffloadResult {
    /// The content itself when small enough, else the reference (the JSON the MCP server shows).
    pub shown: String,
    /// True when the content was stored and `shown` is the reference.
    pub stored: bool,
    /// The stored entry: the offloaded content, or the whole output saved under `name`.
    pub entry: Option<Py<EntryInfo>>,
}

#[pymethods]
impl OffloadResult {
    fn __repr__(&self) -> String {
        format!(
            "OffloadResult(stored={}, entry={:?})",
            if self.stored { "True" } else { "False" },
            self.entry.as_ref().map(|e| e.get().0.name.clone())
        )
    }
}

/// One version of an entry: the current one or one it keeps. Times are Unix milliseconds.
#[pyclass(frozen, module = "scratchpad", name = "Version")]
#[derive(Debug)]
pub struct Version(pub core::VersionInfo);

#[pymethods]
impl Version {
    #[getter]
    fn version(&self) -> u64 {
        self.0.version
    }
    /// When this version was written.
    #[getter]
    fn written_at(&self) -> i64 {
        self.0.written_at
    }
    /// Who wrote it, when known.
    #[getter]
    fn author(&self) -> Option<&str> {
        self.0.author.as_deref()
    }
    #[getter]
    fn kind(&self) -> &str {
        self.0.kind.as_str()
    }
    #[getter]
    fn bytes(&self) -> u64 {
        self.0.bytes
    }
    #[getter]
    fn chars(&self) -> u64 {
        self.0.chars
    }
    #[getter]
    fn lines(&self) -> u64 {
        self.0.lines
    }
    #[getter]
    fn hash(&self) -> &str {
        &self.0.hash
    }
    /// What the change that produced it did, in one line: `+3 −1 lines`, `restored version 2`;
    /// `None` for versions written before changes were recorded.
    #[getter]
    fn summary(&self) -> Option<String> {
        self.0.change.as_ref().map(ToString::to_string)
    }

    fn __repr__(&self) -> String {
        format!(
            "Version(version={}, author={:?}, bytes={}, summary={:?})",
            self.0.version,
            self.0.author,
            self.0.bytes,
            self.summary()
        )
    }
}

/// An entry's versions, newest first: the current one, then those it keeps. Iterate it for them.
#[pyclass(frozen, module = "scratchpad", name = "History")]
#[derive(Debug)]
pub struct History {
    entry: Py<EntryInfo>,
    versions: Vec<Py<Version>>,
    keeps_history: bool,
}

impl History {
    pub fn new(py: Python<'_>, history: core::History) -> PyResult<Self> {
        Ok(Self {
            entry: Py::new(py, EntryInfo(history.entry))?,
            versions: history
                .versions
                .into_iter()
                .map(|version| Py::new(py, Version(version)))
                .collect::<PyResult<_>>()?,
            keeps_history: history.keeps_history,
        })
    }
}

#[pymethods]
impl History {
    /// The entry as it is now.
    #[getter]
    fn entry(&self, py: Python<'_>) -> Py<EntryInfo> {
        self.entry.clone_ref(py)
    }
    #[getter]
    fn versions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.versions.iter().map(|v| v.clone_ref(py)))
    }
    /// Whether changes keep the version they replace (notes do; outputs of tools only when asked).
    #[getter]
    fn keeps_history(&self) -> bool {
        self.keeps_history
    }
    fn __len__(&self) -> usize {
        self.versions.len()
    }
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.versions(py)?.try_iter()?.into_any())
    }
    fn __repr__(&self) -> String {
        format!(
            "History(name={:?}, version={}, versions={})",
            self.entry.get().0.name,
            self.entry.get().0.version,
            self.versions.len()
        )
    }
}

/// One side of a diff: which entry, which version, who wrote it and when (Unix milliseconds).
#[pyclass(frozen, get_all, module = "scratchpad", name = "DiffSide")]
#[derive(Debug)]
pub struct DiffSide {
    pub name: String,
    pub version: u64,
    /// Whether this is the entry's current version.
    pub current: bool,
    pub kind: String,
    pub bytes: u64,
    pub lines: u64,
    pub author: Option<String>,
    pub written_at: i64,
}

impl From<&core::diff::DiffSide> for DiffSide {
    fn from(side: &core::diff::DiffSide) -> Self {
        Self {
            name: side.name.clone(),
            version: side.version,
            current: side.current,
            kind: side.kind.as_str().to_owned(),
            bytes: side.bytes,
            lines: side.lines,
            author: side.author.clone(),
            written_at: side.written_at,
        }
    }
}

#[pymethods]
impl DiffSide {
    fn __repr__(&self) -> String {
        format!("DiffSide(name={:?}, version={})", self.name, self.version)
    }
}

/// A unified line diff of two entries or two versions. `str()` gives the header, the hunks and,
/// when the budget cut it, the call that continues it.
#[pyclass(frozen, module = "scratchpad", name = "Diff")]
#[derive(Debug)]
pub struct Diff(pub core::DiffReply);

#[pymethods]
impl Diff {
    #[getter]
    fn a(&self) -> DiffSide {
        (&self.0.a).into()
    }
    #[getter]
    fn b(&self) -> DiffSide {
        (&self.0.b).into()
    }
    /// Unified hunks (`@@ -a,n +b,m @@`, then ` `, `-` and `+` lines), without a file header.
    #[getter]
    fn text(&self) -> &str {
        &self.0.text
    }
    /// The two sides hold the same content.
    #[getter]
    fn identical(&self) -> bool {
        self.0.identical
    }
    /// Both sides are JSON and were compared with keys sorted, one value per line.
    #[getter]
    fn normalized_json(&self) -> bool {
        self.0.normalized_json
    }
    #[getter]
    fn added(&self) -> u64 {
        self.0.added
    }
    #[getter]
    fn removed(&self) -> u64 {
        self.0.removed
    }
    #[getter]
    fn hunks(&self) -> u64 {
        self.0.hunks
    }
    /// True when the budget cut the diff short.
    #[getter]
    fn truncated(&self) -> bool {
        self.0.truncated
    }
    /// When cut, the `cursor` of the call that continues it (`"A:B"`).
    #[getter]
    fn continuation(&self) -> Option<String> {
        self.0.continuation.map(|cursor| cursor.to_string())
    }
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.0.notes.clone()
    }
    /// What differs and which lines this covers, in one line.
    #[getter]
    fn summary(&self) -> String {
        self.0.summary()
    }

    fn __str__(&self) -> String {
        self.0.render(&PythonSpeak)
    }

    fn __repr__(&self) -> String {
        format!(
            "Diff(a={:?}, b={:?}, added={}, removed={}, truncated={})",
            (&self.0.a.name, self.0.a.version),
            (&self.0.b.name, self.0.b.version),
            self.0.added,
            self.0.removed,
            if self.0.truncated { "True" } else { "False" }
        )
    }
}

/// A lease on a name, as the store saw it. Times are Unix milliseconds by the store's clock.
#[pyclass(frozen, module = "scratchpad", name = "Lease")]
#[derive(Debug)]
pub struct Lease(pub core::Lease);

#[pymethods]
impl Lease {
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }
    /// Who holds or last held it.
    #[getter]
    fn holder(&self) -> Option<&str> {
        self.0.holder.as_deref()
    }
    /// When its holder released it; `None` while it is claimed.
    #[getter]
    fn released_at(&self) -> Option<i64> {
        self.0.released_at
    }
    /// The fencing token: pass it as `lease=` with the writes the lease guards.
    #[getter]
    fn token(&self) -> u64 {
        self.0.token
    }
    #[getter]
    fn acquired_at(&self) -> i64 {
        self.0.acquired_at
    }
    #[getter]
    fn expires_at(&self) -> i64 {
        self.0.expires_at
    }
    /// `held`, `expired` or `released`.
    #[getter]
    fn state(&self) -> &'static str {
        self.0.state().as_str()
    }
    /// Seconds left by the store's clock (0 once expired or released).
    #[getter]
    fn remaining(&self) -> f64 {
        self.0.remaining_ms() as f64 / 1000.0
    }

    fn __repr__(&self) -> String {
        format!(
            "Lease(name={:?}, holder={:?}, token={}, state={:?})",
            self.0.name,
            self.0.holder,
            self.0.token,
            self.0.state().as_str()
        )
    }
}

/// One damaged content and the `(session, name)` of every entry or kept version it hits.
#[pyclass(frozen, get_all, module = "scratchpad", name = "CheckProblem")]
#[derive(Debug)]
pub struct CheckProblem {
    pub what: String,
    pub entries: Vec<(String, String)>,
}

#[pymethods]
impl CheckProblem {
    fn __repr__(&self) -> String {
        format!(
            "CheckProblem(what={:?}, entries={:?})",
            self.what, self.entries
        )
    }
}

/// What `check` read back and what it found damaged.
#[pyclass(frozen, get_all, module = "scratchpad", name = "CheckReport")]
#[derive(Debug)]
pub struct CheckReport {
    /// Contents read whole and verified.
    pub blobs: u64,
    pub chunks: u64,
    pub bytes: u64,
    /// Chunks written before checksums were kept: only their hash says they are intact.
    pub chunks_without_checksum: u64,
    pub problems: Vec<Py<CheckProblem>>,
    /// Side files no content refers to (a collection pass removes them), and their bytes.
    pub unreferenced_files: u64,
    pub unreferenced_bytes: u64,
}

impl CheckReport {
    pub fn new(py: Python<'_>, report: core::CheckReport) -> PyResult<Self> {
        Ok(Self {
            blobs: report.blobs,
            chunks: report.chunks,
            bytes: report.bytes,
            chunks_without_checksum: report.chunks_without_checksum,
            problems: report
                .problems
                .into_iter()
                .map(|problem| {
                    Py::new(
                        py,
                        CheckProblem {
                            what: problem.what,
                            entries: problem.entries,
                        },
                    )
                })
                .collect::<PyResult<_>>()?,
            unreferenced_files: report.unreferenced_files,
            unreferenced_bytes: report.unreferenced_bytes,
        })
    }
}

#[pymethods]
impl CheckReport {
    /// No damage found.
    #[getter]
    fn ok(&self) -> bool {
        self.problems.is_empty()
    }
    fn __repr__(&self) -> String {
        format!(
            "CheckReport(blobs={}, bytes={}, problems={})",
            self.blobs,
            self.bytes,
            self.problems.len()
        )
    }
}

/// What removing an entry did: the versions kept restorable and until when (Unix milliseconds),
/// or what was deleted for good. `message` is the one-line reply, with the calls that restore or
/// purge it.
#[pyclass(frozen, module = "scratchpad", name = "Removal")]
#[derive(Debug)]
pub struct Removal {
    name: String,
    kept: Option<core::RemovedEntry>,
    versions_deleted: u64,
    bytes_freed: u64,
    message: String,
}

impl Removal {
    pub fn removed(removed: &core::Removed) -> Self {
        Self {
            name: removed.entry.name.clone(),
            kept: removed.kept.clone(),
            versions_deleted: removed.versions_deleted,
            bytes_freed: removed.bytes_freed,
            message: removed.advice().render(&PythonSpeak),
        }
    }

    pub fn purged(purged: &core::Purged) -> Self {
        Self {
            name: purged.name.clone(),
            kept: None,
            versions_deleted: purged.versions,
            bytes_freed: purged.bytes_freed,
            message: purged.advice().render(&PythonSpeak),
        }
    }
}

#[pymethods]
impl Removal {
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }
    /// Versions kept restorable; `None` when nothing was kept (a purge, or a tool's output).
    #[getter]
    fn kept_versions(&self) -> Option<u64> {
        self.kept.as_ref().map(|kept| kept.versions)
    }
    /// When the kept versions go; `None` when nothing was kept or they are kept until purged.
    #[getter]
    fn kept_until(&self) -> Option<i64> {
        self.kept.as_ref().and_then(|kept| kept.keep_until)
    }
    /// The removed entry's id, which picks this removal for `restore_removed`.
    #[getter]
    fn id(&self) -> Option<&str> {
        self.kept.as_ref().map(|kept| kept.id.as_str())
    }
    #[getter]
    fn versions_deleted(&self) -> u64 {
        self.versions_deleted
    }
    #[getter]
    fn bytes_freed(&self) -> u64 {
        self.bytes_freed
    }
    #[getter]
    fn message(&self) -> &str {
        &self.message
    }
    fn __str__(&self) -> &str {
        &self.message
    }
    fn __repr__(&self) -> String {
        format!("Removal({:?})", self.message)
    }
}

/// A removed note whose versions are kept. Times are Unix milliseconds.
#[pyclass(frozen, module = "scratchpad", name = "RemovedEntry")]
#[derive(Debug)]
pub struct RemovedEntry(pub core::RemovedEntry);

#[pymethods]
impl RemovedEntry {
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }
    /// Tells apart two removals of one name; `restore_removed` takes it as the name.
    #[getter]
    fn id(&self) -> &str {
        &self.0.id
    }
    #[getter]
    fn kind(&self) -> &str {
        self.0.kind.as_str()
    }
    /// The version that was current when it was removed.
    #[getter]
    fn version(&self) -> u64 {
        self.0.version
    }
    /// Versions kept, that one included.
    #[getter]
    fn versions(&self) -> u64 {
        self.0.versions
    }
    #[getter]
    fn bytes(&self) -> u64 {
        self.0.bytes
    }
    #[getter]
    fn removed_at(&self) -> i64 {
        self.0.removed_at
    }
    #[getter]
    fn removed_by(&self) -> Option<&str> {
        self.0.removed_by.as_deref()
    }
    /// When a collection pass drops it; `None`: kept until purged.
    #[getter]
    fn keep_until(&self) -> Option<i64> {
        self.0.keep_until
    }
    fn __repr__(&self) -> String {
        format!(
            "RemovedEntry(name={:?}, id={:?}, versions={}, removed_by={:?})",
            self.0.name, self.0.id, self.0.versions, self.0.removed_by
        )
    }
}

/// A removed note and its versions, newest first. Iterate it for them.
#[pyclass(frozen, module = "scratchpad", name = "RemovedHistory")]
#[derive(Debug)]
pub struct RemovedHistory {
    removed: Py<RemovedEntry>,
    versions: Vec<Py<Version>>,
}

impl RemovedHistory {
    pub fn new(py: Python<'_>, history: core::RemovedHistory) -> PyResult<Self> {
        Ok(Self {
            removed: Py::new(py, RemovedEntry(history.removed))?,
            versions: history
                .versions
                .into_iter()
                .map(|version| Py::new(py, Version(version)))
                .collect::<PyResult<_>>()?,
        })
    }
}

#[pymethods]
impl RemovedHistory {
    #[getter]
    fn removed(&self, py: Python<'_>) -> Py<RemovedEntry> {
        self.removed.clone_ref(py)
    }
    #[getter]
    fn versions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.versions.iter().map(|v| v.clone_ref(py)))
    }
    fn __len__(&self) -> usize {
        self.versions.len()
    }
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.versions(py)?.try_iter()?.into_any())
    }
}
