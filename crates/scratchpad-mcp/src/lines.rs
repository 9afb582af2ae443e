//! JSON-RPC over newline-delimited streams (stdio, a child process's pipes) with limits no peer can
//! talk past. Every line is bounded; a line that is too long, is not JSON, or is not a message this
//! side accepts is answered at once instead of dropped in silence:
//! * as a server, with a JSON-RPC error (`-32700` parse error, `-32600` too long or not a request,
//!   `-32602` parameters of the wrong shape, such as `arguments` that are not an object);
//! * as a client (the proxy talking to its upstream), with an error delivered to the request the
//!   line answered, so the caller learns what the upstream did instead of waiting for its timeout.
//!
//! A client may accept lines longer than it keeps in memory: past [`LineLimits::in_memory_bytes`]
//! the line is spooled to a temporary file and parsed from there, so a 200 MB tool result costs its
//! decoded value once, not the raw line and the value side by side.

use std::collections::VecDeque;
use std::io::{Seek as _, Write as _};
use std::sync::Arc;

use rmcp::model::{
    ClientRequest, ErrorCode, ErrorData, JsonRpcError, JsonRpcMessage, JsonRpcResponse,
    JsonRpcVersion2_0, NumberOrString, RequestId, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, ServiceRole, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{RoleClient, RoleServer};
use scratchpad_core::figures::thousands;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

/// Largest message accepted from a client when none is configured (bytes): room for a large
/// `scratchpad_write`. An HTTP request body has the same limit.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// Largest line the proxy accepts from its upstream when none is configured (bytes).
pub const DEFAULT_MAX_RESULT_BYTES: u64 = 256 * 1024 * 1024;
/// Lines longer than this are spooled to a file rather than held in memory (bytes).
pub const SPOOL_AFTER_BYTES: usize = 16 * 1024 * 1024;
/// Bytes kept from each end of a line that is skipped, to find the id of the request it answers.
const EDGE_BYTES: usize = 4 * 1024;
/// Longest excerpt of a bad line quoted in a message (chars).
const EXCERPT_CHARS: usize = 80;

/// How long a line may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineLimits {
    /// Longer lines are refused (bytes, the newline excluded).
    pub max_bytes: u64,
    /// Longer lines are spooled to a temporary file; at least `max_bytes` means never.
    pub in_memory_bytes: usize,
}

impl LineLimits {
    /// A server's limits: requests are small; content too large for one is stored with the CLI.
    pub fn server(max_bytes: usize) -> Self {
        Self {
            max_bytes: max_bytes as u64,
            in_memory_bytes: max_bytes,
        }
    }

    /// A client's limits: results may be large and are spooled past [`SPOOL_AFTER_BYTES`].
    pub fn client(max_bytes: u64) -> Self {
        Self {
            max_bytes,
            in_memory_bytes: SPOOL_AFTER_BYTES,
        }
    }
}

/// A line that is not a message this side accepts.
#[derive(Debug)]
pub struct BadLine {
    pub problem: Problem,
    /// The id of the request the line was (or answered), when it could be found.
    pub id: Option<RequestId>,
}

#[derive(Debug)]
pub enum Problem {
    TooLong { bytes: u64, limit: u64 },
    NotJson { error: String, excerpt: String },
    NotAMessage { error: String },
    BadParams { method: String, detail: String },
}

/// What a side does with a bad line.
#[derive(Debug)]
pub enum Answer<R: ServiceRole> {
    /// Write this message back to the peer.
    Reply(Value),
    /// Hand this message on as if the peer had sent it.
    Deliver(RxJsonRpcMessage<R>),
    /// Nothing to say beyond the log.
    Ignore,
}

