//! The connection to the upstream server: a child process over stdio (killed and reaped when the
//! proxy closes it) or a streamable-HTTP endpoint. Its notifications go on to the downstream client;
//! progress updates in the order the upstream sent them, and all of a call's updates before its
//! result (see [`ProgressRelay`]).
#![expect(
    deprecated,
    reason = "logging and sampling are deprecated by SEP-2577, but upstreams still send them"
)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ErrorData, GetExtensions as _, GetMeta as _, JsonRpcMessage, ListRootsResult,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
    ResourceUpdatedNotificationParam, ServerNotification,
};
use rmcp::service::{
    ClientInitializeError, NotificationContext, RequestContext, RunningService, RxJsonRpcMessage,
    TxJsonRpcMessage,
};
use rmcp::transport::DynamicTransportError;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::transport::{StreamableHttpClientTransport, Transport};
use rmcp::{ClientHandler, Peer, RoleClient, RoleServer, ServiceExt as _};
use tokio::sync::{mpsc, watch};

use crate::error::{Error, Result};
use crate::lines::{LineLimits, Lines};

/// Where the upstream server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamSpec {
    /// A command that speaks MCP on stdio, started with `env` added to the proxy's environment.
    Command {
        program: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    /// A streamable-HTTP endpoint.
    Url(HttpUpstream),
}

impl UpstreamSpec {
    /// A streamable-HTTP upstream at `url` (`http://` or `https://`), sent no extra headers.
    pub fn url(url: impl Into<String>) -> Self {
        Self::Url(HttpUpstream {
            url: url.into(),
            headers: Vec::new(),
        })
    }

    /// How the upstream is named in entry sources and messages.
    pub fn label(&self) -> String {
        match self {
            Self::Command { program, args, .. } => std::iter::once(program.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Self::Url(http) => http.url.clone(),
        }
    }
}

/// A streamable-HTTP upstream, e.g. `https://mcp.example.com/mcp`. Certificates are checked against
/// the system's roots, or those in `SSL_CERT_FILE` / `SSL_CERT_DIR` when set.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpUpstream {
    pub url: String,
    /// Sent with every request, e.g. `("Authorization", "Bearer …")`; values are secrets.
    pub headers: Vec<(String, String)>,
}

impl std::fmt::Debug for HttpUpstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("HttpUpstream")
            .field("url", &self.url)
            .field("headers (values redacted)", &names)
            .finish()
    }
}

/// Headers the MCP transport sets itself.
const RESERVED_HEADERS: [&str; 4] = [
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

impl HttpUpstream {
    /// Parses `Name: value` as given to `--upstream-header`.
    pub fn parse_header(header: &str) -> Result<(String, String)> {
        let (name, value) = header.split_once(':').ok_or_else(|| {
            Error::Config(format!(
                "an upstream header must look like `Name: value` (got `{}`)",
                header.chars().take(40).collect::<String>()
            ))
        })?;
        let (name, value) = (name.trim(), value.trim());
        http::HeaderName::try_from(name)
            .map_err(|_| Error::Config(format!("`{name}` is not a valid HTTP header name")))?;
        http::HeaderValue::try_from(value).map_err(|_| {
            Error::Config(format!(
                "the value of the upstream header `{name}` has characters HTTP does not allow"
            ))
        })?;
        if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(Error::Config(format!(
                "the upstream header `{name}` is set by the MCP transport itself and cannot be \
                 given"
            )));
        }
        Ok((name.to_owned(), value.to_owned()))
    }

    fn transport(&self, max_result_bytes: u64) -> Result<impl Transport<RoleClient> + 'static> {
        use_ring_for_tls();
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.as_str());
        config.max_sse_event_size = usize::try_from(max_result_bytes).unwrap_or(usize::MAX);
        for (name, value) in &self.headers {
            let bad = || Error::Config(format!("invalid upstream header `{name}`"));
            config.custom_headers.insert(
                http::HeaderName::try_from(name.as_str()).map_err(|_| bad())?,
                http::HeaderValue::try_from(value.as_str()).map_err(|_| bad())?,
            );
        }
        Ok(StreamableHttpClientTransport::from_config(config))
    }
}

