//! Streamable HTTP: loopback by default; any other bind needs a bearer token. Host and Origin are
//! checked against DNS rebinding, bodies are size-limited, and each token is its own session unless the
//! server was given a fixed one. Connections are capped per address and in total and closed when
//! they stall ([`ConnectionLimits`]); MCP sessions are capped per client, and no client's sessions
//! are closed to make room for another's ([`SessionLimits`]).

mod connections;

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use http::{Method, StatusCode, header};
use rmcp::model::ErrorCode;
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use scratchpad_core::Scratchpad;
use scratchpad_core::figures::thousands;
use scratchpad_http::HostCheck;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::server::{ClientSession, ScratchpadServer, SessionPolicy};

pub use connections::{ConnectionLimits, Peer};

/// The path clients connect to: `http://HOST:PORT/mcp`.
pub const ENDPOINT: &str = "/mcp";
/// Largest request body accepted when none is configured (bytes): one message, as over stdio.
pub const DEFAULT_MAX_BODY_BYTES: usize = crate::lines::DEFAULT_MAX_MESSAGE_BYTES;

/// How to serve over HTTP.
#[derive(Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Bearer tokens that may connect; each one is a client with its own session. Empty: no
    /// authentication, allowed on loopback only.
    pub tokens: Vec<String>,
    /// Every client works in the scratchpad's session instead of one per token.
    pub fixed_session: bool,
    /// Extra `Host` values to accept besides the loopback names (e.g. the name clients use to reach
    /// a public bind).
    pub allowed_hosts: Vec<String>,
    /// Extra browser origins to accept besides loopback ones, e.g. `https://app.example.com:443`.
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
    pub sessions: SessionLimits,
    pub connections: ConnectionLimits,
}

/// How many MCP sessions the server keeps, and for how long. Each costs memory until it ends, so a
/// client cannot open them without bound, and no client can close another's:
///
/// - with tokens, a client is a token: past its cap, its own least recently used session is closed;
/// - without tokens, each session is its own client (the programs on one machine all come from the
///   same address, so none may close the others' sessions), and one address keeps at most the
///   per-client cap: past it, new sessions from there are refused until one ends or idles out.
///
/// Past the server's cap new sessions are refused until some end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Sessions of all clients together.
    pub max_total: usize,
    /// Sessions of one token; without tokens, sessions opened from one address.
    pub max_per_client: usize,
    /// A session unused this long is closed; its client starts a new one.
    pub idle: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            max_total: 1_000,
            max_per_client: 64,
            idle: Duration::from_secs(30 * 60),
        }
    }
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpOptions")
            .field("addr", &self.addr)
            .field("tokens", &format_args!("[{} redacted]", self.tokens.len()))
            .field("fixed_session", &self.fixed_session)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("sessions", &self.sessions)
            .field("connections", &self.connections)
            .finish()
    }
}

impl HttpOptions {
    /// Loopback on `addr`, no tokens, default limits.
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            tokens: Vec::new(),
            fixed_session: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            sessions: SessionLimits::default(),
            connections: ConnectionLimits::default(),
        }
    }
}

/// A bound HTTP server, not yet serving: [`HttpServer::local_addr`] tells the port picked for `:0`.
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    router: axum::Router,
    connections: ConnectionLimits,
    shutdown: CancellationToken,
}