/// How each side of a connection checks and answers what it reads.
pub trait LineRole: ServiceRole {
    /// Checks a message that parsed; a server refuses a standard request whose parameters did not fit.
    fn check(message: RxJsonRpcMessage<Self>) -> Result<RxJsonRpcMessage<Self>, BadLine>;
    fn answer(bad: BadLine) -> Answer<Self>;
    /// A message from a long line already read into a value. Serde's untagged enums copy every
    /// string they buffer, several times for nested ones; a side that expects large messages
    /// builds them so that their strings move out of the value instead.
    fn from_value(value: Value) -> Result<RxJsonRpcMessage<Self>, serde_json::Error> {
        serde_json::from_value(value)
    }
}

impl LineRole for RoleServer {
    fn check(message: RxJsonRpcMessage<Self>) -> Result<RxJsonRpcMessage<Self>, BadLine> {
        if let JsonRpcMessage::Request(request) = &message
            && let ClientRequest::CustomRequest(custom) = &request.request
            && is_standard_request(&custom.method)
        {
            // rmcp reads a standard request whose parameters do not fit as a custom one, and would
            // answer "method not found": say what is wrong with the parameters instead.
            return Err(BadLine {
                problem: Problem::BadParams {
                    method: custom.method.clone(),
                    detail: params_problem(&custom.method, custom.params.as_ref()),
                },
                id: Some(request.id.clone()),
            });
        }
        Ok(message)
    }

    fn answer(bad: BadLine) -> Answer<Self> {
        let (code, message) = match bad.problem {
            Problem::TooLong { bytes, limit } => (
                ErrorCode::INVALID_REQUEST,
                format!(
                    "the message is {} bytes, over this server's limit of {} bytes for one \
                     message; store large content with the CLI (`scratchpad put NAME < file`) and \
                     refer to it by name, or start the server with a larger --max-body-bytes",
                    thousands(bytes),
                    thousands(limit)
                ),
            ),
            Problem::NotJson { error, excerpt } => (
                ErrorCode::PARSE_ERROR,
                format!("parse error: the line is not JSON ({error}): `{excerpt}`"),
            ),
            Problem::NotAMessage { error } => (
                ErrorCode::INVALID_REQUEST,
                format!("invalid request: not a JSON-RPC 2.0 message ({error})"),
            ),
            Problem::BadParams { method, detail } => (
                ErrorCode::INVALID_PARAMS,
                format!("invalid params for {method}: {detail}"),
            ),
        };
        Answer::Reply(serde_json::json!({
            "jsonrpc": "2.0",
            "id": bad.id,
            "error": { "code": code.0, "message": message },
        }))
    }
}

impl LineRole for RoleClient {
    fn check(message: RxJsonRpcMessage<Self>) -> Result<RxJsonRpcMessage<Self>, BadLine> {
        Ok(message)
    }

    /// A tool result (the large message a client gets) is built directly: it is the only result
    /// with a `content` array.
    fn from_value(value: Value) -> Result<RxJsonRpcMessage<Self>, serde_json::Error> {
        let Value::Object(mut message) = value else {
            return serde_json::from_value(value);
        };
        let is_tool_result = !message.contains_key("method")
            && !message.contains_key("error")
            && message
                .get("result")
                .and_then(|result| result.get("content"))
                .is_some_and(Value::is_array);
        if !is_tool_result {
            return serde_json::from_value(Value::Object(message));
        }
        let id = serde_json::from_value(message.remove("id").unwrap_or(Value::Null))?;
        let result = serde_json::from_value(message.remove("result").unwrap_or(Value::Null))?;
        Ok(JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id,
            result: ServerResult::CallToolResult(result),
        }))
    }

    fn answer(bad: BadLine) -> Answer<Self> {
        let message = match &bad.problem {
            Problem::TooLong { bytes, limit } => format!(
                "the upstream's answer is {} bytes, over the proxy's limit of {} bytes for one \
                 message; start the proxy with a larger --max-result-bytes, or ask the tool for less",
                thousands(*bytes),
                thousands(*limit)
            ),
            Problem::NotJson { error, excerpt } => format!(
                "the upstream answered with a line that is not valid JSON ({error}): `{excerpt}`"
            ),
            Problem::NotAMessage { error } => {
                format!(
                    "the upstream answered with something other than a JSON-RPC message ({error})"
                )
            }
            Problem::BadParams { method, detail } => {
                format!("invalid params for {method}: {detail}")
            }
        };
        match bad.id {
            Some(id) => Answer::Deliver(JsonRpcMessage::Error(JsonRpcError {
                jsonrpc: JsonRpcVersion2_0,
                id: Some(id),
                error: ErrorData::new(ErrorCode::INTERNAL_ERROR, message, None),
            })),
            None => {
                // Servers that log to stdout do this all the time; there is no request to fail.
                tracing::warn!("ignored a line from the upstream: {message}");
                Answer::Ignore
            }
        }
    }
}

