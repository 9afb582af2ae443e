//! The connection to the upstream server: a child process over stdio (killed and reaped when the
//! proxy closes it) or a streamable-HTTP endpoint. Its notifications go on to the downstream client.
#![expect(
    deprecated,
    reason = "logging and sampling are deprecated by SEP-2577, but upstreams still send them"
)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ErrorData, ListRootsResult,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
    ResourceUpdatedNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, Peer, RoleClient, RoleServer, ServiceExt as _};

use crate::error::{Error, Result};

/// Where the upstream server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamSpec {
    /// A command that speaks MCP on stdio.
    Command { program: String, args: Vec<String> },
    /// A streamable-HTTP endpoint, e.g. `http://127.0.0.1:3001/mcp`.
    Url(String),
}

impl UpstreamSpec {
    /// How the upstream is named in entry sources and messages.
    pub fn label(&self) -> String {
        match self {
            Self::Command { program, args } => std::iter::once(program.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Self::Url(url) => url.clone(),
        }
    }
}

/// Upstream progress tokens (picked by the proxy's client) → the downstream client's own tokens.
pub type ProgressMap = Arc<Mutex<HashMap<ProgressToken, ProgressToken>>>;

/// The client side of the proxy: it introduces itself upstream as the downstream client did, and
/// passes the upstream's notifications and sampling requests down.
#[derive(Debug, Clone)]
pub struct UpstreamHandler {
    pub downstream: Peer<RoleServer>,
    pub info: ClientConfig,
    pub progress: ProgressMap,
    /// Set when the upstream's tool list changed, so the proxy lists (and maps) it again.
    pub tools_changed: Arc<std::sync::atomic::AtomicBool>,
}

impl ClientHandler for UpstreamHandler {
    fn get_info(&self) -> ClientConfig {
        let mut info = self.info.clone();
        // Elicitation is not forwarded (yet): do not promise it to the upstream. Extensions such as
        // tasks change the shape of results the proxy rewrites, so they are not promised either.
        info.capabilities.elicitation = None;
        info.capabilities.extensions = None;
        info
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

    async fn on_progress(
        &self,
        mut params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let token = self
            .progress
            .lock()
            .ok()
            .and_then(|map| map.get(&params.progress_token).cloned());
        if let Some(token) = token {
            params.progress_token = token;
            let _ = self.downstream.notify_progress(params).await;
        }
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
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, UpstreamHandler>>>,
}

impl Upstream {
    /// Starts (or reaches) the upstream and completes its handshake.
    pub async fn connect(spec: &UpstreamSpec, handler: UpstreamHandler) -> Result<Self> {
        let service = match spec {
            UpstreamSpec::Command { program, args } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args);
                let (transport, _stderr) = TokioChildProcess::builder(command)
                    .stderr(std::process::Stdio::inherit())
                    .spawn()
                    .map_err(|err| {
                        Error::Config(format!(
                            "cannot start the upstream server `{}`: {err}",
                            spec.label()
                        ))
                    })?;
                handler.serve(transport).await
            }
            UpstreamSpec::Url(url) => {
                let transport = StreamableHttpClientTransport::from_uri(url.as_str());
                handler.serve(transport).await
            }
        }
        .map_err(|err| {
            Error::Protocol(format!(
                "the upstream server `{}` did not complete the MCP handshake: {err}",
                spec.label()
            ))
        })?;
        Ok(Self {
            peer: service.peer().clone(),
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
