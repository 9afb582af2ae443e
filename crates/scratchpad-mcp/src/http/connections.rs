//! The connections under the MCP service: accepted within caps per peer address and in total, and
//! closed when they stall. Without this, a client that opens connections and sends a request's
//! head one byte at a time holds each one forever (no token is needed to get that far), and enough
//! of them take the memory and the file descriptors that everyone else needs.
//!
//! A connection is in one of three phases:
//! - waiting for the next request: closed after the keep-alive timeout (a new connection must
//!   send its first request head within the header timeout instead);
//! - receiving a request's head (request line and headers): closed unless the whole head has
//!   arrived within the header timeout of its first byte, however steadily it trickles;
//! - answering requests: no deadline of its own (a tool call may take long, a server-sent event
//!   stream lasts), but a body must arrive within the body timeout (checked where the body is read)
//!   and a response the client stops reading is given up after the keep-alive timeout.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

/// How many connections the server holds, and how long it waits for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections of all clients together; past it new ones are answered 503 and closed.
    pub max_total: usize,
    /// Connections from one IP address; past it new ones from there are answered 429 and closed.
    pub max_per_address: usize,
    /// A request's line and headers must arrive whole within this of their first byte (of the
    /// connection's opening, for its first request).
    pub header_timeout: Duration,
    /// A connection with no request in progress is closed after this; so is one whose client
    /// stopped reading a response.
    pub keep_alive: Duration,
    /// A request's body must arrive whole within this of its head.
    pub body_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            max_total: 512,
            max_per_address: 64,
            header_timeout: Duration::from_secs(10),
            keep_alive: Duration::from_secs(60),
            body_timeout: Duration::from_secs(30),
        }
    }
}

/// The address a request came from, in the request's extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer(pub SocketAddr);

/// Refusals being written at once; past this a refused connection is closed without a word, so
/// a flood of connections cannot make the refusals themselves a cost.
const MAX_REFUSALS_IN_FLIGHT: usize = 64;
/// How long a refusal may take to write and to read what the client had sent.
const REFUSAL_TIME: Duration = Duration::from_secs(2);
/// Pause after a failed accept (e.g. out of file descriptors), so the loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);
/// How long shutting down waits for open connections to finish their requests.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Serves `router` on `listener` until `shutdown` is cancelled, then lets the open connections
/// finish their requests for a little while.
pub(super) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) {
    let table = Arc::new(Table::new(limits));
    let refusals = Arc::new(Semaphore::new(MAX_REFUSALS_IN_FLIGHT));
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(err) => {
                tracing::warn!("accepting a connection failed: {err}");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        match table.admit(peer.ip()) {
            Ok(slot) => {
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve_connection(
                    stream,
                    peer,
                    router.clone(),
                    limits,
                    slot,
                    shutdown.clone(),
                ));
            }
            Err(refusal) => refuse(stream, peer, refusal, &limits, &refusals),
        }
    }
    drop(listener);
    table.drained(SHUTDOWN_GRACE).await;
}

/// Open connections, counted per address.
struct Table {
    limits: ConnectionLimits,
    counts: Mutex<Counts>,
    /// Told when the last connection closes.
    empty: Notify,
}

#[derive(Default)]
struct Counts {
    total: usize,
    per_address: HashMap<IpAddr, usize>,
}

/// Why a connection was not taken.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    Address { open: usize },
    Total { open: usize },
}

impl Table {
    fn new(limits: ConnectionLimits) -> Self {
        Self {
            limits,
            counts: Mutex::new(Counts::default()),
            empty: Notify::new(),
        }
    }

    fn counts(&self) -> MutexGuard<'_, Counts> {
        // The counts stay consistent whatever panicked while holding them: each change is one step.
        self.counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn admit(self: &Arc<Self>, address: IpAddr) -> Result<Slot, Refusal> {
        let mut counts = self.counts();
        let from_address = counts.per_address.get(&address).copied().unwrap_or(0);
        if from_address >= self.limits.max_per_address {
            return Err(Refusal::Address { open: from_address });
        }
        if counts.total >= self.limits.max_total {
            return Err(Refusal::Total { open: counts.total });
        }
        counts.total += 1;
        *counts.per_address.entry(address).or_default() += 1;
        Ok(Slot {
            table: Arc::clone(self),
            address,
        })
    }

    async fn drained(&self, grace: Duration) {
        let deadline = Instant::now() + grace;
        loop {
            let emptied = self.empty.notified();
            if self.counts().total == 0 {
                return;
            }
            if tokio::time::timeout_at(deadline, emptied).await.is_err() {
                return;
            }
        }
    }
}

/// One admitted connection's place in the table, given back when it closes.
struct Slot {
    table: Arc<Table>,
    address: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.table.counts();
        counts.total = counts.total.saturating_sub(1);
        if let Some(open) = counts.per_address.get_mut(&self.address) {
            *open = open.saturating_sub(1);
            if *open == 0 {
                counts.per_address.remove(&self.address);
            }
        }
        if counts.total == 0 {
            self.table.empty.notify_one();
        }
    }
}

