//! `Scratchpad`: one store seen from one session, every engine call a method. Arguments become
//! engine values while the GIL is held; the storage and search work runs with it released
//! ([`crate::calls::run`]), so other Python threads go on meanwhile, one object may be shared by
//! many threads, Ctrl-C stops a long read or put, and a forked child keeps a working object.

use std::borrow::Cow;
use std::io::Read as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyByteArray, PyBytes, PyString};
use scratchpad_core::read::Stop;
use scratchpad_core::{self as core, Ttl};
use scratchpad_mcp_speak::Mcp;

use crate::calls::run;
use crate::errors::{OrRaise, invalid};
use crate::fork;
use crate::modes::{Count, ReadArgs, Span};
use crate::types::{
    CheckReport, Diff, EditResult, EntryInfo, History, Lease, OffloadResult, Page, ReadReply,
    Removal, RemovedEntry, RemovedHistory, SearchHit, Stats, py_to_json,
};

/// `content` reads this much at a time, asking in between whether the caller still wants it (bytes).
const CONTENT_PIECE_BYTES: u64 = 1024 * 1024;

/// Where the CLI reads its store and session from when no flag gives them.
const STORE_VAR: &str = "SCRATCHPAD_STORE";
const SESSION_VAR: &str = "SCRATCHPAD_SESSION";

/// A scratchpad: store whole tool outputs, show previews, read slices, keep notes.
#[pyclass(frozen, module = "scratchpad", name = "Scratchpad")]
#[derive(Debug)]
pub struct Scratchpad {
    /// Shared with the list of handles whose connections a forked child lets go of.
    pad: Arc<core::Scratchpad>,
}

/// A lifetime as Python gives it: "24h", "30m", "7d", "never", seconds (int or float), or a `timedelta`.
#[derive(Debug)]
pub struct TtlArg(Ttl);

impl<'a, 'py> FromPyObject<'a, 'py> for TtlArg {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = value.py();
        let parse = |text: &str| -> PyResult<Self> {
            text.parse::<Ttl>()
                .map(Self)
                .map_err(|err| crate::errors::to_py(py, err))
        };
        if let Ok(text) = value.extract::<String>() {
            return parse(&text);
        }
        if let Ok(seconds) = value.extract::<i64>()
            && !value.is_instance_of::<pyo3::types::PyBool>()
        {
            return parse(&seconds.to_string());
        }
        let seconds = if value.is_instance_of::<pyo3::types::PyFloat>() {
            value.extract::<f64>()
        } else {
            value
                .call_method0("total_seconds")
                .and_then(|s| s.extract::<f64>())
        };
        if let Ok(seconds) = seconds {
            if seconds.is_finite() && seconds >= 0.001 {
                return Ok(Self(Ttl::After((seconds * 1000.0).round() as i64)));
            }
            return Err(invalid(format!(
                "invalid ttl of {seconds} seconds: it must be positive, or \"never\""
            )));
        }
        Err(invalid(
            "ttl is a duration: \"30m\", \"24h\", \"7d\", a number of seconds, a datetime.timedelta, or \
             \"never\"",
        ))
    }
}

/// A lease's length as Python gives it: "60s", "10m", seconds (int or float), or a `timedelta`.
/// A lease always ends, so "never" and zero are refused, and no message suggests them.
#[derive(Debug)]
pub struct LeaseTtl(Duration);

impl<'a, 'py> FromPyObject<'a, 'py> for LeaseTtl {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = value.py();
        let parse = |text: &str| -> PyResult<Self> {
            Ttl::parse_lease(text)
                .map(Self)
                .map_err(|err| crate::errors::to_py(py, err))
        };
        if let Ok(text) = value.extract::<String>() {
            return parse(&text);
        }
        if let Ok(seconds) = value.extract::<i64>()
            && !value.is_instance_of::<pyo3::types::PyBool>()
        {
            return parse(&seconds.to_string());
        }
        let seconds = if value.is_instance_of::<pyo3::types::PyFloat>() {
            value.extract::<f64>()
        } else {
            value
                .call_method0("total_seconds")
                .and_then(|s| s.extract::<f64>())
        };
        if let Ok(seconds) = seconds {
            if seconds.is_finite() && seconds >= 0.001 {
                return Ok(Self(Duration::from_secs_f64(seconds.min(1e12))));
            }
            return Err(invalid(format!(
                "invalid lease ttl of {seconds} seconds: a lease lasts a positive time, e.g. 60 \
                 (seconds), \"10m\" or \"1h\""
            )));
        }
        Err(invalid(
            "a lease's ttl is a duration: \"60s\", \"10m\", \"1h\", a number of seconds, or a \
             datetime.timedelta",
        ))
    }
}