impl HttpServer {
    /// Checks the options and binds. Must run inside a Tokio runtime.
    pub async fn bind(pad: Scratchpad, options: HttpOptions) -> Result<Self> {
        check_options(&options)?;
        let listener = TcpListener::bind(options.addr)
            .await
            .map_err(|err| Error::Config(format!("cannot listen on {}: {err}", options.addr)))?;
        let port = listener.local_addr()?.port();
        let shutdown = CancellationToken::new();
        let policy = if options.tokens.is_empty() || options.fixed_session {
            SessionPolicy::Fixed
        } else {
            SessionPolicy::PerClient
        };
        let server = ScratchpadServer::with_policy(pad, policy);
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(options.sessions.idle);
        let manager = Arc::new(manager);
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::clone(&manager),
            transport_config(&options, port, shutdown.child_token()),
        );
        let gate = Arc::new(Gate {
            tokens: Tokens::new(&options.tokens),
            sessions: Mutex::new(Sessions::default()),
            limits: options.sessions,
            max_body_bytes: options.max_body_bytes,
            body_timeout: options.connections.body_timeout,
            manager,
        });
        let router = axum::Router::new()
            .nest_service(ENDPOINT, service)
            .layer(middleware::from_fn_with_state(gate, guard));
        Ok(Self {
            listener,
            router,
            connections: options.connections,
            shutdown,
        })
    }

    pub fn local_addr(&self) -> Result<SocketAddr> {
        Ok(self.listener.local_addr()?)
    }

    /// A handle that stops the server when cancelled.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Serves until the shutdown token is cancelled, then gives open requests a moment to end.
    pub async fn run(self) -> Result<()> {
        connections::serve(self.listener, self.router, self.connections, self.shutdown).await;
        Ok(())
    }
}

/// Serves over HTTP until Ctrl-C or SIGTERM; `on_listening` learns the bound address first.
pub fn serve_http(
    pad: Scratchpad,
    options: HttpOptions,
    on_listening: impl FnOnce(SocketAddr),
) -> Result<()> {
    let serving = pad.clone();
    crate::run_to_completion(pad, async move {
        let server = HttpServer::bind(serving, options).await?;
        on_listening(server.local_addr()?);
        let stop = server.shutdown_token();
        tokio::spawn(async move {
            wait_for_signal().await;
            stop.cancel();
        });
        server.run().await
    })
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate());
        match term {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn check_options(options: &HttpOptions) -> Result<()> {
    if !options.addr.ip().is_loopback() && options.tokens.is_empty() {
        return Err(Error::Config(format!(
            "{} is not a loopback address, so clients must authenticate: pass --token TOKEN (or set \
             SCRATCHPAD_MCP_TOKEN), or bind 127.0.0.1",
            options.addr
        )));
    }
    if let Some(short) = options
        .tokens
        .iter()
        .find(|token| token.len() < MIN_TOKEN_CHARS)
    {
        return Err(Error::Config(format!(
            "a bearer token must have at least {MIN_TOKEN_CHARS} characters (one has {}); generate one \
             with e.g. `openssl rand -hex 32`",
            short.len()
        )));
    }
    if options.max_body_bytes == 0 {
        return Err(Error::Config(
            "the body limit must be at least 1 byte".into(),
        ));
    }
    if options.sessions.max_total == 0 || options.sessions.max_per_client == 0 {
        return Err(Error::Config(
            "the session limits must allow at least one session".into(),
        ));
    }
    let connections = &options.connections;
    if connections.max_total == 0 || connections.max_per_address == 0 {
        return Err(Error::Config(
            "the connection limits must allow at least one connection".into(),
        ));
    }
    if [
        connections.header_timeout,
        connections.keep_alive,
        connections.body_timeout,
    ]
    .contains(&Duration::ZERO)
    {
        return Err(Error::Config(
            "the header, keep-alive and body timeouts must be at least a second".into(),
        ));
    }
    Ok(())
}

/// Shorter secrets are guessable; the check is for mistakes, not a policy.
const MIN_TOKEN_CHARS: usize = 16;

fn transport_config(
    options: &HttpOptions,
    port: u16,
    cancel: CancellationToken,
) -> StreamableHttpServerConfig {
    // Browsers send an Origin. Trusted: this server's own origin and those configured. A page on
    // another local port is not the user's client (any local web server can serve one).
    let bound = SocketAddr::new(options.addr.ip(), port);
    let check = HostCheck::new(bound, &options.allowed_hosts, &options.allowed_origins);
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(check.hosts().iter().cloned())
        .with_allowed_origins(check.origins().iter().cloned())
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_cancellation_token(cancel)
}

/// The accepted tokens, kept as hashes: comparing blake3 hashes is constant-time, and the session a
/// token maps to is derived from its hash, never from the secret itself.
struct Tokens {
    hashes: Vec<blake3::Hash>,
}

impl Tokens {
    fn new(tokens: &[String]) -> Self {
        Self {
            hashes: tokens.iter().map(|t| blake3::hash(t.as_bytes())).collect(),
        }
    }

    /// The hash of `token`, if it is one of ours.
    fn known(&self, token: &str) -> Option<blake3::Hash> {
        let presented = blake3::hash(token.as_bytes());
        self.hashes
            .iter()
            .find(|known| **known == presented)
            .copied()
    }
}

/// Who a request comes from: the hash of its token, or `None` when the server has no tokens.
type Client = Option<blake3::Hash>;

/// Whom a session counts against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Owner {
    /// A token's sessions are its client's own: past its cap the oldest is closed.
    Token(blake3::Hash),
    /// Without tokens each session is its own client; an address's sessions may be several
    /// programs', so past the cap new ones are refused and none is closed.
    Address(IpAddr),
}