/// Methods a client sends that rmcp reads into typed requests.
fn is_standard_request(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "server/discover"
            | "prompts/get"
            | "prompts/list"
            | "resources/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "resources/templates/list"
            | "tools/call"
            | "tools/list"
            | "completion/complete"
            | "logging/setLevel"
    )
}

/// What is wrong with a request's parameters, when it is a standard request that rmcp would not read
/// as such (it would answer "method not found"); `None` when nothing is known to be wrong.
pub fn request_problem(method: &str, params: Option<&Value>) -> Option<String> {
    if !is_standard_request(method) {
        return None;
    }
    let fits = match (method, params) {
        (_, Some(params)) if !params.is_object() && !params.is_null() => false,
        ("tools/call", Some(params)) => {
            params.get("name").is_some_and(Value::is_string)
                && params
                    .get("arguments")
                    .is_none_or(|arguments| arguments.is_object() || arguments.is_null())
        }
        ("tools/call", None) => false,
        _ => true,
    };
    (!fits).then(|| params_problem(method, params))
}

/// What is wrong with a standard request's parameters, as precisely as can be said.
pub fn params_problem(method: &str, params: Option<&Value>) -> String {
    let kind = |value: &Value| match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    match params {
        Some(params) if !params.is_object() => {
            format!("`params` must be an object, not {}", kind(params))
        }
        Some(params) if method == "tools/call" => {
            match (params.get("name"), params.get("arguments")) {
                (Some(name), _) if !name.is_string() => {
                    format!(
                        "`name` must be the tool's name as a string, not {}",
                        kind(name)
                    )
                }
                (None, _) => "`name` (the tool to call) is missing".to_owned(),
                (_, Some(arguments)) if !arguments.is_object() && !arguments.is_null() => format!(
                    "`arguments` must be an object of the tool's arguments (e.g. {{\"name\": \"plan\"}}), \
                 not {}",
                    kind(arguments)
                ),
                _ => "the parameters do not have the shape tools/call takes".to_owned(),
            }
        }
        Some(_) => format!("the parameters do not have the shape {method} takes"),
        None => format!("{method} needs parameters"),
    }
}