/// A transport error and its causes, outermost first.
fn causes(err: &DynamicTransportError) -> impl Iterator<Item = &(dyn std::error::Error + 'static)> {
    let first: &(dyn std::error::Error + 'static) = match err
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        // rmcp does not expose the HTTP client's error as a source; start from it.
        Some(StreamableHttpError::Client(client)) => client,
        _ => err.error.as_ref(),
    };
    std::iter::successors(Some(first), |cause| cause.source())
}

/// What went wrong, without the transport's type names: the innermost causes of a transport error,
/// which say what happened (e.g. `invalid peer certificate: UnknownIssuer`, `Connection refused`).
fn root_causes(err: &DynamicTransportError) -> String {
    let mut chain: Vec<String> = Vec::new();
    for cause in causes(err) {
        let said = cause.to_string();
        if !chain.iter().any(|earlier| earlier.contains(&said)) {
            chain.push(said);
        }
    }
    chain.join(": ")
}

/// Whether a transport error comes from writing to a peer that has gone: a child process that
/// exited before it read what was sent.
fn is_broken_pipe(err: &DynamicTransportError) -> bool {
    causes(err).any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Makes rustls' `ring` provider the process default, which the HTTP client needs before it is built
/// (HTTPS upstreams use rustls: no system OpenSSL, no cmake). The proxy calls it itself; call it
/// before building another rmcp HTTP client in the same process. Idempotent.
pub fn use_ring_for_tls() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // Fails only if the process already chose a provider, which then serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Marks an upstream request whose progress goes to the downstream client under this token; carried
/// in the request's extensions down to the transport, which learns the upstream token there.
#[derive(Debug, Clone)]
pub struct DownstreamProgress(pub ProgressToken);

/// Relays the upstream's progress notifications to the downstream client.
///
/// rmcp hands every notification to its own task, so a call's last update could reach the client
/// after the call's result, where a 2026-07-28 client drops it. The relay instead sees messages in
/// the order the transport reads them: updates are queued in that order and forwarded one by one,
/// and [`ProgressRelay::settled`] lets a call wait until every update read before its result is out.
#[derive(Debug, Default)]
pub struct ProgressRelay {
    /// Upstream progress tokens (picked by the proxy's client) → the downstream client's own.
    tokens: Mutex<HashMap<ProgressToken, ProgressToken>>,
    /// Sequence number of the last update queued.
    queued: AtomicU64,
    /// Sequence number of the last update forwarded (or dropped).
    forwarded: watch::Sender<u64>,
}

/// Longest a result waits for progress updates still on their way to the client.
const SETTLE_LIMIT: Duration = Duration::from_secs(5);

impl ProgressRelay {
    fn downstream_token(&self, upstream: &ProgressToken) -> Option<ProgressToken> {
        self.tokens.lock().ok()?.get(upstream).cloned()
    }

    /// Forgets a finished request's token.
    pub fn release(&self, upstream: &ProgressToken) {
        if let Ok(mut tokens) = self.tokens.lock() {
            tokens.remove(upstream);
        }
    }

    /// Waits until every update read so far has been forwarded.
    pub async fn settled(&self) {
        let target = self.queued.load(Ordering::SeqCst);
        let mut forwarded = self.forwarded.subscribe();
        let _ =
            tokio::time::timeout(SETTLE_LIMIT, forwarded.wait_for(|done| *done >= target)).await;
    }

    /// Sends queued updates downstream in order until the transport is gone.
    async fn forward(
        self: Arc<Self>,
        mut queue: mpsc::UnboundedReceiver<(u64, ProgressNotificationParam)>,
        downstream: Peer<RoleServer>,
    ) {
        while let Some((seq, mut params)) = queue.recv().await {
            if let Some(token) = self.downstream_token(&params.progress_token) {
                params.progress_token = token;
                let _ = downstream.notify_progress(params).await;
            }
            self.forwarded.send_replace(seq);
        }
    }
}

/// The upstream transport with the [`ProgressRelay`] watching what crosses it.
struct Relayed<T> {
    inner: T,
    relay: Arc<ProgressRelay>,
    queue: mpsc::UnboundedSender<(u64, ProgressNotificationParam)>,
}

impl Relayed<()> {
    fn around<T>(self, inner: T) -> Relayed<T> {
        Relayed {
            inner,
            relay: self.relay,
            queue: self.queue,
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Relayed<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(request) = &item
            && let Some(DownstreamProgress(downstream)) =
                request.request.extensions().get::<DownstreamProgress>()
            && let Some(upstream) = request.request.get_meta().get_progress_token()
            && let Ok(mut tokens) = self.relay.tokens.lock()
        {
            // Known before the request is written, so no update can arrive unmapped.
            tokens.insert(upstream, downstream.clone());
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        if let JsonRpcMessage::Notification(notification) = &message
            && let ServerNotification::ProgressNotification(progress) = &notification.notification
            && self
                .relay
                .downstream_token(&progress.params.progress_token)
                .is_some()
        {
            let seq = self.relay.queued.fetch_add(1, Ordering::SeqCst) + 1;
            let _ = self.queue.send((seq, progress.params.clone()));
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// The client side of the proxy: it introduces itself upstream as the downstream client did, and
/// passes the upstream's notifications and sampling requests down.
#[derive(Debug, Clone)]
pub struct UpstreamHandler {
    pub downstream: Peer<RoleServer>,
    pub info: ClientConfig,
    /// Set when the upstream's tool list changed, so the proxy lists (and maps) it again.
    pub tools_changed: Arc<std::sync::atomic::AtomicBool>,
}

impl ClientHandler for UpstreamHandler {
    fn get_info(&self) -> ClientConfig {
        let mut info = self.info.clone();
        // Extensions such as tasks change the shape of results the proxy rewrites: not promised.
        info.capabilities.extensions = None;
        info
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        // A person answers this one: no timeout beyond the tool call's own.
        self.downstream
            .create_elicitation(params)
            .await
            .map_err(|err| ErrorData::internal_error(format!("downstream client: {err}"), None))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.downstream
            .list_roots()
            .await
            .map_err(|err| ErrorData::internal_error(format!("downstream client: {err}"), None))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.downstream
            .create_message(params)
            .await
            .map_err(|err| ErrorData::internal_error(format!("downstream client: {err}"), None))
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.downstream.notify_logging_message(params).await;
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.downstream.notify_resource_updated(params).await;
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.downstream.notify_resource_list_changed().await;
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = self.downstream.notify_tool_list_changed().await;
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.downstream.notify_prompt_list_changed().await;
    }
}

/// A live upstream connection.
#[derive(Debug)]
pub struct Upstream {
    pub peer: Peer<RoleClient>,
    pub progress: Arc<ProgressRelay>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, UpstreamHandler>>>,
}

impl Upstream {
    /// Starts (or reaches) the upstream and completes its handshake within `timeout`.
    pub async fn connect(
        spec: &UpstreamSpec,
        handler: UpstreamHandler,
        timeout: Duration,
        max_result_bytes: u64,
    ) -> Result<Self> {
        // Dropping a handshake that ran out of time kills a child process.
        tokio::time::timeout(timeout, Self::handshake(spec, handler, max_result_bytes))
            .await
            .unwrap_or_else(|_| {
                Err(Error::Upstream(format!(
                    "the upstream server `{}` did not answer the MCP handshake within {} s; check \
                     that it is an MCP server (speaking on stdout, or at that URL)",
                    spec.label(),
                    timeout.as_secs()
                )))
            })
    }

    async fn handshake(
        spec: &UpstreamSpec,
        handler: UpstreamHandler,
        max_result_bytes: u64,
    ) -> Result<Self> {
        let progress = Arc::new(ProgressRelay::default());
        let (queue, queued) = mpsc::unbounded_channel();
        tokio::spawn(progress.clone().forward(queued, handler.downstream.clone()));
        let watched = Relayed {
            inner: (),
            relay: progress.clone(),
            queue,
        };
        let service = match spec {
            UpstreamSpec::Command { program, args, env } => {
                let transport = ChildProcess::spawn(program, args, env, max_result_bytes).map_err(|err| {
                    Error::Upstream(format!("cannot start the upstream server `{}`: {err}", spec.label()))
                })?;
                handler.serve(watched.around(transport)).await
            }
            UpstreamSpec::Url(http) => {
                handler
                    .serve(watched.around(http.transport(max_result_bytes)?))
                    .await
            }
        }
        .map_err(|err| {
            let cause = match &err {
                ClientInitializeError::TransportError { error, .. } => root_causes(error),
                other => other.to_string(),
            };
            // Say what to do about the usual causes.
            let hint = if cause.contains("certificate") {
                "; if the server's certificate comes from a private CA, set SSL_CERT_FILE to that \
                 CA's PEM file"
            } else if cause.contains("Auth required") {
                "; give the server's token with SCRATCHPAD_UPSTREAM_TOKEN (or --upstream-token), or \
                 other credentials with --upstream-header"
            } else if matches!(spec, UpstreamSpec::Command { .. })
                && match &err {
                    ClientInitializeError::ConnectionClosed(_) => true,
                    // A child that exits before reading the request closes its stdin first.
                    ClientInitializeError::TransportError { error, .. } => is_broken_pipe(error),
                    _ => false,
                }
            {
                "; the command exited, or wrote something other than MCP JSON-RPC to stdout (its \
                 stderr goes to the proxy's stderr: a terminal, or the MCP client's server log)"
            } else {
                ""
            };
            Error::Upstream(format!(
                "the upstream server `{}` did not complete the MCP handshake: {cause}{hint}",
                spec.label()
            ))
        })?;
        Ok(Self {
            peer: service.peer().clone(),
            progress,
            service: tokio::sync::Mutex::new(Some(service)),
        })
    }

    /// Closes the connection; a child process is asked to exit, then killed and reaped.
    pub async fn close(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service
                .close_with_timeout(std::time::Duration::from_secs(5))
                .await;
        }
    }
}

/// How long a child has to exit after its stdin closes, and again after SIGTERM.
const EXIT_GRACE: Duration = Duration::from_secs(3);

/// The upstream as a child process speaking MCP on its stdin and stdout (its stderr is the proxy's).
/// Killed when dropped; closing it follows the MCP stdio shutdown: stdin closed, then SIGTERM, then
/// SIGKILL, each after a grace period, and the child is reaped.
struct ChildProcess {
    child: tokio::process::Child,
    lines: Lines<RoleClient, tokio::process::ChildStdout, tokio::process::ChildStdin>,
}

impl ChildProcess {
    fn spawn(
        program: &str,
        args: &[String],
        env: &[(String, String)],
        max_result_bytes: u64,
    ) -> std::io::Result<Self> {
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .envs(env.iter().map(|(name, value)| (name, value)))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("the child's pipes were not set up"));
        };
        Ok(Self {
            child,
            lines: Lines::new(stdout, stdin, LineLimits::client(max_result_bytes)),
        })
    }

    async fn shut_down(&mut self) -> std::io::Result<()> {
        let _ = self.lines.close().await;
        if tokio::time::timeout(EXIT_GRACE, self.child.wait())
            .await
            .is_ok()
        {
            return Ok(());
        }
        #[cfg(unix)]
        if let Some(pid) = self
            .child
            .id()
            .and_then(|id| rustix::process::Pid::from_raw(id as i32))
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            if tokio::time::timeout(EXIT_GRACE, self.child.wait())
                .await
                .is_ok()
            {
                return Ok(());
            }
        }
        self.child.kill().await
    }
}

impl Transport<RoleClient> for ChildProcess {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.lines.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.lines.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.shut_down()
    }
}