/// Answers a connection that is not taken with a response saying why, then closes it.
fn refuse(
    mut stream: TcpStream,
    peer: SocketAddr,
    refusal: Refusal,
    limits: &ConnectionLimits,
    refusals: &Arc<Semaphore>,
) {
    let Ok(permit) = Arc::clone(refusals).try_acquire_owned() else {
        return;
    };
    let (status, message) = match refusal {
        Refusal::Address { open } => (
            "429 Too Many Requests",
            format!(
                "this server already has {open} connections from {}, the most one address may open \
                 (--max-connections-per-address {}); close idle connections or try again shortly\n",
                peer.ip(),
                limits.max_per_address
            ),
        ),
        Refusal::Total { open } => (
            "503 Service Unavailable",
            format!(
                "this server has {open} connections open, its limit (--max-connections {}); try \
                 again shortly\n",
                limits.max_total
            ),
        ),
    };
    let answer = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: 1\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n{message}",
        message.len()
    );
    tokio::spawn(async move {
        let _permit = permit;
        let _ = tokio::time::timeout(REFUSAL_TIME, async {
            stream.write_all(answer.as_bytes()).await?;
            stream.shutdown().await?;
            // Read what the client sent before closing: closing with unread data resets the
            // connection, and the client could lose the answer.
            let mut sink = [0u8; 4096];
            while stream.read(&mut sink).await? > 0 {}
            Ok::<_, io::Error>(())
        })
        .await;
    });
}

/// Serves one connection until it ends, stalls past a timeout, or the server shuts down.
async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: axum::Router,
    limits: ConnectionLimits,
    slot: Slot,
    shutdown: CancellationToken,
) {
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        stream,
        activity: Arc::clone(&activity),
    });
    let service = Service {
        router,
        peer,
        activity: Arc::clone(&activity),
    };
    let connection = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
    let mut connection = std::pin::pin!(connection);
    let mut draining = false;
    loop {
        let changed = activity.changed.notified();
        let deadline = activity.deadline(&limits);
        tokio::select! {
            _ = connection.as_mut() => break,
            () = shutdown.cancelled(), if !draining => {
                connection.as_mut().graceful_shutdown();
                draining = true;
            }
            () = sleep_until(deadline) => {
                if activity.deadline(&limits).is_some_and(|at| at <= Instant::now()) {
                    tracing::debug!("closing the stalled connection from {peer}");
                    break;
                }
            }
            () = changed => {}
        }
    }
    drop(slot);
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// What a connection is doing, and since when.
struct Activity {
    state: Mutex<State>,
    /// Told when a deadline may have moved earlier.
    changed: Notify,
}

struct State {
    phase: Phase,
    /// Since when a response has been waiting for the client to read it.
    write_blocked: Option<Instant>,
}

#[derive(Debug, Clone, Copy)]
enum Phase {
    /// No request in progress and no byte of the next one yet.
    Waiting { since: Instant, first: bool },
    /// A request's head is arriving.
    Head { since: Instant },
    /// Requests are being answered.
    Busy { requests: usize },
}

impl Activity {
    fn new() -> Self {
        Self {
            state: Mutex::new(State {
                phase: Phase::Waiting {
                    since: Instant::now(),
                    first: true,
                },
                write_blocked: None,
            }),
            changed: Notify::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// When the connection is to be closed unless something happens first.
    fn deadline(&self, limits: &ConnectionLimits) -> Option<Instant> {
        let state = self.state();
        let phase = match state.phase {
            // A new connection's first request must come as fast as any head.
            Phase::Waiting { since, first: true } | Phase::Head { since } => {
                Some(since + limits.header_timeout)
            }
            Phase::Waiting {
                since,
                first: false,
            } => Some(since + limits.keep_alive),
            Phase::Busy { .. } => None,
        };
        let write = state.write_blocked.map(|since| since + limits.keep_alive);
        match (phase, write) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn bytes_read(&self) {
        let mut state = self.state();
        if let Phase::Waiting { since, first } = state.phase {
            // Counted from the first byte of this request (from the opening, for the first one).
            let since = if first { since } else { Instant::now() };
            state.phase = Phase::Head { since };
            drop(state);
            self.changed.notify_one();
        }
    }

    fn request_started(&self) {
        let mut state = self.state();
        state.phase = match state.phase {
            Phase::Busy { requests } => Phase::Busy {
                requests: requests + 1,
            },
            Phase::Waiting { .. } | Phase::Head { .. } => Phase::Busy { requests: 1 },
        };
    }

    fn request_finished(&self) {
        let mut state = self.state();
        state.phase = match state.phase {
            Phase::Busy { requests } if requests > 1 => Phase::Busy {
                requests: requests - 1,
            },
            Phase::Busy { .. } | Phase::Waiting { .. } | Phase::Head { .. } => Phase::Waiting {
                since: Instant::now(),
                first: false,
            },
        };
        drop(state);
        self.changed.notify_one();
    }

    fn write_pending(&self, pending: bool) {
        let mut state = self.state();
        match (pending, state.write_blocked) {
            (true, None) => {
                state.write_blocked = Some(Instant::now());
                drop(state);
                self.changed.notify_one();
            }
            (false, Some(_)) => state.write_blocked = None,
            (true, Some(_)) | (false, None) => {}
        }
    }
}

/// The socket, reporting what moves through it to the connection's [`Activity`].
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.activity.bytes_read();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.activity.write_pending(polled.is_pending());
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.activity.write_pending(polled.is_pending());
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// The router as hyper calls it on one connection: the request learns its peer, and the
/// connection counts as busy until the response's body is done with.
#[derive(Clone)]
struct Service {
    router: axum::Router,
    peer: SocketAddr,
    activity: Arc<Activity>,
}

type Answer = Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send>>;

impl hyper::service::Service<http::Request<Incoming>> for Service {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, request: http::Request<Incoming>) -> Self::Future {
        self.activity.request_started();
        let busy = Busy(Arc::clone(&self.activity));
        let mut request = request.map(Body::new);
        request.extensions_mut().insert(Peer(self.peer));
        let router = self.router.clone();
        Box::pin(async move {
            let response = match router.oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            Ok(response.map(|body| Body::new(Tracked { body, _busy: busy })))
        })
    }
}

/// Marks a request finished when dropped: with its response's body, or with the request if the
/// connection goes first.
struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

/// A response body that keeps its request counted as in progress until it is dropped.
struct Tracked {
    body: Body,
    _busy: Busy,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