/// One side of a diff as Python gives it: a name (its current version) or `(name, version)`.
#[derive(Debug)]
pub struct DiffTarget(core::Target);

impl<'a, 'py> FromPyObject<'a, 'py> for DiffTarget {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(name) = value.extract::<String>() {
            return Ok(Self(core::Target::current(&name)));
        }
        if let Ok((name, version)) = value.extract::<(String, u64)>() {
            return Ok(Self(core::Target::at(&name, version)));
        }
        Err(invalid(
            "each side of a diff is a name (\"plan\") or a (name, version) tuple ((\"plan\", 3))",
        ))
    }
}

fn ttl_or_default(arg: Option<TtlArg>) -> Ttl {
    arg.map_or(Ttl::Default, |TtlArg(ttl)| ttl)
}

/// What `offload` accepts: text, bytes or any JSON value.
enum Payload {
    Raw(Raw),
    Json(serde_json::Value),
}

/// Text or bytes, borrowing the Python object's own buffer (a `bytearray`, which can change, is
/// copied), so that a large value is neither copied nor walked while the GIL is held: the engine
/// reads it with the GIL released.
enum Raw {
    Text(PyBackedStr),
    Bytes(PyBackedBytes),
}

impl Raw {
    /// Text or bytes as they are; `None` for anything else.
    fn of(content: &Bound<'_, PyAny>) -> PyResult<Option<Self>> {
        if let Ok(text) = content.cast::<PyString>() {
            return Ok(Some(Self::Text(PyBackedStr::try_from(text.clone())?)));
        }
        if let Ok(bytes) = content.cast::<PyBytes>() {
            return Ok(Some(Self::Bytes(bytes.clone().into())));
        }
        if let Ok(bytes) = content.cast::<PyByteArray>() {
            return Ok(Some(Self::Bytes(bytes.clone().into())));
        }
        Ok(None)
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Text(text) => text.as_bytes(),
            Self::Bytes(bytes) => bytes,
        }
    }
}

/// Text, bytes, else the value as JSON.
fn payload(content: &Bound<'_, PyAny>) -> PyResult<Payload> {
    match Raw::of(content)? {
        Some(raw) => Ok(Payload::Raw(raw)),
        None => Ok(Payload::Json(py_to_json(content)?)),
    }
}

