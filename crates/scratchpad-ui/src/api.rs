//! The JSON API under `/api/`: what the pages' script fetches and changes, open to scripts too
//! (with `Authorization: Bearer TOKEN`). Reads take the CLI's read modes as query parameters;
//! changes take JSON bodies and honour `if_version`, so a stale edit is a conflict, never an
//! overwrite.

use std::io::Read as _;
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use http::{HeaderValue, StatusCode, header};
use scratchpad_core::Lease;
use scratchpad_core::{
    DiffOptions, EntryInfo, Kind, ListFilter, ReadMode, ReadReply, Scratchpad, Target, Ttl,
    UsageKind, WriteOptions,
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::App;
use crate::engine::MAX_READ_BUDGET_CHARS;
use crate::failure::Failure;
use crate::query::{Query, encode, mode_params, shown};
use crate::speak::Web;

/// Entries a listing returns when no limit is given, and at most (the MCP server's limits).
pub(crate) const DEFAULT_LIST_LIMIT: usize = 100;
pub(crate) const MAX_LIST_LIMIT: usize = 500;
/// Search hits returned at most.
pub(crate) const MAX_SEARCH_LIMIT: usize = 100;
/// Lines one viewer request returns at most, and characters of each line it shows (a longer line
/// is cut, and says so: `?range=` reads all of it).
pub(crate) const MAX_VIEW_LINES: u64 = 2_000;
pub(crate) const VIEW_LINE_CHARS: usize = 10_000;
/// Characters one viewer request returns at most.
const VIEW_BUDGET_CHARS: usize = 512 * 1024;
/// Bytes one hex-view request returns at most.
pub(crate) const MAX_HEX_BYTES: u64 = 64 * 1024;
/// Largest request body (bytes): a note edited in the page, with room for JSON escaping.
pub(crate) const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;
/// Largest note the page edits in place (bytes); larger ones are read, not edited, here.
pub(crate) const MAX_EDIT_BYTES: u64 = 4 * 1024 * 1024;
/// A download's pieces travel in buffers of this size (bytes).
const DOWNLOAD_BUFFER_BYTES: usize = 256 * 1024;

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let mut body = json!({ "error": self.message, "status": self.status.as_u16() });
        if let Some(version) = self.current_version {
            body["current_version"] = json!(version);
        }
        (self.status, Json(body)).into_response()
    }
}

type Answer = Result<Json<Value>, Failure>;

pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/api/sessions", get(sessions))
        .route("/api/events", get(events))
        .route("/api/search", get(search))
        .route("/api/usage", get(usage))
        .route("/api/s/{session}/entries", get(entries))
        .route("/api/s/{session}/notes", post(create_note))
        .route("/api/s/{session}/e/{name}", get(entry))
        .route("/api/s/{session}/e/{name}/read", get(read))
        .route("/api/s/{session}/e/{name}/lines", get(lines))
        .route("/api/s/{session}/e/{name}/bytes", get(hex_bytes))
        .route("/api/s/{session}/e/{name}/raw", get(raw))
        .route("/api/s/{session}/e/{name}/history", get(history))
        .route("/api/s/{session}/e/{name}/diff", get(diff))
        .route("/api/s/{session}/e/{name}/write", post(write))
        .route("/api/s/{session}/e/{name}/rename", post(rename))
        .route("/api/s/{session}/e/{name}/pin", post(pin))
        .route("/api/s/{session}/e/{name}/ttl", post(ttl))
        .route("/api/s/{session}/e/{name}/delete", post(delete))
        .route("/api/s/{session}/e/{name}/restore", post(restore))
        .route("/api/{*rest}", any(not_found))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(app)
}

async fn not_found() -> Failure {
    Failure::new(
        StatusCode::NOT_FOUND,
        "no such address in this API; the pages' addresses with /api in front are the API's",
    )
}

/// The scratchpad of a session named in the address.
pub(crate) fn in_session(pad: &Scratchpad, session: &str) -> scratchpad_core::Result<Scratchpad> {
    crate::engine::Engine::session_named(pad, session)
}

async fn sessions(State(app): State<Arc<App>>) -> Answer {
    let sessions = app.engine.read(|pad, _| pad.sessions()).await?;
    Ok(Json(json!({ "sessions": sessions })))
}

async fn events(State(app): State<Arc<App>>) -> Response {
    app.live.events().into_response()
}