/// The id of the request a line is or answers, looked for at its ends: at the start
/// (`{"jsonrpc":"2.0","id":7,…`) or the end (`…,"id":7}`), where JSON-RPC libraries put it.
pub fn find_id(head: &[u8], tail: &[u8]) -> Option<RequestId> {
    fn value(after_colon: &str) -> Option<RequestId> {
        let rest = after_colon.trim_start();
        if let Some(string) = rest.strip_prefix('"') {
            let end = string.find('"')?;
            return Some(NumberOrString::String(Arc::from(&string[..end])));
        }
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(rest.len());
        rest[..end].parse().ok().map(NumberOrString::Number)
    }
    let head = String::from_utf8_lossy(head);
    let opening = head.trim_start().strip_prefix('{').unwrap_or("");
    // `"id"` among the first members: skip at most a `"jsonrpc":"2.0",` before it.
    let opening = opening
        .trim_start()
        .strip_prefix(r#""jsonrpc""#)
        .and_then(|rest| rest.split_once(',').map(|(_, rest)| rest))
        .unwrap_or(opening);
    if let Some(rest) = opening.trim_start().strip_prefix(r#""id""#)
        && let Some(rest) = rest.trim_start().strip_prefix(':')
    {
        return value(rest);
    }
    let tail = String::from_utf8_lossy(tail);
    let closing = tail.trim_end().strip_suffix('}')?;
    let at = closing.rfind(r#""id""#)?;
    let rest = closing[at + 4..].trim_start().strip_prefix(':')?;
    // Only if nothing follows the id but the closing brace.
    let id = value(rest)?;
    let shown = match &id {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => format!("\"{s}\""),
    };
    (rest.trim() == shown).then_some(id)
}

fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let mut shown: String = text.chars().take(EXCERPT_CHARS).collect();
    if text.chars().count() > EXCERPT_CHARS {
        shown.push('…');
    }
    shown
}

/// Where the line being read is going.
#[derive(Debug, Default)]
enum Pending {
    /// In memory, in [`Lines::line`].
    #[default]
    Memory,
    /// In a temporary file; `bytes` so far.
    Spooled { file: std::fs::File, bytes: u64 },
    /// Over the limit: dropped, keeping only its ends.
    Skipped {
        head: Vec<u8>,
        tail: VecDeque<u8>,
        bytes: u64,
    },
}

/// A parsed message or the reason a line is not one.
type Parsed<R> = Result<RxJsonRpcMessage<R>, BadLine>;

/// JSON-RPC messages, one per line, over a reader and a writer.
#[derive(Debug)]
pub struct Lines<R: ServiceRole, In, Out> {
    read: BufReader<In>,
    line: Vec<u8>,
    pending: Pending,
    /// A spooled line being parsed off the async workers; kept here so that a `receive` dropped
    /// while waiting for it (it runs inside a `select!`) finds it again.
    parsing: Option<JoinHandle<Parsed<R>>>,
    write: Arc<Mutex<Option<Out>>>,
    limits: LineLimits,
}

impl<R, In, Out> Lines<R, In, Out>
where
    R: LineRole,
    In: tokio::io::AsyncRead + Send + Unpin,
    Out: AsyncWrite + Send + Unpin + 'static,
{
    pub fn new(read: In, write: Out, limits: LineLimits) -> Self {
        Self {
            read: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            pending: Pending::Memory,
            parsing: None,
            write: Arc::new(Mutex::new(Some(write))),
            limits,
        }
    }

    /// Reads until a whole line has arrived; `None` at the end of the stream or on a read error.
    /// Cancel-safe: what was read stays in `self` for the next call.
    async fn next_line(&mut self) -> Option<()> {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(available) => available,
                Err(err) => {
                    tracing::error!("reading a message failed: {err}");
                    return None;
                }
            };
            if available.is_empty() {
                return None;
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |at| at + 1);
            let piece = &available[..take];
            let limits = self.limits;
            match &mut self.pending {
                Pending::Memory => {
                    let total = (self.line.len() + take) as u64;
                    if total > limits.max_bytes + 1 {
                        let mut head = std::mem::take(&mut self.line);
                        head.extend_from_slice(piece);
                        let tail: VecDeque<u8> = head[head.len().saturating_sub(EDGE_BYTES)..]
                            .iter()
                            .copied()
                            .collect();
                        head.truncate(EDGE_BYTES);
                        self.pending = Pending::Skipped {
                            head,
                            tail,
                            bytes: total,
                        };
                    } else if self.line.len() + take > limits.in_memory_bytes + 1 {
                        match spool(&self.line, piece) {
                            Ok(file) => {
                                self.line.clear();
                                self.pending = Pending::Spooled { file, bytes: total };
                            }
                            Err(err) => {
                                tracing::error!(
                                    "cannot spool a long message to a temporary file: {err}"
                                );
                                self.pending = Pending::Skipped {
                                    head: self.line.iter().copied().take(EDGE_BYTES).collect(),
                                    tail: piece.iter().copied().collect(),
                                    bytes: total,
                                };
                                self.line.clear();
                            }
                        }
                    } else {
                        self.line.extend_from_slice(piece);
                    }
                }
                Pending::Spooled { file, bytes } => {
                    *bytes += take as u64;
                    if *bytes > limits.max_bytes + 1 {
                        let mut head = vec![0; EDGE_BYTES];
                        let read_head = file
                            .rewind()
                            .and_then(|()| std::io::Read::read(file, &mut head));
                        head.truncate(read_head.unwrap_or(0));
                        let bytes = *bytes;
                        self.pending = Pending::Skipped {
                            head,
                            tail: piece.iter().copied().collect(),
                            bytes,
                        };
                    } else if let Err(err) = file.write_all(piece) {
                        tracing::error!("cannot spool a long message to a temporary file: {err}");
                        let bytes = *bytes;
                        self.pending = Pending::Skipped {
                            head: Vec::new(),
                            tail: piece.iter().copied().collect(),
                            bytes,
                        };
                    }
                }
                Pending::Skipped { tail, bytes, .. } => {
                    *bytes += take as u64;
                    tail.extend(&piece[piece.len().saturating_sub(EDGE_BYTES)..]);
                    let excess = tail.len().saturating_sub(EDGE_BYTES);
                    tail.drain(..excess);
                }
            }
            self.read.consume(take);
            if newline.is_some() {
                return Some(());
            }
        }
    }

    /// The message the line just read holds, or why it holds none; `None` for a blank line.
    async fn parse_line(&mut self) -> Option<Parsed<R>> {
        match std::mem::take(&mut self.pending) {
            Pending::Memory => {
                let line = trim_line(&self.line);
                if line.is_empty() {
                    self.line.clear();
                    return None;
                }
                let parsed = parse::<R>(line);
                self.line.clear();
                parsed
            }
            Pending::Spooled { mut file, .. } => {
                let handle = tokio::task::spawn_blocking(move || match file.rewind() {
                    Ok(()) => parse_spooled::<R>(file),
                    Err(err) => Err(BadLine {
                        problem: Problem::NotJson {
                            error: err.to_string(),
                            excerpt: String::new(),
                        },
                        id: None,
                    }),
                });
                self.parsing = Some(handle);
                self.finish_parsing().await
            }
            Pending::Skipped { head, tail, bytes } => {
                let tail: Vec<u8> = tail.into_iter().collect();
                Some(Err(BadLine {
                    id: find_id(&head, &tail),
                    problem: Problem::TooLong {
                        // The newline is not part of the message.
                        bytes: bytes.saturating_sub(1),
                        limit: self.limits.max_bytes,
                    },
                }))
            }
        }
    }

    async fn finish_parsing(&mut self) -> Option<Parsed<R>> {
        let handle = self.parsing.as_mut()?;
        let joined = handle.await;
        self.parsing = None;
        match joined {
            Ok(parsed) => Some(parsed),
            Err(err) => Some(Err(BadLine {
                problem: Problem::NotJson {
                    error: format!("parsing stopped: {err}"),
                    excerpt: String::new(),
                },
                id: None,
            })),
        }
    }
}