fn json_map(
    value: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<serde_json::Map<String, serde_json::Value>> {
    match value.map(py_to_json).transpose()? {
        None | Some(serde_json::Value::Null) => Ok(serde_json::Map::new()),
        Some(serde_json::Value::Object(map)) => Ok(map),
        Some(_) => Err(invalid(format!("{what} must be a dict"))),
    }
}

fn entry(py: Python<'_>, info: core::EntryInfo) -> PyResult<Py<EntryInfo>> {
    Py::new(py, EntryInfo(info))
}

#[pymethods]
impl Scratchpad {
    /// Opens a store. `store` is `sqlite:///path.db`, a plain path or `postgres://…`; without it,
    /// `SCRATCHPAD_STORE`, else the configuration file's store, else the same default file as the
    /// CLI. `session` defaults to `SCRATCHPAD_SESSION`, the file's session, then `default`.
    /// `threshold` (bytes) is the size above which `offload` stores content instead of showing it.
    /// `author` is recorded as the writer of every change made through this object (`history`
    /// shows it).
    #[new]
    #[pyo3(signature = (store=None, *, session=None, config=None, threshold=None, author=None))]
    fn new(
        py: Python<'_>,
        store: Option<String>,
        session: Option<String>,
        config: Option<PathBuf>,
        threshold: Option<usize>,
        author: Option<String>,
    ) -> PyResult<Self> {
        let store = store.or_else(|| std::env::var(STORE_VAR).ok());
        let session_env = std::env::var(SESSION_VAR).ok();
        let pad = run(py, |_| -> core::Result<core::Scratchpad> {
            let config = core::Config::load(config.as_deref())?;
            let session = session
                .or(session_env)
                .or_else(|| config.session.clone())
                .unwrap_or_else(|| core::DEFAULT_SESSION.to_owned());
            let pad =
                core::Scratchpad::open_with(store.as_deref(), config)?.with_session(&session)?;
            let pad = match author {
                Some(author) => pad.with_author(&author)?,
                None => pad,
            };
            Ok(match threshold {
                Some(bytes) => pad.with_threshold(bytes),
                None => pad,
            })
        })?;
        Ok(Self::wrap(py, pad))
    }

    /// The session whose entries this object sees.
    #[getter]
    fn session(&self) -> &str {
        self.pad.session()
    }

    /// Bytes above which `offload` stores content instead of showing it.
    #[getter]
    fn threshold(&self) -> usize {
        self.pad.config().threshold_bytes
    }

    /// How long offloads live unless pinned ("1d", "30m", "never"), from the configuration.
    #[getter]
    fn offload_ttl(&self) -> String {
        self.pad.config().offload_ttl.to_string()
    }

    /// Who changes made through this object are recorded as, if anyone.
    #[getter]
    fn author(&self) -> Option<&str> {
        self.pad.author()
    }

    /// The same store seen from another session (with the same author).
    fn with_session(&self, py: Python<'_>, session: &str) -> PyResult<Self> {
        Ok(Self::wrap(py, self.pad.with_session(session).or_raise(py)?))
    }

    /// The same store and session, recording `author` as the writer of every change made
    /// through the new object.
    fn with_author(&self, py: Python<'_>, author: &str) -> PyResult<Self> {
        Ok(Self::wrap(py, self.pad.with_author(author).or_raise(py)?))
    }

    /// A tool's output for the context: the content itself when it is small, else the reference
    /// (the JSON the MCP server shows: name, sizes, preview, and how to read slices).
    #[pyo3(signature = (tool, content, *, name=None, metadata=None, args=None, server=None, is_error=false))]
    #[expect(
        clippy::too_many_arguments,
        reason = "each is a keyword argument in Python"
    )]
    fn offload(
        &self,
        py: Python<'_>,
        tool: String,
        content: &Bound<'_, PyAny>,
        name: Option<String>,
        metadata: Option<&Bound<'_, PyAny>>,
        args: Option<&Bound<'_, PyAny>>,
        server: Option<String>,
        is_error: bool,
    ) -> PyResult<Py<PyAny>> {
        let outcome =
            self.offload_result(py, tool, content, name, metadata, args, server, is_error)?;
        if !outcome.stored && content.is_instance_of::<PyString>() {
            return Ok(content.clone().unbind());
        }
        Ok(outcome.shown.into_pyobject(py)?.into_any().unbind())
    }

    /// `offload`, with what it did: `shown`, `stored` and the `entry`.
    #[pyo3(signature = (tool, content, *, name=None, metadata=None, args=None, server=None, is_error=false))]
    #[expect(
        clippy::too_many_arguments,
        reason = "each is a keyword argument in Python"
    )]
    fn offload_result(
        &self,
        py: Python<'_>,
        tool: String,
        content: &Bound<'_, PyAny>,
        name: Option<String>,
        metadata: Option<&Bound<'_, PyAny>>,
        args: Option<&Bound<'_, PyAny>>,
        server: Option<String>,
        is_error: bool,
    ) -> PyResult<OffloadResult> {
        let payload = payload(content)?;
        let metadata = json_map(metadata, "metadata")?;
        let args = args.map(py_to_json).transpose()?;
        // The owned copy of text or bytes is made with the GIL released.
        let (offload, observation) = run(py, |cancel| {
            let part = match payload {
                Payload::Raw(Raw::Text(text)) => core::Part::text(str::to_owned(&text)),
                Payload::Raw(Raw::Bytes(bytes)) => {
                    core::Part::new(core::Content::Binary(core::Binary::Bytes(bytes.to_vec())))
                }
                Payload::Json(value) => core::Part::json(value),
            };
            let mut observation = core::Observation::new(tool, vec![part]);
            observation.metadata = metadata;
            observation.args = args;
            observation.server = server;
            observation.is_error = is_error;
            observation.save_as = name;
            let offload = self
                .pad
                .offload_until(&observation, Stop::default().or_when(cancel))?;
            Ok((offload, observation))
        })?;
        let (shown, stored, info) = match offload.parts.into_iter().next() {
            Some(core::PartOutcome::Stored(reference)) => {
                let shown = serde_json::to_string(&reference.observation(&Mcp))
                    .map_err(|err| invalid(format!("cannot render the reference: {err}")))?;
                (shown, true, Some(reference.entry))
            }
            Some(core::PartOutcome::Inline | core::PartOutcome::SameAs(_)) | None => {
                (inline_text(&observation), false, offload.saved)
            }
        };
        Ok(OffloadResult {
            shown,
            stored,
            entry: info.map(|info| entry(py, info)).transpose()?,
        })
    }

    /// Stores content whatever its size: text, bytes, or a file given as a `pathlib.Path`
    /// (streamed, never loaded whole). Without `name` the entry is named `<tool>_<n>`.
    #[pyo3(signature = (content, *, name=None, tool=None, meta=None, turn=None, ttl=None, pinned=false, if_version=None, lease=None))]
    #[expect(
        clippy::too_many_arguments,
        reason = "each is a keyword argument in Python"
    )]
    fn put(
        &self,
        py: Python<'_>,
        content: &Bound<'_, PyAny>,
        name: Option<String>,
        tool: Option<String>,
        meta: Option<&Bound<'_, PyAny>>,
        turn: Option<String>,
        ttl: Option<TtlArg>,
        pinned: bool,
        if_version: Option<u64>,
        lease: Option<u64>,
    ) -> PyResult<Py<EntryInfo>> {
        let pad = self.leased(lease);
        let source = match Raw::of(content)? {
            Some(raw) => Source::Memory(raw),
            None => match content.extract::<PathBuf>() {
                Ok(path) => Source::File(path),
                Err(_) => {
                    return Err(invalid(
                        "put stores str, bytes or a file (a pathlib.Path); offload takes other values",
                    ));
                }
            },
        };
        let meta = meta.map(py_to_json).transpose()?.unwrap_or_default();
        let ttl = ttl_or_default(ttl);
        let info = run(py, |cancel| {
            // Built where it is used: the options may hold a progress callback, which stays on one
            // thread.
            let options = core::PutOptions {
                name,
                source: core::Source {
                    tool,
                    ..core::Source::default()
                },
                meta,
                turn,
                ttl,
                pinned,
                condition: if_version.map(core::WriteCondition::IfVersion),
                progress: None,
                stop: Stop::default().or_when(cancel),
                ..core::PutOptions::default()
            };
            match source {
                Source::Memory(raw) => pad.put_bytes(raw.as_bytes(), options),
                Source::File(path) => {
                    let mut file = std::fs::File::open(&path).map_err(|err| {
                        core::Error::Io(std::io::Error::new(
                            err.kind(),
                            format!("cannot open {}: {err}", path.display()),
                        ))
                    })?;
                    pad.put_file(&mut file, options)
                }
            }
        })?;
        entry(py, info)
    }

    /// Reads part of an entry (by name or id). Pass one way to read, e.g. `lines=(100, 120)`,
    /// `grep="ERROR", context=2`, `head=20` (the first 20 lines), `tail=True` (the last 100 lines),
    /// `range=(0, 800)` (characters), `json=".items[0]"`, `bytes=(0, 3000)`, `full=True`,
    /// `summary=True`; none reads the head. `budget` caps the reply
    /// (characters). `version` reads that version of the entry (`history` lists them) instead of
    /// the current one, with any of these.
    #[pyo3(signature = (name, *, head=None, tail=None, range=None, lines=None, grep=None, context=None, max_matches=None, ignore_case=false, from_line=None, json=None, bytes=None, full=false, force=false, summary=None, budget=None, version=None))]
    #[expect(
        clippy::too_many_arguments,
        reason = "each is a keyword argument in Python"
    )]
    fn read(
        &self,
        py: Python<'_>,
        name: String,
        head: Option<Count>,
        tail: Option<Count>,
        range: Option<Span>,
        lines: Option<Span>,
        grep: Option<String>,
        context: Option<u64>,
        max_matches: Option<u64>,
        ignore_case: bool,
        from_line: Option<u64>,
        json: Option<String>,
        bytes: Option<Span>,
        full: bool,
        force: bool,
        summary: Option<Count>,
        budget: Option<usize>,
        version: Option<u64>,
    ) -> PyResult<ReadReply> {
        let mode = ReadArgs {
            head,
            tail,
            range,
            lines,
            grep,
            context,
            max_matches,
            ignore_case,
            from_line,
            json,
            bytes,
            full,
            force,
            summary,
        }
        .mode()?;
        let reply = run(py, |cancel| {
            let stop = Stop::after(core::read::READ_TIMEOUT).or_when(cancel);
            match version {
                Some(version) => self
                    .pad
                    .read_version_until(&name, version, &mode, budget, stop),
                None => self.pad.read_until(&name, &mode, budget, stop),
            }
        })?;
        Ok(ReadReply(reply))
    }

    /// An entry's metadata, by name or id.
    fn get(&self, py: Python<'_>, name: String) -> PyResult<Py<EntryInfo>> {
        let info = run(py, |_| self.pad.get(&name))?;
        entry(py, info)
    }

    /// The whole content of an entry as bytes.
    fn content<'py>(&self, py: Python<'py>, name: String) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = run(py, |cancel| -> core::Result<Vec<u8>> {
            let (info, mut reader) = self.pad.open_content(&name)?;
            let mut bytes = Vec::with_capacity(usize::try_from(info.bytes).unwrap_or(0));
            // A piece at a time, asking in between whether the caller still wants it.
            while (&mut reader)
                .take(CONTENT_PIECE_BYTES)
                .read_to_end(&mut bytes)?
                > 0
            {
                if cancel.is_cancelled() {
                    return Err(core::Error::Stopped(
                        "cancelled by its caller before it finished".into(),
                    ));
                }
            }
            Ok(bytes)
        })?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Creates or replaces a note. Notes never expire unless given a `ttl`.
    #[pyo3(signature = (name, text, *, if_version=None, ttl=None, pinned=None, turn=None, meta=None, lease=None))]
    #[expect(
        clippy::too_many_arguments,
        reason = "each is a keyword argument in Python"
    )]
    fn write(
        &self,
        py: Python<'_>,
        name: String,
        text: PyBackedStr,
        if_version: Option<u64>,
        ttl: Option<TtlArg>,
        pinned: Option<bool>,
        turn: Option<String>,
        meta: Option<&Bound<'_, PyAny>>,
        lease: Option<u64>,
    ) -> PyResult<Py<EntryInfo>> {
        let options = write_options(if_version, ttl, pinned, turn, meta)?;
        let pad = self.leased(lease);
        let info = run(py, |_| pad.write(&name, &text, options))?;
        entry(py, info)
    }

    /// Appends text to a note, creating it when absent.
    #[pyo3(signature = (name, text, *, if_version=None, ttl=None, pinned=None, turn=None, meta=None, lease=None))]
    #[expect(
        clippy::too_many_arguments,
        reason = "each is a keyword argument in Python"
    )]
    fn append(
        &self,
        py: Python<'_>,
        name: String,
        text: PyBackedStr,
        if_version: Option<u64>,
        ttl: Option<TtlArg>,
        pinned: Option<bool>,
        turn: Option<String>,
        meta: Option<&Bound<'_, PyAny>>,
        lease: Option<u64>,
    ) -> PyResult<Py<EntryInfo>> {
        let options = write_options(if_version, ttl, pinned, turn, meta)?;
        let pad = self.leased(lease);
        let info = run(py, |_| pad.append(&name, &text, options))?;
        entry(py, info)
    }

    /// Replaces `old` by `new` in a note; `old` must occur exactly once unless `replace_all`.
    #[pyo3(signature = (name, *, old, new, replace_all=false, if_version=None, lease=None))]
    #[expect(
        clippy::too_many_arguments,
        reason = "each is a keyword argument in Python"
    )]
    fn edit(
        &self,
        py: Python<'_>,
        name: String,
        old: PyBackedStr,
        new: PyBackedStr,
        replace_all: bool,
        if_version: Option<u64>,
        lease: Option<u64>,
    ) -> PyResult<EditResult> {
        let pad = self.leased(lease);
        let outcome = run(py, |_| pad.edit(&name, &old, &new, replace_all, if_version))?;
        Ok(EditResult {
            entry: entry(py, outcome.entry)?,
            replacements: outcome.replacements,
        })
    }

    /// Inserts `text` as whole lines after line `after_line` of a note (0: before the first).
    #[pyo3(signature = (name, after_line, text, *, if_version=None, lease=None))]
    fn insert(
        &self,
        py: Python<'_>,
        name: String,
        after_line: u64,
        text: PyBackedStr,
        if_version: Option<u64>,
        lease: Option<u64>,
    ) -> PyResult<Py<EntryInfo>> {
        let pad = self.leased(lease);
        let info = run(py, |_| pad.insert(&name, after_line, &text, if_version))?;
        entry(py, info)
    }

    #[pyo3(signature = (name, new_name, *, if_version=None, lease=None))]
    fn rename(
        &self,
        py: Python<'_>,
        name: String,
        new_name: String,
        if_version: Option<u64>,
        lease: Option<u64>,
    ) -> PyResult<Py<EntryInfo>> {
        let pad = self.leased(lease);
        let info = run(py, |_| pad.rename(&name, &new_name, if_version))?;
        entry(py, info)
    }

    /// Removes an entry; its name is free at once. A note keeps its versions restorable for the
    /// configured retention (`keep_removed`, 7 days by default; see `removed()` and
    /// `restore_removed()`); an output of a tool is deleted at once. `purge=True` deletes at once
    /// whatever it is, or the kept versions of a note removed before.
    #[pyo3(signature = (name, *, purge=false, if_version=None, lease=None))]
    fn delete(
        &self,
        py: Python<'_>,
        name: String,
        purge: bool,
        if_version: Option<u64>,
        lease: Option<u64>,
    ) -> PyResult<Removal> {
        let pad = self.leased(lease);
        if purge {
            let purged = run(py, |_| pad.purge(&name, if_version))?;
            Ok(Removal::purged(&purged))
        } else {
            let removed = run(py, |_| pad.delete(&name, if_version))?;
            Ok(Removal::removed(&removed))
        }
    }

    /// The session's removed notes whose versions are kept, most recently removed first.
    #[pyo3(signature = (limit=50))]
    fn removed(&self, py: Python<'_>, limit: usize) -> PyResult<Vec<RemovedEntry>> {
        let removed = run(py, |_| self.pad.removed(limit))?;
        Ok(removed.into_iter().map(RemovedEntry).collect())
    }

    /// The versions of a removed note (its latest removal, or the removed entry with that id),
    /// with who removed it and when.
    fn removed_history(&self, py: Python<'_>, name: String) -> PyResult<RemovedHistory> {
        let history = run(py, |_| self.pad.removed_history(&name))?;
        RemovedHistory::new(py, history)
    }

    /// Brings back a removed note with all its versions: its last version, or `version`, becomes
    /// current. A name written again since is never overwritten: give `new_name`.
    #[pyo3(signature = (name, *, version=None, new_name=None, lease=None))]
    fn restore_removed(
        &self,
        py: Python<'_>,
        name: String,
        version: Option<u64>,
        new_name: Option<String>,
        lease: Option<u64>,
    ) -> PyResult<Py<EntryInfo>> {
        let pad = self.leased(lease);
        let info = run(py, |_| {
            pad.restore_removed(&name, version, new_name.as_deref())
        })?;
        entry(py, info)
    }

    /// Keeps an entry whatever its lifetime and the quota say.
    #[pyo3(signature = (name, *, if_version=None, lease=None))]
    fn pin(
        &self,
        py: Python<'_>,
        name: String,
        if_version: Option<u64>,
        lease: Option<u64>,
    ) -> PyResult<Py<EntryInfo>> {
        let pad = self.leased(lease);
        let info = run(py, |_| pad.pin(&name, true, if_version))?;
        entry(py, info)
    }

    #[pyo3(signature = (name, *, if_version=None, lease=None))]
    fn unpin(
        &self,
        py: Python<'_>,
        name: String,
        if_version: Option<u64>,
        lease: Option<u64>,
    ) -> PyResult<Py<EntryInfo>> {
        let pad = self.leased(lease);
        let info = run(py, |_| pad.pin(&name, false, if_version))?;
        entry(py, info)
    }

    /// Sets how long the entry lives from now: "30m", "24h", "7d", seconds, a timedelta, or "never".
    #[pyo3(signature = (name, ttl, *, if_version=None, lease=None))]
    fn set_ttl(
        &self,
        py: Python<'_>,
        name: String,
        ttl: TtlArg,
        if_version: Option<u64>,
        lease: Option<u64>,
    ) -> PyResult<Py<EntryInfo>> {
        let pad = self.leased(lease);
        let info = run(py, |_| pad.set_ttl(&name, ttl.0, if_version))?;
        entry(py, info)
    }

    /// Replaces every `{{scratchpad:NAME}}` (or `#lines=10-20`, `#range=0-500`, `#json=.a`) in
    /// `text` by that entry's content or part of it.
    fn resolve(&self, py: Python<'_>, text: PyBackedStr) -> PyResult<String> {
        run(py, |_| self.pad.resolve(&text))
    }

    /// Entries of this session, newest first, one page at a time.
    #[pyo3(signature = (*, kind=None, prefix=None, tool=None, pinned=None, turn=None, cursor=None, limit=50))]
    #[expect(
        clippy::too_many_arguments,
        reason = "each is a keyword argument in Python"
    )]
    fn list(
        &self,
        py: Python<'_>,
        kind: Option<String>,
        prefix: Option<String>,
        tool: Option<String>,
        pinned: Option<bool>,
        turn: Option<String>,
        cursor: Option<String>,
        limit: usize,
    ) -> PyResult<Page> {
        let kind = kind
            .map(|kind| core::Kind::parse(&kind))
            .transpose()
            .or_raise(py)?;
        let filter = core::ListFilter {
            kind,
            prefix,
            tool,
            pinned,
            turn,
            ..core::ListFilter::default()
        };
        let page = run(py, |_| self.pad.list(&filter, cursor.as_deref(), limit))?;
        Page::new(py, page)
    }

    /// Ranked full-text search over this session's entries.
    #[pyo3(signature = (query, *, limit=10))]
    fn search(&self, py: Python<'_>, query: String, limit: usize) -> PyResult<Vec<SearchHit>> {
        let hits = run(py, |_| self.pad.search(&query, limit))?;
        hits.into_iter()
            .map(|hit| {
                Ok(SearchHit {
                    entry: entry(py, hit.entry)?,
                    snippet: hit.snippet,
                })
            })
            .collect()
    }

    /// Entries, bytes and tokens kept out of context, for this session.
    fn stats(&self, py: Python<'_>) -> PyResult<Stats> {
        let stats = run(py, |_| self.pad.stats())?;
        Ok(stats.into())
    }

    /// Removes every entry tagged with `turn`; returns how many there were.
    fn expire_turn(&self, py: Python<'_>, turn: String) -> PyResult<u64> {
        run(py, |_| self.pad.expire_turn(&turn))
    }

    /// An entry's versions, newest first: the current one, then those it keeps (who wrote each,
    /// when, and what the change did).
    fn history(&self, py: Python<'_>, name: String) -> PyResult<History> {
        let history = run(py, |_| self.pad.history(&name))?;
        History::new(py, history)
    }

    /// Makes an older version current again, as a new version; the versions in between are kept.
    /// `if_version` is the version the entry is expected to be at now.
    #[pyo3(signature = (name, version, *, if_version=None, lease=None))]
    fn restore(
        &self,
        py: Python<'_>,
        name: String,
        version: u64,
        if_version: Option<u64>,
        lease: Option<u64>,
    ) -> PyResult<Py<EntryInfo>> {
        let pad = self.leased(lease);
        let info = run(py, |_| pad.restore(&name, version, if_version))?;
        entry(py, info)
    }

    /// Compares two entries, or two versions of one, as a unified line diff. Each side is a name
    /// (its current version) or a `(name, version)` tuple. A cut diff's `continuation` is the
    /// `cursor` of the next call; `plain` compares JSON as stored text; `budget` caps the reply
    /// (characters), `context` the lines shown around each change.
    #[pyo3(signature = (a, b, *, cursor=None, plain=false, budget=None, context=None))]
    #[expect(
        clippy::too_many_arguments,
        reason = "each is a keyword argument in Python"
    )]
    fn diff(
        &self,
        py: Python<'_>,
        a: DiffTarget,
        b: DiffTarget,
        cursor: Option<String>,
        plain: bool,
        budget: Option<usize>,
        context: Option<usize>,
    ) -> PyResult<Diff> {
        let cursor = cursor
            .as_deref()
            .map(str::parse::<core::DiffCursor>)
            .transpose()
            .or_raise(py)?;
        let options = core::DiffOptions {
            cursor,
            context,
            budget_chars: budget,
            plain,
        };
        let reply = run(py, |cancel| {
            let stop = Stop::after(core::read::READ_TIMEOUT).or_when(cancel);
            self.pad.diff_until(&a.0, &b.0, &options, stop)
        })?;
        Ok(Diff(reply))
    }

    /// The lease on `name` as the store sees it now; `None` if nobody ever acquired one.
    fn lease(&self, py: Python<'_>, name: String) -> PyResult<Option<Lease>> {
        let lease = run(py, |_| self.pad.lease(&name))?;
        Ok(lease.map(Lease))
    }

    /// Claims `name` for `holder` for `ttl` ("60s", "10m", seconds, a timedelta) and returns the
    /// lease with its fencing token: pass `lease=lease.token` to the writes it guards. Someone
    /// else holding it unexpired is a `Conflict` naming the holder.
    fn acquire_lease(
        &self,
        py: Python<'_>,
        name: String,
        holder: String,
        ttl: LeaseTtl,
    ) -> PyResult<Lease> {
        let ttl = ttl.0;
        let lease = run(py, |_| self.pad.acquire_lease(&name, &holder, ttl))?;
        Ok(Lease(lease))
    }

    /// Extends the claim `token` made to `ttl` from now. Only its holder may (`holder`, by
    /// default this object's author): anyone else gets a `Conflict` naming the holder, and so does
    /// a token that a newer one superseded or whose claim was released.
    #[pyo3(signature = (name, token, ttl, *, holder=None))]
    fn renew_lease(
        &self,
        py: Python<'_>,
        name: String,
        token: u64,
        ttl: LeaseTtl,
        holder: Option<String>,
    ) -> PyResult<Lease> {
        let ttl = ttl.0;
        let holder = self.lease_holder(holder, "renews")?;
        let lease = run(py, |_| self.pad.renew_lease(&name, token, &holder, ttl))?;
        Ok(Lease(lease))
    }

    /// Gives up the claim `token` made, so another holder may acquire the name at once; writes
    /// carrying `token` are refused from then on. Only its holder may (`holder`, by default this
    /// object's author): anyone else gets a `Conflict` naming the holder.
    #[pyo3(signature = (name, token, *, holder=None))]
    fn release_lease(
        &self,
        py: Python<'_>,
        name: String,
        token: u64,
        holder: Option<String>,
    ) -> PyResult<Lease> {
        let holder = self.lease_holder(holder, "releases")?;
        let lease = run(py, |_| self.pad.release_lease(&name, token, &holder))?;
        Ok(Lease(lease))
    }

    /// Reads every content of the store back (all sessions) and verifies it.
    fn check(&self, py: Python<'_>) -> PyResult<CheckReport> {
        let report = run(py, |_| self.pad.check(&mut |_| {}))?;
        CheckReport::new(py, report)
    }

    fn __repr__(&self) -> String {
        format!("Scratchpad(session={:?})", self.pad.session())
    }
}