/// What a listing asks for: filters and a page.
pub(crate) struct Listing {
    pub filter: ListFilter,
    pub cursor: Option<String>,
    pub limit: usize,
}

impl Listing {
    pub fn from_query(query: &Query) -> Result<Self, Failure> {
        let kind = query
            .get("kind")
            .map(|kind| {
                Kind::parse(kind.trim()).map_err(|_| {
                    Failure::bad_request(format!(
                        "unknown kind `{}`; use text, json or binary",
                        shown(kind)
                    ))
                })
            })
            .transpose()?;
        let limit = query.number("limit")?.map_or(DEFAULT_LIST_LIMIT, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        });
        if limit == 0 || limit > MAX_LIST_LIMIT {
            return Err(Failure::bad_request(format!(
                "`limit` is between 1 and {MAX_LIST_LIMIT}"
            )));
        }
        Ok(Self {
            filter: ListFilter {
                kind,
                prefix: query.get("name").map(|n| n.trim().to_owned()),
                author: query.get("author").map(|a| a.trim().to_owned()),
                ..ListFilter::default()
            },
            cursor: query.get("cursor").map(str::to_owned),
            limit,
        })
    }
}

async fn entries(
    State(app): State<Arc<App>>,
    Path(session): Path<String>,
    RawQuery(raw): RawQuery,
) -> Answer {
    let listing = Listing::from_query(&Query::parse(raw.as_deref()))?;
    let (page, leases) = app
        .engine
        .read(move |pad, _| {
            let pad = in_session(pad, &session)?;
            let page = pad.list(&listing.filter, listing.cursor.as_deref(), listing.limit)?;
            Ok((page, pad.held_leases()?))
        })
        .await?;
    Ok(Json(json!({
        "entries": page.entries,
        "next_cursor": page.next_cursor,
        "prev_cursor": page.prev_cursor,
        "leases": leases,
    })))
}

/// Everything an entry's page shows besides its content.
pub(crate) struct EntryView {
    pub entry: EntryInfo,
    pub lease: Option<Lease>,
    /// For each line of a text preview, the entry line it shows.
    pub preview_lines: Vec<Option<u64>>,
}

impl EntryView {
    pub fn load(pad: &Scratchpad, name: &str) -> scratchpad_core::Result<Self> {
        let entry = pad.get(name)?;
        let lease = pad.lease(&entry.name)?;
        let preview_lines = match entry.kind {
            Kind::Text => scratchpad_core::shown_lines(&entry.preview),
            Kind::Json | Kind::Binary => Vec::new(),
        };
        Ok(Self {
            entry,
            lease,
            preview_lines,
        })
    }

    /// Whether the page edits it in place: text small enough for a text box.
    pub fn editable(&self) -> bool {
        self.entry.kind != Kind::Binary && self.entry.bytes <= MAX_EDIT_BYTES
    }
}

async fn entry(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
) -> Answer {
    let view = app
        .engine
        .read(move |pad, _| EntryView::load(&in_session(pad, &session)?, &name))
        .await?;
    Ok(Json(json!({
        "entry": view.entry,
        "lease": view.lease,
        "preview_lines": view.preview_lines,
        "editable": view.editable(),
    })))
}

/// A read's budget: `budget=N` characters, up to [`MAX_READ_BUDGET_CHARS`].
pub(crate) fn budget(query: &Query, default: usize) -> Result<usize, Failure> {
    match query.number("budget")? {
        None => Ok(default),
        Some(0) => Err(Failure::bad_request("`budget` is at least 1 character")),
        Some(n) => Ok(usize::try_from(n)
            .unwrap_or(usize::MAX)
            .min(MAX_READ_BUDGET_CHARS)),
    }
}

/// Characters a read returns when no budget is given: a screenful or two, more than a model's
/// reply but far from the limit.
pub(crate) const PAGE_BUDGET_CHARS: usize = 64_000;

/// Reads part of an entry (of a version, when `version` is given).
pub(crate) fn read_entry(
    pad: &Scratchpad,
    name: &str,
    version: Option<u64>,
    mode: &ReadMode,
    budget: usize,
    stop: scratchpad_core::Stop<'_>,
) -> scratchpad_core::Result<ReadReply> {
    match version {
        Some(version) => pad.read_version_until(name, version, mode, Some(budget), stop),
        None => pad.read_until(name, mode, Some(budget), stop),
    }
}