/// The line without its newline, a carriage return before it, or a byte-order mark.
fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

fn spool(first: &[u8], then: &[u8]) -> std::io::Result<std::fs::File> {
    let mut file = tempfile::tempfile()?;
    file.write_all(first)?;
    file.write_all(then)?;
    Ok(file)
}

/// Parses a line into a message this side accepts. `None`: nothing to deliver (a blank line, or a
/// notification ignored for compatibility, as rmcp's own transport does).
fn parse<R: LineRole>(line: &[u8]) -> Option<Parsed<R>> {
    match serde_json::from_slice::<RxJsonRpcMessage<R>>(line) {
        Ok(message) => Some(R::check(message)),
        Err(err) => explain::<R>(err, || serde_json::from_slice::<Value>(line).ok(), line),
    }
}

fn parse_spooled<R: LineRole>(mut file: std::fs::File) -> Parsed<R> {
    // Read whole and parsed as a slice: strings then come out at their exact size, where parsing
    // from a reader grows a scratch buffer to up to twice the longest one first.
    let size = file.metadata().map_or(0, |meta| meta.len());
    let mut line = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let read = std::io::Read::read_to_end(&mut file, &mut line);
    if let Err(err) = read {
        return Err(BadLine {
            problem: Problem::NotJson {
                error: format!("cannot read the spooled message back: {err}"),
                excerpt: String::new(),
            },
            id: None,
        });
    }
    let value = serde_json::from_slice::<Value>(trim_line(&line));
    drop(line);
    let message = value.and_then(R::from_value).map_err(|err| BadLine {
        problem: if err.is_syntax() || err.is_eof() {
            Problem::NotJson {
                error: err.to_string(),
                excerpt: String::new(),
            }
        } else {
            Problem::NotAMessage {
                error: err.to_string(),
            }
        },
        id: None,
    })?;
    R::check(message)
}