impl Scratchpad {
    fn wrap(py: Python<'_>, pad: core::Scratchpad) -> Self {
        let pad = Arc::new(pad);
        fork::register(py, &pad);
        Self { pad }
    }

    /// Who renews or releases a lease: the `holder` given, else this object's author.
    fn lease_holder(&self, holder: Option<String>, does: &str) -> PyResult<String> {
        holder
            .or_else(|| self.pad.author().map(str::to_owned))
            .ok_or_else(|| {
                invalid(format!(
                    "only a lease's holder {does} it: pass holder=\"…\" (the name it was acquired \
                     for), or give this object an author (Scratchpad(…, author=\"…\"))"
                ))
            })
    }

    /// This object's engine handle, its changes carrying lease `token` when one is given.
    fn leased(&self, token: Option<u64>) -> Cow<'_, core::Scratchpad> {
        match token {
            Some(_) => Cow::Owned(self.pad.with_lease(token)),
            None => Cow::Borrowed(self.pad.as_ref()),
        }
    }
}

/// Where `put` reads from.
enum Source {
    Memory(Raw),
    File(PathBuf),
}

fn write_options(
    if_version: Option<u64>,
    ttl_arg: Option<TtlArg>,
    pinned: Option<bool>,
    turn: Option<String>,
    meta: Option<&Bound<'_, PyAny>>,
) -> PyResult<core::WriteOptions> {
    Ok(core::WriteOptions {
        if_version,
        ttl: ttl_or_default(ttl_arg),
        pinned,
        turn,
        meta: meta.map(py_to_json).transpose()?,
    })
}

/// The single part of an observation as it enters the context when it is not stored.
fn inline_text(observation: &core::Observation) -> String {
    match observation.parts.first().map(|part| &part.content) {
        Some(core::Content::Text(text)) => text.clone(),
        Some(core::Content::Json(value)) => value.to_string(),
        Some(core::Content::Binary(core::Binary::Bytes(bytes))) => {
            base64::engine::general_purpose::STANDARD.encode(bytes)
        }
        Some(core::Content::Binary(core::Binary::Base64(text))) => text.clone(),
        None => String::new(),
    }
}
