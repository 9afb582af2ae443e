//! `scratchpad ui`: a live, local web view of a scratchpad store, for the people behind the agents.
//!
//! It shows every session of the store (it is the owner's view), each session's entries, an entry's
//! metadata and the preview exactly as the model saw it, the whole content read in place (the read
//! modes of the CLI as query parameters, and a viewer that scrolls through an entry of any size by
//! fetching line ranges on demand), notes with their history and diffs, search across sessions, and
//! what the scratchpad saved: tokens kept out of contexts against tokens read back, measured from
//! the usage record. Open pages follow what agents write as they write it.
//!
//! ```no_run
//! use scratchpad_ui::{UiOptions, serve};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let pad = scratchpad_core::Scratchpad::open("sqlite:///tmp/pad.db")?;
//! let options = UiOptions::new("127.0.0.1:0".parse()?);
//! // Serves until Ctrl-C; the callback learns the address (with this launch's token) first.
//! serve(pad, options, |url| println!("{url}"))?;
//! # Ok(()) }
//! ```
//!
//! # Design
//!
//! **Server-rendered HTML and a little JavaScript, all in the binary.** Every page is HTML written
//! here, so it is complete on first paint, has an address a person can paste (`/s/build/e/log_3?
//! lines=211987-212010`), and needs no build step, no framework and no network: the stylesheet, one
//! script and an icon are compiled in with `include_str!`. The script does what HTML cannot: the
//! viewer that keeps only the visible lines of a 1 GB entry in the page, the JSON tree, the hex
//! view, in-place editing with conflict handling, and live updates. It talks to the same JSON API
//! under `/api/` that scripts can use. A front-end framework with committed build output would add
//! a toolchain to the repository and a bundle to the binary for no page this needs.
//!
//! **Stored content is text, never markup.** Everything an agent stored is escaped where HTML is
//! written, and the script only ever sets `textContent`. A strict Content-Security-Policy backs this
//! up: scripts and styles from this origin only, no inline script or style, no other origin at all,
//! no framing. Nothing is fetched from anywhere else, so the view works offline.
//!
//! **A token on every request.** Each launch makes a random token; the URL printed at start carries
//! it, and the first visit trades it for a cookie (`HttpOnly`, `SameSite=Strict`) and drops it from
//! the address. Scripts may send it as `Authorization: Bearer`. `Host` and `Origin` are checked
//! against DNS rebinding with the MCP server's rule ([`scratchpad_http::HostCheck`]), changes from
//! another origin are refused, and `--read-only` refuses every change.
//!
//! **The engine off the executor.** Every engine call is synchronous (SQLite, a blocking PostgreSQL
//! client), so each runs on the blocking pool under a semaphore, with the read limits the CLI and
//! the MCP server apply, and is cancelled when the browser goes away. Reads made here are an
//! observer's ([`scratchpad_core::Scratchpad::as_observer`]): they count neither as a model's reads
//! nor as accesses that keep an entry from eviction.
//!
//! **Live.** One thread watches the store ([`scratchpad_core::Scratchpad::watch`]: SQLite's
//! `data_version`, PostgreSQL's `LISTEN`) and tells open pages through server-sent events; each page
//! then fetches what it shows again.

mod api;
mod assets;
mod engine;
mod failure;
mod gate;
mod html;
mod live;
mod pages;
mod query;
mod speak;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use scratchpad_core::Scratchpad;
use scratchpad_http::HostCheck;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use engine::MAX_READ_BUDGET_CHARS;

/// What can go wrong starting the view.
#[derive(Debug)]
pub enum Error {
    /// The options cannot be served (a public address without a token, a short token, …).
    Config(String),
    Io(std::io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Config(message) => f.write_str(message),
            Self::Io(err) => write!(f, "i/o error: {err}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Self::Io(err)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Shorter tokens are guessable; the check is for mistakes, not a policy (the MCP server's rule).
const MIN_TOKEN_CHARS: usize = 16;

/// How to serve the view.
#[derive(Clone)]
pub struct UiOptions {
    /// Where to listen; loopback unless a token is given.
    pub addr: SocketAddr,
    /// The token every request must carry. `None`: a random one for this launch (loopback only).
    pub token: Option<String>,
    /// Refuse every change (notes, pins, lifetimes, deletes, restores).
    pub read_only: bool,
    /// `Host` values to accept besides the loopback names and the bound address.
    pub allowed_hosts: Vec<String>,
    /// Browser origins to accept besides the view's own.
    pub allowed_origins: Vec<String>,
    /// Who changes made in the view are recorded as.
    pub author: String,
    /// Where the store is, as the footer names it (never with a password).
    pub store_label: String,
}

impl std::fmt::Debug for UiOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UiOptions")
            .field("addr", &self.addr)
            .field("token", &self.token.as_ref().map(|_| "[redacted]"))
            .field("read_only", &self.read_only)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("author", &self.author)
            .field("store_label", &self.store_label)
            .finish()
    }
}

impl UiOptions {
    /// Loopback on `addr`, a token of its own, changes allowed.
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            token: None,
            read_only: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            author: "scratchpad ui".to_owned(),
            store_label: String::new(),
        }
    }
}