/// The scratchpad session of the client presenting a token.
fn session_for(client: &blake3::Hash) -> String {
    format!("client-{}", &client.to_hex()[..12])
}

/// Everything between a request and the MCP service: who sent it, whether its session is its own,
/// whether it is JSON-RPC the service can answer.
struct Gate {
    tokens: Tokens,
    sessions: Mutex<Sessions>,
    limits: SessionLimits,
    max_body_bytes: usize,
    body_timeout: Duration,
    manager: Arc<LocalSessionManager>,
}

/// Live MCP sessions: which client opened each, and when it was last used.
#[derive(Default)]
struct Sessions {
    open: HashMap<String, SessionRecord>,
    /// Sessions being created (an `initialize` in flight), counted against the caps.
    starting: HashMap<Owner, usize>,
}

struct SessionRecord {
    client: Client,
    owner: Owner,
    last_used: Instant,
}

/// What to do about a request that would open a session. Sessions in `evict` are to be closed
/// whatever the answer.
enum Admission {
    Admit {
        evict: Vec<String>,
    },
    /// The server holds as many sessions as it may.
    Full {
        evict: Vec<String>,
    },
    /// The address holds as many sessions as one may (without tokens).
    AddressFull {
        open: usize,
        evict: Vec<String>,
    },
}

impl Sessions {
    /// Forgets sessions idle past `idle` (their workers stop on their own) and returns them.
    fn expire(&mut self, idle: Duration) -> Vec<String> {
        let now = Instant::now();
        let expired: Vec<String> = self
            .open
            .iter()
            .filter(|(_, record)| now.duration_since(record.last_used) >= idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            self.open.remove(id);
        }
        expired
    }

    fn admit(&mut self, owner: Owner, limits: &SessionLimits) -> Admission {
        let mut evict = self.expire(limits.idle);
        let starting = self.starting.get(&owner).copied().unwrap_or(0);
        let mut own: Vec<(Instant, String)> = self
            .open
            .iter()
            .filter(|(_, record)| record.owner == owner)
            .map(|(id, record)| (record.last_used, id.clone()))
            .collect();
        if own.len() + starting >= limits.max_per_client {
            match owner {
                Owner::Token(_) => {
                    // A client over its own cap loses its least recently used sessions.
                    own.sort();
                    let excess = (own.len() + starting + 1).saturating_sub(limits.max_per_client);
                    for (_, id) in own.iter().take(excess) {
                        self.open.remove(id);
                        evict.push(id.clone());
                    }
                }
                Owner::Address(_) => {
                    return Admission::AddressFull {
                        open: own.len() + starting,
                        evict,
                    };
                }
            }
        }
        let starting_total: usize = self.starting.values().sum();
        if self.open.len() + starting_total >= limits.max_total {
            return Admission::Full { evict };
        }
        *self.starting.entry(owner).or_default() += 1;
        Admission::Admit { evict }
    }

    /// An `initialize` of `owner` got its answer.
    fn started(&mut self, owner: Owner) {
        if let Some(starting) = self.starting.get_mut(&owner) {
            *starting = starting.saturating_sub(1);
            if *starting == 0 {
                self.starting.remove(&owner);
            }
        }
    }
}