/// A reply as the API gives it: the engine's fields, the grep lines as data, and the query string
/// that continues it.
pub(crate) fn reply_json(reply: &ReadReply) -> Value {
    let mut value = serde_json::to_value(reply).unwrap_or(Value::Null);
    value["grep_lines"] = json!(reply.grep_lines);
    value["continue"] = match &reply.continuation {
        Some(mode) => {
            let mut params = mode_params(mode);
            if let Some(version) = reply.version {
                params.push(("version", version.to_string()));
            }
            json!(format!("?{}", encode(&params)))
        }
        None => Value::Null,
    };
    value
}

async fn read(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Answer {
    let query = Query::parse(raw.as_deref());
    let mode = query.read_mode()?.ok_or_else(|| {
        Failure::bad_request(
            "say how to read: lines=A-B, range=A-B, grep=RE (context=N), jq=QUERY, head, tail, \
             summary, bytes=A-B or full",
        )
    })?;
    let version = query.number("version")?;
    let budget = budget(&query, PAGE_BUDGET_CHARS)?;
    let reply = app
        .engine
        .read(move |pad, stop| {
            read_entry(
                &in_session(pad, &session)?,
                &name,
                version,
                &mode,
                budget,
                stop,
            )
        })
        .await?;
    Ok(Json(reply_json(&reply)))
}

/// Lines for the viewer: `from`, `count` (at most [`MAX_VIEW_LINES`]), each cut at
/// [`VIEW_LINE_CHARS`].
async fn lines(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Answer {
    let query = Query::parse(raw.as_deref());
    let from = query.number("from")?.unwrap_or(1).max(1);
    let count = query
        .number("count")?
        .unwrap_or(200)
        .clamp(1, MAX_VIEW_LINES);
    let version = query.number("version")?;
    let mode = ReadMode::Lines {
        from,
        to: Some(from.saturating_add(count - 1)),
    };
    let reply = app
        .engine
        .read(move |pad, stop| {
            read_entry(
                &in_session(pad, &session)?,
                &name,
                version,
                &mode,
                VIEW_BUDGET_CHARS,
                stop,
            )
        })
        .await?;
    let mut out = Vec::new();
    for text in reply.text.split_terminator('\n') {
        let cut = text.chars().count() > VIEW_LINE_CHARS;
        let shown: String = if cut {
            text.chars().take(VIEW_LINE_CHARS).collect()
        } else {
            text.to_owned()
        };
        out.push(json!({ "text": shown, "cut": cut }));
    }
    let next = match &reply.continuation {
        Some(ReadMode::Lines { from, .. }) => Some(*from),
        _ => None,
    };
    Ok(Json(json!({
        "from": reply.first_line.unwrap_or(from),
        "lines": out,
        "next": next,
        "notes": reply.notes,
    })))
}

/// Bytes for the hex view: `offset`, `length` (at most [`MAX_HEX_BYTES`]), base64.
async fn hex_bytes(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Answer {
    let query = Query::parse(raw.as_deref());
    let offset = query.number("offset")?.unwrap_or(0);
    let length = query
        .number("length")?
        .unwrap_or(4_096)
        .clamp(1, MAX_HEX_BYTES);
    let version = query.number("version")?;
    let mode = ReadMode::Bytes {
        offset,
        length: Some(length),
    };
    // Base64 takes 4 characters per 3 bytes.
    let budget = usize::try_from(length.div_ceil(3) * 4).unwrap_or(usize::MAX);
    let reply = app
        .engine
        .read(move |pad, stop| {
            read_entry(
                &in_session(pad, &session)?,
                &name,
                version,
                &mode,
                budget,
                stop,
            )
        })
        .await?;
    Ok(Json(
        json!({ "offset": offset, "base64": reply.text, "location": reply.location }),
    ))
}

/// The whole content, streamed: a download (never shown by the browser as a page).
async fn raw(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
) -> Result<Response, Failure> {
    let lookup_session = session.clone();
    let lookup_name = name.clone();
    let info = app
        .engine
        .read(move |pad, _| in_session(pad, &lookup_session)?.get(&lookup_name))
        .await?;
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<bytes::Bytes, std::io::Error>>(4);
    let pad = app.engine.reader().clone();
    // The download runs as long as the browser takes it, on a thread of its own: it is not held
    // to the engine's semaphore, and its buffer bounds its memory.
    tokio::task::spawn_blocking(move || {
        let opened = in_session(&pad, &session).and_then(|pad| {
            let (_, mut reader) = pad.open_content(&name)?;
            let mut buf = vec![0; DOWNLOAD_BUFFER_BYTES];
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) => return Ok(()),
                    Ok(n) => n,
                    Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(err) => {
                        let _ = sender.blocking_send(Err(err));
                        return Ok(());
                    }
                };
                if sender
                    .blocking_send(Ok(bytes::Bytes::copy_from_slice(&buf[..n])))
                    .is_err()
                {
                    // The browser went away.
                    return Ok(());
                }
            }
        });
        if let Err(err) = opened {
            let message = err.render(&Web::new(&session));
            let _ = sender.blocking_send(Err(std::io::Error::other(message)));
        }
    });
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|item| (item, receiver))
    });
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(info.bytes));
    // Names are letters, digits and `._-`: safe in the header as they are.
    if let Ok(value) = HeaderValue::from_str(&format!(
        "attachment; filename=\"{}{}\"",
        info.name,
        extension(&info)
    )) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    // Were it ever opened as a page, it could do nothing.
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox; default-src 'none'"),
    );
    Ok(response)
}