/// Why a line did not parse into a message; `None` when it is a notification to ignore.
fn explain<R: LineRole>(
    err: serde_json::Error,
    as_value: impl FnOnce() -> Option<Value>,
    line: &[u8],
) -> Option<Parsed<R>> {
    if err.is_syntax() || err.is_eof() {
        let edge = &line[line.len().saturating_sub(EDGE_BYTES)..];
        return Some(Err(BadLine {
            id: find_id(&line[..line.len().min(EDGE_BYTES)], edge),
            problem: Problem::NotJson {
                error: err.to_string(),
                excerpt: excerpt(line),
            },
        }));
    }
    let value = as_value();
    let id = value
        .as_ref()
        .and_then(|v| v.get("id"))
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let method = value
        .as_ref()
        .and_then(|v| v.get("method"))
        .and_then(Value::as_str);
    if let (None, Some(method)) = (&id, method)
        && (method.starts_with("notifications/") || !is_standard_request(method))
    {
        // Notifications nobody asked for (LSP messages, vendor extensions) are not errors.
        tracing::debug!("ignored the notification `{method}`");
        return None;
    }
    let problem = match method {
        Some(method) if is_standard_request(method) => Problem::BadParams {
            method: method.to_owned(),
            detail: params_problem(method, value.as_ref().and_then(|v| v.get("params"))),
        },
        _ => Problem::NotAMessage {
            error: err.to_string(),
        },
    };
    Some(Err(BadLine { problem, id }))
}

async fn write_line<Out: AsyncWrite + Unpin>(
    write: &Mutex<Option<Out>>,
    line: &[u8],
) -> std::io::Result<()> {
    let mut guard = write.lock().await;
    let out = guard.as_mut().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::NotConnected, "the connection is closed")
    })?;
    out.write_all(line).await?;
    out.flush().await
}

impl<R, In, Out> Transport<R> for Lines<R, In, Out>
where
    R: LineRole,
    In: tokio::io::AsyncRead + Send + Unpin,
    Out: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<R>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            write_line(&write, &line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<R>> {
        loop {
            let parsed = if self.parsing.is_some() {
                self.finish_parsing().await
            } else {
                self.next_line().await?;
                self.parse_line().await
            };
            let bad = match parsed {
                None => continue,
                Some(Ok(message)) => return Some(message),
                Some(Err(bad)) => bad,
            };
            match R::answer(bad) {
                Answer::Reply(message) => {
                    let line = serde_json::to_vec(&message).map(|mut line| {
                        line.push(b'\n');
                        line
                    });
                    let written = match line {
                        Ok(line) => write_line(&self.write, &line).await,
                        Err(err) => Err(err.into()),
                    };
                    if let Err(err) = written {
                        tracing::error!("cannot answer a bad message: {err}");
                        return None;
                    }
                }
                Answer::Deliver(message) => return Some(message),
                Answer::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let taken = self.write.lock().await.take();
        if let Some(mut out) = taken {
            out.shutdown().await?;
        }
        Ok(())
    }
}