async fn guard(State(gate): State<Arc<Gate>>, mut request: Request, next: Next) -> Response {
    let Ok(client) = gate.identify(&request) else {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "missing or unknown bearer token: send `Authorization: Bearer TOKEN` with a token given \
             to `scratchpad mcp serve --token`\n",
        )
            .into_response();
    };
    if let Some(session) = client.as_ref().map(session_for) {
        request.extensions_mut().insert(ClientSession(session));
    }
    let owner = match client {
        Some(token) => Owner::Token(token),
        None => Owner::Address(
            request
                .extensions()
                .get::<Peer>()
                .map_or(IpAddr::from([0, 0, 0, 0]), |peer| peer.0.ip()),
        ),
    };
    let session_id = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let request = match gate.check_body(request).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    match session_id {
        Some(id) => gate.in_session(client, &id, request, next).await,
        None if request.method() == Method::POST => {
            gate.maybe_opening(owner, client, request, next).await
        }
        None => next.run(request).await,
    }
}

/// The header that names a streamable-HTTP session.
const SESSION_HEADER: &str = "mcp-session-id";

impl Gate {
    /// The client a request comes from; `Err` when it must be refused (no known token).
    fn identify(&self, request: &Request) -> Result<Client, ()> {
        if self.tokens.hashes.is_empty() {
            return Ok(None);
        }
        // RFC 9110: the scheme is case-insensitive.
        let presented = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        match presented.and_then(|token| self.tokens.known(token)) {
            Some(hash) => Ok(Some(hash)),
            None => Err(()),
        }
    }