/// A bound view, not yet serving: [`UiServer::url`] is the address to open.
#[derive(Debug)]
pub struct UiServer {
    listener: TcpListener,
    router: axum::Router,
    shutdown: CancellationToken,
    url: String,
    live: live::Live,
}

impl UiServer {
    /// Checks the options and binds. Must run inside a Tokio runtime.
    pub async fn bind(pad: Scratchpad, options: UiOptions) -> Result<Self> {
        let token = match &options.token {
            Some(token) if token.len() < MIN_TOKEN_CHARS => {
                return Err(Error::Config(format!(
                    "a token must have at least {MIN_TOKEN_CHARS} characters (this one has {}); \
                     generate one with e.g. `openssl rand -hex 32`",
                    token.len()
                )));
            }
            Some(token) => token.clone(),
            None if !options.addr.ip().is_loopback() => {
                return Err(Error::Config(format!(
                    "{} is not a loopback address, so every visitor must prove who they are: pass \
                     --token TOKEN (or set SCRATCHPAD_UI_TOKEN), or bind 127.0.0.1",
                    options.addr
                )));
            }
            None => gate::random_token()?,
        };
        let pad_author = pad.with_author(&options.author).map_err(|err| {
            Error::Config(format!(
                "the author `{}` is not valid: {err}",
                options.author
            ))
        })?;
        let listener = TcpListener::bind(options.addr)
            .await
            .map_err(|err| Error::Config(format!("cannot listen on {}: {err}", options.addr)))?;
        let bound = listener.local_addr()?;
        let mut origins = options.allowed_origins.clone();
        if !bound.ip().is_unspecified() && !bound.ip().is_loopback() {
            // A browser that reaches a public bind by its address calls it by that origin.
            origins.push(format!("http://{bound}"));
        }
        let check = HostCheck::new(bound, &options.allowed_hosts, &origins);
        let shutdown = CancellationToken::new();
        let live = live::Live::start(pad.clone(), shutdown.clone());
        let app = Arc::new(App {
            engine: engine::Engine::new(pad.as_observer(), pad_author.as_observer()),
            gate: gate::Gate::new(&token, bound.port(), check, options.read_only),
            live: live.clone(),
            read_only: options.read_only,
            store_label: options.store_label.clone(),
            author: options.author.clone(),
        });
        let router = api::router(Arc::clone(&app))
            .merge(pages::router(Arc::clone(&app)))
            .merge(assets::router())
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&app),
                gate::guard,
            ));
        let host = match bound.ip() {
            ip if ip.is_unspecified() => "127.0.0.1".to_owned(),
            std::net::IpAddr::V6(ip) => format!("[{ip}]"),
            std::net::IpAddr::V4(ip) => ip.to_string(),
        };
        let url = format!("http://{host}:{}/?token={token}", bound.port());
        Ok(Self {
            listener,
            router,
            shutdown,
            url,
            live,
        })
    }

    pub fn local_addr(&self) -> Result<SocketAddr> {
        Ok(self.listener.local_addr()?)
    }

    /// The address to open, with this launch's token.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A handle that stops the server when cancelled.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Serves until the shutdown token is cancelled.
    pub async fn run(self) -> Result<()> {
        let shutdown = self.shutdown.clone();
        let served = axum::serve(self.listener, self.router)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await;
        self.shutdown.cancel();
        self.live.stop();
        served?;
        Ok(())
    }
}

/// What every handler shares.
#[derive(Debug)]
struct App {
    engine: engine::Engine,
    gate: gate::Gate,
    live: live::Live,
    read_only: bool,
    store_label: String,
    author: String,
}

/// Serves the view until Ctrl-C or SIGTERM; `on_listening` learns the URL to open first.
pub fn serve(pad: Scratchpad, options: UiOptions, on_listening: impl FnOnce(&str)) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .worker_threads(2)
        .build()?;
    runtime.block_on(async move {
        let server = UiServer::bind(pad, options).await?;
        on_listening(server.url());
        let stop = server.shutdown_token();
        tokio::spawn(async move {
            wait_for_signal().await;
            stop.cancel();
        });
        server.run().await
    })?;
    // Engine calls still running on the blocking pool (a long grep) are given a moment, not waited for.
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
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
