//! Streamable HTTP: loopback by default; any other bind needs a bearer token. Host and Origin are
//! checked against DNS rebinding, bodies are size-limited, and each token is its own session unless the
//! server was given a fixed one.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use http::{StatusCode, header};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use scratchpad_core::Scratchpad;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::server::{ClientSession, ScratchpadServer, SessionPolicy};

/// The path clients connect to: `http://HOST:PORT/mcp`.
pub const ENDPOINT: &str = "/mcp";
/// Largest request body accepted when none is configured (bytes): room for a large `scratchpad_write`.
pub const DEFAULT_MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

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
        }
    }
}

/// A bound HTTP server, not yet serving: [`HttpServer::local_addr`] tells the port picked for `:0`.
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    router: axum::Router,
    shutdown: CancellationToken,
}

impl HttpServer {
    /// Checks the options and binds. Must run inside a Tokio runtime.
    pub async fn bind(pad: Scratchpad, options: HttpOptions) -> Result<Self> {
        check_options(&options)?;
        let listener = TcpListener::bind(options.addr)
            .await
            .map_err(|err| Error::Config(format!("cannot listen on {}: {err}", options.addr)))?;
        let shutdown = CancellationToken::new();
        let policy = if options.tokens.is_empty() || options.fixed_session {
            SessionPolicy::Fixed
        } else {
            SessionPolicy::PerClient
        };
        let server = ScratchpadServer::with_policy(pad, policy);
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            transport_config(&options, shutdown.child_token()),
        );
        let auth = Arc::new(Tokens::new(&options.tokens));
        let router = axum::Router::new()
            .nest_service(ENDPOINT, service)
            .layer(middleware::from_fn_with_state(auth, authenticate));
        Ok(Self {
            listener,
            router,
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

    /// Serves until the shutdown token is cancelled.
    pub async fn run(self) -> Result<()> {
        let shutdown = self.shutdown.clone();
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await?;
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
    Ok(())
}

/// Shorter secrets are guessable; the check is for mistakes, not a policy.
const MIN_TOKEN_CHARS: usize = 16;

fn transport_config(
    options: &HttpOptions,
    cancel: CancellationToken,
) -> StreamableHttpServerConfig {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    if !options.addr.ip().is_unspecified() {
        hosts.push(options.addr.ip().to_string());
    }
    hosts.extend(options.allowed_hosts.iter().cloned());
    let mut origins: Vec<String> = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    origins.extend(options.allowed_origins.iter().cloned());
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
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

    /// The session of the client presenting `token`, if it is one of ours.
    fn session_for(&self, token: &str) -> Option<String> {
        let presented = blake3::hash(token.as_bytes());
        self.hashes
            .iter()
            .find(|known| **known == presented)
            .map(|known| format!("client-{}", &known.to_hex()[..12]))
    }
}

async fn authenticate(
    State(tokens): State<Arc<Tokens>>,
    mut request: Request,
    next: Next,
) -> Response {
    if tokens.hashes.is_empty() {
        return next.run(request).await;
    }
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    match presented.and_then(|token| tokens.session_for(token)) {
        Some(session) => {
            request.extensions_mut().insert(ClientSession(session));
            next.run(request).await
        }
        None => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "missing or unknown bearer token: send `Authorization: Bearer TOKEN` with a token given to \
             `scratchpad mcp serve --token`\n",
        )
            .into_response(),
    }
}