    /// Reads a body whole (within the size limit and the body timeout, so a body that trickles
    /// cannot hold its connection) and answers what the service would misanswer about a POST's:
    /// a body that is not JSON (400 with a JSON-RPC parse error, where the service says 415), and a
    /// standard request whose parameters have the wrong shape (a JSON-RPC error naming them, where
    /// the service says "method not found").
    async fn check_body(&self, request: Request) -> Result<Request, Response> {
        let (parts, body) = request.into_parts();
        let read = axum::body::to_bytes(body, self.max_body_bytes);
        let bytes = match tokio::time::timeout(self.body_timeout, read).await {
            Ok(Ok(bytes)) => bytes,
            Err(_) => {
                let mut answer = jsonrpc_error(
                    StatusCode::REQUEST_TIMEOUT,
                    None,
                    ErrorCode::INVALID_REQUEST,
                    format!(
                        "the request body did not arrive within {} s (this server's \
                         --body-timeout-secs); send it whole at once",
                        self.body_timeout.as_secs_f64()
                    ),
                );
                answer
                    .headers_mut()
                    .insert(header::CONNECTION, http::HeaderValue::from_static("close"));
                return Err(answer);
            }
            Ok(Err(_)) => {
                return Err(jsonrpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    None,
                    ErrorCode::INVALID_REQUEST,
                    format!(
                        "the request body is over this server's limit of {} bytes; store large \
                         content with the CLI (`scratchpad put NAME < file`) and refer to it by name, \
                         or start the server with a larger --max-body-bytes",
                        thousands(self.max_body_bytes as u64)
                    ),
                ));
            }
        };
        if parts.method != Method::POST {
            return Ok(Request::from_parts(parts, axum::body::Body::from(bytes)));
        }
        let message: Value = match serde_json::from_slice(&bytes) {
            Ok(message) => message,
            Err(err) => {
                return Err(jsonrpc_error(
                    StatusCode::BAD_REQUEST,
                    None,
                    ErrorCode::PARSE_ERROR,
                    format!("parse error: the request body is not JSON ({err})"),
                ));
            }
        };
        if let Some(method) = message.get("method").and_then(Value::as_str)
            && let Some(id) = message.get("id")
            && let Some(problem) = crate::lines::request_problem(method, message.get("params"))
        {
            return Err(jsonrpc_error(
                StatusCode::OK,
                Some(id.clone()),
                ErrorCode::INVALID_PARAMS,
                format!("invalid params for {method}: {problem}"),
            ));
        }
        Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
    }

    /// A request in an existing session, which must be the requesting client's own.
    async fn in_session(&self, client: Client, id: &str, request: Request, next: Next) -> Response {
        let owned = {
            let Ok(mut sessions) = self.sessions.lock() else {
                return internal();
            };
            let expired = sessions.expire(self.limits.idle);
            self.close(expired);
            match sessions.open.get_mut(id) {
                Some(record) if record.client == client => {
                    record.last_used = Instant::now();
                    true
                }
                _ => false,
            }
        };
        if !owned {
            // Another client's session looks exactly like one that does not exist.
            return jsonrpc_error(
                StatusCode::NOT_FOUND,
                None,
                ErrorCode::INVALID_REQUEST,
                "session not found (it ended, expired after being idle, or was never yours): start a \
                 new one with initialize"
                    .into(),
            );
        }
        let deleting = request.method() == Method::DELETE;
        let response = next.run(request).await;
        if deleting
            && response.status().is_success()
            && let Ok(mut sessions) = self.sessions.lock()
        {
            sessions.open.remove(id);
        }
        response
    }

    /// A POST without a session: if it opens one (`initialize`), within the caps.
    async fn maybe_opening(
        &self,
        owner: Owner,
        client: Client,
        request: Request,
        next: Next,
    ) -> Response {
        let admission = match self.sessions.lock() {
            Ok(mut sessions) => sessions.admit(owner, &self.limits),
            Err(_) => return internal(),
        };
        match admission {
            Admission::AddressFull { open, evict } => {
                self.close(evict);
                let address = match owner {
                    Owner::Address(address) => address.to_string(),
                    Owner::Token(_) => "this client".to_owned(),
                };
                let mut refused = jsonrpc_error(
                    StatusCode::TOO_MANY_REQUESTS,
                    None,
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "{open} MCP sessions are open from {address}, the most one address may \
                         have (--max-sessions-per-client); without tokens no client's session is \
                         closed to make room for another's: end one you no longer use (DELETE \
                         with its Mcp-Session-Id) or try again once one has been idle {} s",
                        self.limits.idle.as_secs()
                    ),
                );
                refused
                    .headers_mut()
                    .insert(header::RETRY_AFTER, http::HeaderValue::from_static("30"));
                refused
            }
            Admission::Full { evict } => {
                self.close(evict);
                let mut refused = jsonrpc_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    None,
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "this server has {} MCP sessions open, its limit; try again later (idle \
                         sessions close after {} s)",
                        self.limits.max_total,
                        self.limits.idle.as_secs()
                    ),
                );
                refused
                    .headers_mut()
                    .insert(header::RETRY_AFTER, http::HeaderValue::from_static("30"));
                refused
            }
            Admission::Admit { evict } => {
                self.close(evict);
                // Counted as starting until answered, or until its client hangs up first.
                let starting = Starting { gate: self, owner };
                let response = next.run(request).await;
                drop(starting);
                let opened = response
                    .headers()
                    .get(SESSION_HEADER)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned);
                if let Some(id) = opened
                    && let Ok(mut sessions) = self.sessions.lock()
                {
                    sessions.open.insert(
                        id,
                        SessionRecord {
                            client,
                            owner,
                            last_used: Instant::now(),
                        },
                    );
                }
                response
            }
        }
    }

    /// Ends sessions in the MCP service (in the background: closing waits for their workers).
    fn close(&self, ids: Vec<String>) {
        if ids.is_empty() {
            return;
        }
        let manager = Arc::clone(&self.manager);
        tokio::spawn(async move {
            for id in ids {
                let _ = manager.close_session(&Arc::from(id.as_str())).await;
            }
        });
    }
}

/// An `initialize` in flight, counted against its owner's caps until dropped.
struct Starting<'a> {
    gate: &'a Gate,
    owner: Owner,
}

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        if let Ok(mut sessions) = self.gate.sessions.lock() {
            sessions.started(self.owner);
        }
    }
}

fn internal() -> Response {
    (StatusCode::INTERNAL_SERVER_ERROR, "internal error\n").into_response()
}

/// A JSON-RPC error as an HTTP response.
fn jsonrpc_error(
    status: StatusCode,
    id: Option<Value>,
    code: ErrorCode,
    message: String,
) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": { "code": code.0, "message": message },
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}