/// A file extension for a download, from the kind (and a binary's sniffed type).
fn extension(info: &EntryInfo) -> &'static str {
    if info.name.contains('.') {
        return "";
    }
    match info.kind {
        Kind::Text => ".txt",
        Kind::Json => ".json",
        Kind::Binary => match info.mime.as_deref() {
            Some("image/png") => ".png",
            Some("image/jpeg") => ".jpg",
            Some("image/gif") => ".gif",
            Some("application/pdf") => ".pdf",
            Some("application/zip") => ".zip",
            Some("application/gzip") => ".gz",
            _ => ".bin",
        },
    }
}

async fn history(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
) -> Answer {
    let history = app
        .engine
        .read(move |pad, _| in_session(pad, &session)?.history(&name))
        .await?;
    Ok(Json(json!(history)))
}

/// What a diff compares: `from`/`to` versions of the entry (the current one when absent), or the
/// entry with another (`with`); a `cursor` continues a cut diff.
pub(crate) struct DiffAsk {
    pub a: Target,
    pub b: Target,
    pub options: DiffOptions,
}

impl DiffAsk {
    pub fn from_query(
        session: &str,
        name: &str,
        query: &Query,
        default_budget: usize,
    ) -> Result<Self, Failure> {
        let from = query.number("from")?;
        let to = query.number("to")?;
        let with = query.get("with").map(str::to_owned);
        let a = match from {
            Some(version) => Target::at(name, version),
            None => Target::current(name),
        };
        let other = with.as_deref().unwrap_or(name);
        let b = match to {
            Some(version) => Target::at(other, version),
            None => Target::current(other),
        };
        if from.is_none() && to.is_none() && with.is_none() {
            return Err(Failure::bad_request(
                "say what to compare: from=N (a version, with the current one), to=M, or with=OTHER \
                 (another entry)",
            ));
        }
        let cursor = query
            .get("cursor")
            .map(|text| {
                text.parse()
                    .map_err(|err| Failure::from_engine(&err, session))
            })
            .transpose()?;
        let context = query
            .number("context")?
            .map(|n| usize::try_from(n.min(crate::query::MAX_GREP_CONTEXT)).unwrap_or(3));
        Ok(Self {
            a,
            b,
            options: DiffOptions {
                cursor,
                context,
                budget_chars: Some(budget(query, default_budget)?),
                plain: query.flag("plain"),
            },
        })
    }
}

async fn diff(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Answer {
    let ask = DiffAsk::from_query(
        &session,
        &name,
        &Query::parse(raw.as_deref()),
        PAGE_BUDGET_CHARS,
    )?;
    let reply = app
        .engine
        .read(move |pad, stop| {
            in_session(pad, &session)?.diff_until(&ask.a, &ask.b, &ask.options, stop)
        })
        .await?;
    let mut value = json!(reply);
    value["summary"] = json!(reply.summary());
    value["continue"] = json!(reply.continuation.map(|cursor| cursor.to_string()));
    Ok(Json(value))
}

async fn search(State(app): State<Arc<App>>, RawQuery(raw): RawQuery) -> Answer {
    let query = Query::parse(raw.as_deref());
    let words = query
        .get("q")
        .ok_or_else(|| Failure::bad_request("`q` is what to search for, e.g. ?q=timeout"))?
        .to_owned();
    let limit = query.number("limit")?.unwrap_or(50);
    if limit == 0 || limit > MAX_SEARCH_LIMIT as u64 {
        return Err(Failure::bad_request(format!(
            "`limit` is between 1 and {MAX_SEARCH_LIMIT}"
        )));
    }
    let hits = app
        .engine
        .read(move |pad, _| pad.search_all_sessions(&words, usize::try_from(limit).unwrap_or(50)))
        .await?;
    Ok(Json(json!({ "hits": hits })))
}

/// Savings in tokens: per tool, per time bucket and in all, from the usage record.
pub(crate) struct Savings {
    pub usage: scratchpad_core::Usage,
    /// `(tool, kept out, read back, outputs stored, reads)`, most kept out first.
    pub tools: Vec<(String, u64, u64, u64, u64)>,
    /// `(bucket start, kept out, read back)`, oldest first.
    pub over_time: Vec<(i64, u64, u64)>,
    pub kept_out: u64,
    pub read_back: u64,
    pub stored: u64,
    pub reads: u64,
}

/// The name a usage line without a tool is shown under.
pub(crate) const NO_TOOL: &str = "(no tool)";

impl Savings {
    pub fn from_usage(usage: scratchpad_core::Usage) -> Self {
        let mut tools: Vec<(String, u64, u64, u64, u64)> = Vec::new();
        let mut over_time: Vec<(i64, u64, u64)> = Vec::new();
        for bucket in &usage.buckets {
            let tool = bucket.tool.clone().unwrap_or_else(|| NO_TOOL.to_owned());
            let (kept, read) = (bucket.tokens_kept_out(), bucket.tokens_read_back());
            let (stored, reads) = match bucket.event {
                UsageKind::Stored => (bucket.count, 0),
                UsageKind::Read => (0, bucket.count),
            };
            match tools.iter_mut().find(|row| row.0 == tool) {
                Some(row) => {
                    row.1 += kept;
                    row.2 += read;
                    row.3 += stored;
                    row.4 += reads;
                }
                None => tools.push((tool, kept, read, stored, reads)),
            }
            match over_time.last_mut() {
                Some(last) if last.0 == bucket.start => {
                    last.1 += kept;
                    last.2 += read;
                }
                _ => over_time.push((bucket.start, kept, read)),
            }
        }
        tools.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let sum = |f: fn(&(String, u64, u64, u64, u64)) -> u64| tools.iter().map(f).sum::<u64>();
        Self {
            kept_out: sum(|row| row.1),
            read_back: sum(|row| row.2),
            stored: sum(|row| row.3),
            reads: sum(|row| row.4),
            tools,
            over_time,
            usage,
        }
    }
}

async fn usage(State(app): State<Arc<App>>, RawQuery(raw): RawQuery) -> Answer {
    let query = Query::parse(raw.as_deref());
    let session = query.get("session").map(str::to_owned);
    let usage = app
        .engine
        .read(move |pad, _| pad.usage(session.as_deref(), None))
        .await?;
    let savings = Savings::from_usage(usage);
    Ok(Json(json!({
        "session": savings.usage.session,
        "span": savings.usage.span,
        "bucket_ms": savings.usage.bucket_ms,
        "tokens_kept_out": savings.kept_out,
        "tokens_read_back": savings.read_back,
        "outputs_stored": savings.stored,
        "reads": savings.reads,
        "tools": savings.tools.iter().map(|(tool, kept, read, stored, reads)| json!({
            "tool": tool, "tokens_kept_out": kept, "tokens_read_back": read,
            "outputs_stored": stored, "reads": reads,
        })).collect::<Vec<_>>(),
        "over_time": savings.over_time.iter().map(|(start, kept, read)| json!({
            "start": start, "tokens_kept_out": kept, "tokens_read_back": read,
        })).collect::<Vec<_>>(),
    })))
}

// --- changes ---------------------------------------------------------------------------------

/// A JSON body, with a malformed one answered in this API's words.
fn body<T>(body: Result<Json<T>, JsonRejection>) -> Result<T, Failure> {
    body.map(|Json(value)| value).map_err(|rejection| {
        Failure::new(
            rejection.status(),
            format!(
                "the request body is not what this call takes: {}",
                rejection.body_text()
            ),
        )
    })
}

fn changed(entry: &EntryInfo) -> Answer {
    Ok(Json(json!({ "entry": entry })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewNote {
    name: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    ttl: Option<String>,
    #[serde(default)]
    pinned: bool,
}

fn parse_ttl(session: &str, ttl: Option<&str>) -> Result<Ttl, Failure> {
    match ttl.map(str::trim).filter(|t| !t.is_empty()) {
        None | Some("default") => Ok(Ttl::Default),
        Some(text) => text
            .parse()
            .map_err(|err| Failure::from_engine(&err, session)),
    }
}

async fn create_note(
    State(app): State<Arc<App>>,
    Path(session): Path<String>,
    note: Result<Json<NewNote>, JsonRejection>,
) -> Answer {
    let note = body(note)?;
    let ttl = parse_ttl(&session, note.ttl.as_deref())?;
    let entry = app
        .engine
        .write(move |pad| {
            let options = WriteOptions {
                ttl,
                pinned: Some(note.pinned),
                ..WriteOptions::default()
            };
            in_session(pad, &session)?.create(&note.name, &note.text, options)
        })
        .await?;
    changed(&entry)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewText {
    text: String,
    if_version: Option<u64>,
}

async fn write(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    change: Result<Json<NewText>, JsonRejection>,
) -> Answer {
    let change = body(change)?;
    let entry = app
        .engine
        .write(move |pad| {
            let options = WriteOptions {
                if_version: change.if_version,
                ..WriteOptions::default()
            };
            in_session(pad, &session)?.write(&name, &change.text, options)
        })
        .await?;
    changed(&entry)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewName {
    to: String,
    if_version: Option<u64>,
}

async fn rename(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    change: Result<Json<NewName>, JsonRejection>,
) -> Answer {
    let change = body(change)?;
    let entry = app
        .engine
        .write(move |pad| {
            in_session(pad, &session)?.rename(&name, change.to.trim(), change.if_version)
        })
        .await?;
    changed(&entry)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pinning {
    pinned: bool,
    if_version: Option<u64>,
}

async fn pin(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    change: Result<Json<Pinning>, JsonRejection>,
) -> Answer {
    let change = body(change)?;
    let entry = app
        .engine
        .write(move |pad| in_session(pad, &session)?.pin(&name, change.pinned, change.if_version))
        .await?;
    changed(&entry)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Lifetime {
    ttl: String,
    if_version: Option<u64>,
}

async fn ttl(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    change: Result<Json<Lifetime>, JsonRejection>,
) -> Answer {
    let change = body(change)?;
    let ttl = parse_ttl(&session, Some(&change.ttl))?;
    let entry = app
        .engine
        .write(move |pad| in_session(pad, &session)?.set_ttl(&name, ttl, change.if_version))
        .await?;
    changed(&entry)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Removal {
    if_version: Option<u64>,
    /// Delete at once with every version, instead of keeping a note restorable.
    #[serde(default)]
    purge: bool,
}

async fn delete(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    change: Result<Json<Removal>, JsonRejection>,
) -> Answer {
    let change = body(change)?;
    let web = Web::new(&session);
    let reply = app
        .engine
        .write(move |pad| {
            let pad = in_session(pad, &session)?;
            Ok(if change.purge {
                let purged = pad.purge(&name, change.if_version)?;
                json!({ "purged": purged, "message": purged.advice().render(&web) })
            } else {
                let removed = pad.delete(&name, change.if_version)?;
                json!({
                    "deleted": removed.entry,
                    "kept": removed.kept,
                    "message": removed.advice().render(&web),
                })
            })
        })
        .await?;
    Ok(Json(reply))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Restoring {
    version: u64,
    if_version: Option<u64>,
}

async fn restore(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    change: Result<Json<Restoring>, JsonRejection>,
) -> Answer {
    let change = body(change)?;
    let entry = app
        .engine
        .write(move |pad| {
            in_session(pad, &session)?.restore(&name, change.version, change.if_version)
        })
        .await?;
    changed(&entry)
}
