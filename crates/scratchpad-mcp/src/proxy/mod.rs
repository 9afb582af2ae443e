//! The MCP proxy: sits between a client and any MCP server, forwards everything, and gives every
//! server the scratchpad. Large tool results are stored whole and replaced by a reference with a
//! preview; every proxied tool takes an optional `scratchpad` argument (save the output under a
//! name); `{{scratchpad:NAME}}` placeholders in arguments are resolved before the upstream sees them.
//!
//! One [`ProxyServer`] serves one downstream session and owns one upstream connection, opened on
//! the client's `initialize` with the client's own name and capabilities. An upstream that crashed
//! or closed the connection is started (or reached) again on the next request.

pub mod reuse;
pub mod rewrite;
pub mod upstream;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, ClientConfig,
    ClientRequest, CompleteRequestParams, CompleteResult, ContentBlock, ErrorData,
    GetPromptRequestParams, GetPromptResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RequestContext, ServiceError};
use rmcp::{Peer, RoleServer, ServerHandler, ServiceExt as _};
use scratchpad_core::Scratchpad;

use crate::blocking;
use crate::error::{Error, Result};
use crate::server::ScratchpadServer;
use crate::tools;
use reuse::{CallKey, RecentCalls, ReusePolicy};
use rewrite::{CallInfo, ToolMap};
use upstream::{DownstreamProgress, Upstream, UpstreamHandler};
pub use upstream::{HttpUpstream, UpstreamSpec};

/// How long a tool call may run upstream before the client gets an error (and the upstream a
/// cancellation), when none is configured.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(300);
/// How long the upstream may take to start and answer `initialize` (or the call timeout, if shorter).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long any other request may take upstream.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// How to proxy.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    pub upstream: UpstreamSpec,
    /// Offload threshold in bytes of the result's content; `None`: the configuration's. Per-tool
    /// overrides of the configuration file win over both.
    pub threshold: Option<usize>,
    /// List the scratchpad tools only once a result has been offloaded.
    pub lazy_tools: bool,
    /// List the scratchpad tools and entries at all. Off when another server in front of the same
    /// client lists them (the gateway, or another proxy `mcp wrap` put in), so a model sees them
    /// once; offload, the `scratchpad` argument and placeholders work either way.
    pub scratchpad_tools: bool,
    pub call_timeout: Duration,
    /// Largest message accepted from the downstream client (bytes).
    pub max_message_bytes: usize,
    /// Largest message accepted from the upstream, e.g. one tool result (bytes); results past a
    /// few megabytes are spooled to a temporary file while they arrive.
    pub max_result_bytes: u64,
    /// Which repeated calls are answered from the stored result, and for how long.
    pub reuse: ReusePolicy,
}

impl ProxyOptions {
    pub fn new(upstream: UpstreamSpec) -> Self {
        Self {
            upstream,
            threshold: None,
            lazy_tools: false,
            scratchpad_tools: true,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            max_message_bytes: crate::lines::DEFAULT_MAX_MESSAGE_BYTES,
            max_result_bytes: crate::lines::DEFAULT_MAX_RESULT_BYTES,
            reuse: ReusePolicy::default(),
        }
    }
}

/// One downstream session of the proxy.
#[derive(Debug, Clone)]
pub struct ProxyServer {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    pad: Scratchpad,
    local: ScratchpadServer,
    options: ProxyOptions,
    /// The live upstream connection, if any.
    upstream: Mutex<Option<Arc<Upstream>>>,
    /// Held while connecting, so concurrent requests start one upstream, not several.
    connecting: tokio::sync::Mutex<()>,
    tools_changed: Arc<AtomicBool>,
    tool_map: Mutex<Option<ToolMap>>,
    /// Whether a result has been offloaded (with `lazy_tools`, the scratchpad tools appear then).
    offloaded: AtomicBool,
    /// Recent calls of reusable tools, when reuse is on; shared by the upstreams of a gateway.
    recent: Option<Arc<RecentCalls>>,
    /// This upstream's part of `recent`.
    reuse_scope: u64,
}

const PROXY_INSTRUCTIONS: &str = "This server runs behind the scratchpad proxy. Tool results larger \
than a few kilobytes are stored whole and replaced by a JSON reference with a preview (first and last \
lines, error lines); read more with scratchpad_read (mode=grep, lines, tail, json). Every tool also \
takes an optional `scratchpad` argument that saves its full output under a name, and any argument may \
contain {{scratchpad:NAME}} (or {{scratchpad:NAME#lines=10-20}}) to pass a stored value without \
reading it.";

impl ProxyServer {
    pub fn new(pad: Scratchpad, options: ProxyOptions) -> Self {
        let recent = options
            .reuse
            .window
            .map(|window| Arc::new(RecentCalls::new(window)));
        Self::with_recent_calls(pad, options, recent)
    }

    /// A proxy whose reusable calls are kept in `recent`, which other proxies (the other upstreams
    /// of a gateway) may share.
    pub(crate) fn with_recent_calls(
        pad: Scratchpad,
        options: ProxyOptions,
        recent: Option<Arc<RecentCalls>>,
    ) -> Self {
        // `--threshold` replaces the configured threshold; the engine's policy applies it.
        let pad = match options.threshold {
            Some(bytes) => pad.with_threshold(bytes),
            None => pad,
        };
        let reuse_scope = recent.as_ref().map_or(0, |recent| recent.scope());
        Self {
            inner: Arc::new(Inner {
                local: ScratchpadServer::new(pad.clone()),
                pad,
                options,
                upstream: Mutex::new(None),
                connecting: tokio::sync::Mutex::new(()),
                tools_changed: Arc::new(AtomicBool::new(false)),
                tool_map: Mutex::new(None),
                offloaded: AtomicBool::new(false),
                recent,
                reuse_scope,
            }),
        }
    }

    /// Closes the upstream connection (a child process is reaped).
    pub async fn shutdown(&self) {
        let current = self
            .inner
            .upstream
            .lock()
            .ok()
            .and_then(|mut slot| slot.take());
        if let Some(upstream) = current {
            upstream.close().await;
        }
    }

    /// Starts (or reaches) the upstream for a client whose peer is `downstream`; notifications and
    /// the upstream's requests (sampling, elicitation, roots) go to that peer. The error says why
    /// the upstream could not be reached and what to do about it.
    pub async fn connect(
        &self,
        downstream: &Peer<RoleServer>,
        info: Option<ClientConfig>,
    ) -> Result<(), String> {
        self.upstream_for(downstream, info)
            .await
            .map(drop)
            .map_err(|err| err.message.to_string())
    }

    /// What the upstream said about itself in its handshake, once connected.
    pub fn upstream_info(&self) -> Option<Arc<rmcp::model::ServerPeerInfo>> {
        self.current_upstream()
            .and_then(|upstream| upstream.peer.peer_info())
    }

    fn current_upstream(&self) -> Option<Arc<Upstream>> {
        self.inner
            .upstream
            .lock()
            .ok()
            .and_then(|slot| slot.clone())
    }

    /// The live upstream connection; connects first if there is none or the last one is gone.
    async fn upstream(
        &self,
        context: &RequestContext<RoleServer>,
        info: Option<ClientConfig>,
    ) -> Result<Arc<Upstream>, ErrorData> {
        self.upstream_for(&context.peer, info).await
    }

    async fn upstream_for(
        &self,
        downstream: &Peer<RoleServer>,
        info: Option<ClientConfig>,
    ) -> Result<Arc<Upstream>, ErrorData> {
        let live = |upstream: &Arc<Upstream>| !upstream.peer.is_transport_closed();
        if let Some(upstream) = self.current_upstream().filter(live) {
            return Ok(upstream);
        }
        let _connecting = self.inner.connecting.lock().await;
        if let Some(upstream) = self.current_upstream().filter(live) {
            return Ok(upstream);
        }
        if let Some(gone) = self.current_upstream() {
            tracing::warn!(
                upstream = %self.inner.options.upstream.label(),
                "the upstream connection is gone; connecting again"
            );
            gone.close().await;
            // The new upstream may list other tools.
            self.inner.tools_changed.store(true, Ordering::SeqCst);
        }
        let info = info
            .or_else(|| downstream.peer_info().map(|info| (*info).clone()))
            .unwrap_or_default();
        let handler = UpstreamHandler {
            downstream: downstream.clone(),
            info,
            tools_changed: self.inner.tools_changed.clone(),
        };
        let handshake = self.inner.options.call_timeout.min(HANDSHAKE_TIMEOUT);
        let upstream = Upstream::connect(
            &self.inner.options.upstream,
            handler,
            handshake,
            self.inner.options.max_result_bytes,
        )
        .await
        .map(Arc::new)
        .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
        if let Ok(mut slot) = self.inner.upstream.lock() {
            *slot = Some(upstream.clone());
        }
        Ok(upstream)
    }

    fn upstream_error(&self, err: ServiceError) -> ErrorData {
        match err {
            ServiceError::McpError(error) => error,
            other => ErrorData::internal_error(self.describe(&other), None),
        }
    }

    fn describe(&self, err: &ServiceError) -> String {
        let label = self.inner.options.upstream.label();
        match err {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => format!(
                "the upstream MCP server `{label}` is gone (it crashed, exited or closed the \
                 connection) and this call's result is lost; the proxy connects again on the next \
                 request, so retry if the call is safe to repeat"
            ),
            ServiceError::Timeout { timeout } => format!(
                "the upstream MCP server `{label}` did not answer within {:.1} s; the request was \
                 cancelled upstream",
                timeout.as_secs_f64()
            ),
            other => format!("the upstream MCP server `{label}` failed: {other}"),
        }
    }

    fn scratchpad_tools_visible(&self) -> bool {
        self.inner.options.scratchpad_tools
            && (!self.inner.options.lazy_tools || self.inner.offloaded.load(Ordering::SeqCst))
    }

    async fn tool_map(&self, upstream: &Upstream) -> Result<ToolMap, ErrorData> {
        let cached = self.inner.tool_map.lock().ok().and_then(|map| map.clone());
        if let Some(map) = cached
            && !self.inner.tools_changed.swap(false, Ordering::SeqCst)
        {
            return Ok(map);
        }
        Ok(self.list_upstream_tools(upstream).await?.1)
    }

    async fn list_upstream_tools(
        &self,
        upstream: &Upstream,
    ) -> Result<(Vec<rmcp::model::Tool>, ToolMap), ErrorData> {
        let listed = tokio::time::timeout(REQUEST_TIMEOUT, upstream.peer.list_all_tools())
            .await
            .map_err(|_| {
                self.upstream_error(ServiceError::Timeout {
                    timeout: REQUEST_TIMEOUT,
                })
            })?
            .map_err(|err| self.upstream_error(err))?;
        // Without the scratchpad tools listed here, an upstream tool of the same name clashes
        // with nothing (a gateway namespaces it anyway).
        let reserved: Vec<String> = if self.inner.options.scratchpad_tools {
            tools::definitions()
                .iter()
                .map(|t| t.name.to_string())
                .collect()
        } else {
            Vec::new()
        };
        let (tools, map) = rewrite::rewrite_tools(listed, &reserved, &self.inner.options.reuse);
        if let Ok(mut cached) = self.inner.tool_map.lock() {
            *cached = Some(map.clone());
        }
        Ok((tools, map))
    }

    async fn call_upstream(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let upstream = self.upstream(&context, None).await?;
        let map = self.tool_map(&upstream).await?;
        let listed = request.name.to_string();
        let upstream_name = map
            .upstream_names
            .get(&listed)
            .cloned()
            .unwrap_or_else(|| listed.clone());
        let mut args = request.arguments.take().unwrap_or_default();
        let control =
            match rewrite::take_control(map.own_scratchpad_arg.contains(&listed), &mut args) {
                Ok(control) => control,
                Err(message) => {
                    return Ok(CallToolResult::error(vec![ContentBlock::text(message)]));
                }
            };
        let save_as = control.save_as.clone();
        // Placeholders are resolved from the store, a blocking read.
        let pad = self.inner.pad.clone();
        let raw = serde_json::Value::Object(args);
        let digest_args = raw.clone();
        let resolved = blocking(move || pad.resolve_json(&raw)).await?;
        let args = match resolved {
            Ok(serde_json::Value::Object(args)) => args,
            Ok(_) => rmcp::model::JsonObject::new(),
            Err(err) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "{}. The tool `{listed}` was not called: fix the {{{{scratchpad:…}}}} \
                     placeholder and call it again.",
                    err.render(&tools::Mcp)
                ))]));
            }
        };
        // Keyed by what the upstream would see: a placeholder whose entry changed is a new call.
        let reuse = match &self.inner.recent {
            Some(recent) if map.reusable.contains(&listed) => {
                let key = CallKey::new(self.inner.reuse_scope, &upstream_name, &args);
                // A call that saves under a name runs: the name gets this call's output.
                if !control.fresh
                    && save_as.is_none()
                    && let Some(answer) = self.answer_again(recent, &key).await
                {
                    return Ok(answer);
                }
                Some((recent.clone(), key, recent.generation()))
            }
            Some(recent) => {
                if !map.read_only.contains(&listed) {
                    // This call may change what the recent reads would answer.
                    recent.forget_all();
                }
                None
            }
            None => None,
        };
        request.name = upstream_name.clone().into();
        request.arguments = Some(args);
        let mut request = CallToolRequest::new(request);
        if let Some(token) = context.meta.get_progress_token() {
            request.extensions.insert(DownstreamProgress(token));
        }
        let handle = upstream
            .peer
            .send_cancellable_request(
                ClientRequest::CallToolRequest(request),
                PeerRequestOptions::with_timeout(self.inner.options.call_timeout),
            )
            .await
            .map_err(|err| self.upstream_error(err));
        let handle = match handle {
            Ok(handle) => handle,
            Err(err) => return Ok(CallToolResult::error(vec![ContentBlock::text(err.message)])),
        };
        let upstream_token = handle.progress_token.clone();
        let request_id = handle.id.clone();
        let response = tokio::select! {
            response = handle.await_response() => Some(response),
            () = context.ct.cancelled() => None,
        };
        // Every update the upstream sent before its result reaches the client before the result.
        upstream.progress.settled().await;
        upstream.progress.release(&upstream_token);
        let response = match response {
            Some(response) => response,
            None => {
                // The client cancelled: tell the upstream, whose answer no one waits for now.
                let _ = upstream
                    .peer
                    .notify_cancelled(rmcp::model::CancelledNotificationParam::new(
                        Some(request_id),
                        Some("cancelled by the client".into()),
                    ))
                    .await;
                return Err(ErrorData::internal_error("cancelled by the client", None));
            }
        };
        let result = match response {
            Ok(ServerResult::CallToolResult(result)) => result.mark_complete(),
            Ok(_) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "the upstream server answered `{listed}` with something other than a tool \
                     result, which the scratchpad proxy does not pass on"
                ))]));
            }
            Err(ServiceError::McpError(error)) => return Err(error),
            Err(other) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(
                    self.describe(&other),
                )]));
            }
        };
        let call = CallInfo {
            tool: upstream_name,
            args: digest_args,
            server: Some(self.inner.options.upstream.label()),
            save_as,
        };
        let pad = crate::server::with_client_author(self.inner.pad.clone(), &context);
        let outcome = blocking(move || rewrite::offload(&pad, &call, result)).await?;
        match outcome {
            Ok(rewrite::Offloaded { result, entries }) => {
                if let Some((recent, key, generation)) = reuse
                    && !result.is_error.unwrap_or(false)
                {
                    recent.keep(key, &result, entries, generation, std::time::Instant::now());
                }
                let offloaded = result
                    .content
                    .iter()
                    .any(|block| matches!(block, ContentBlock::ResourceLink(_)));
                // The first offload shows the read tools to a client that was kept quiet.
                if offloaded
                    && !self.inner.offloaded.swap(true, Ordering::SeqCst)
                    && self.inner.options.lazy_tools
                {
                    let _ = context.peer.notify_tool_list_changed().await;
                }
                Ok(result)
            }
            Err(err) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "the tool ran, but the scratchpad could not store its output: {}",
                err.render(&tools::Mcp)
            ))])),
        }
    }
}

impl ProxyServer {
    /// The result of the same call made within the window, with a note, when every entry it
    /// refers to is still there as it was; otherwise the call is forgotten and runs again.
    async fn answer_again(&self, recent: &RecentCalls, key: &CallKey) -> Option<CallToolResult> {
        let found = recent.get(key, std::time::Instant::now())?;
        if !found.entries.is_empty() {
            let pad = self.inner.pad.clone();
            let entries = found.entries.clone();
            let intact = blocking(move || {
                entries.iter().all(|entry| {
                    pad.get(&entry.id)
                        .is_ok_and(|info| info.hash == entry.hash && info.name == entry.name)
                })
            })
            .await
            .unwrap_or(false);
            if !intact {
                recent.forget(key);
                return None;
            }
        }
        Some(reuse::answered_again(found))
    }
}

impl ServerHandler for ProxyServer {
    fn get_info(&self) -> ServerConfig {
        let upstream_info = self
            .current_upstream()
            .and_then(|upstream| upstream.peer.peer_info());
        let mut capabilities = upstream_info
            .as_ref()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        let mut tools = capabilities.tools.clone().unwrap_or_default();
        tools.list_changed = Some(true);
        capabilities.tools = Some(tools);
        if capabilities.resources.is_none() {
            // The resource links of offloaded results are readable through the proxy.
            capabilities.resources = ServerCapabilities::builder()
                .enable_resources()
                .build()
                .resources;
        }
        let server_info = upstream_info
            .as_ref()
            .and_then(|info| info.server_info.clone())
            .unwrap_or_else(|| Implementation::new("scratchpad-proxy", env!("CARGO_PKG_VERSION")));
        let instructions = match upstream_info.as_ref().and_then(|i| i.instructions.clone()) {
            Some(theirs) => format!("{theirs}\n\n{PROXY_INSTRUCTIONS}"),
            None => PROXY_INSTRUCTIONS.to_owned(),
        };
        ServerConfig::new(capabilities)
            .with_server_info(server_info)
            .with_instructions(instructions)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.upstream(&context, Some(request.clone())).await?;
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let upstream = self.upstream(&context, None).await?;
        let (mut listed, _) = self.list_upstream_tools(&upstream).await?;
        if self.scratchpad_tools_visible() {
            listed.extend(tools::definitions());
        }
        Ok(ListToolsResult::with_all_items(listed))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.inner.options.scratchpad_tools && tools::is_scratchpad_tool(&request.name) {
            let args = request.arguments.clone().unwrap_or_default();
            let pad = crate::server::with_client_author(self.inner.pad.clone(), &context);
            if let Some(result) = tools::call(&pad, &request.name, args, context.ct.clone()).await {
                return Ok(result.into());
            }
        }
        self.call_upstream(request, context).await.map(Into::into)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let upstream = self.upstream(&context, None).await?;
        self.forward(upstream.peer.list_prompts(request))
            .await
            .map(MarkComplete::mark_complete)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let upstream = self.upstream(&context, None).await?;
        self.forward(upstream.peer.get_prompt(request))
            .await
            .map(|result| result.mark_complete().into())
    }

    /// The upstream's resources first, then the scratchpad's entries of this session; the cursor
    /// says which listing a page continues.
    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|params| params.cursor);
        let (mut upstream_page, own_cursor) = match cursor.as_deref() {
            None => (Some(None), None),
            Some(cursor) => match cursor.split_once(':') {
                Some(("upstream", rest)) => (Some(Some(rest.to_owned())), None),
                Some(("scratchpad", rest)) => (None, Some(rest.to_owned())),
                _ => {
                    return Err(ErrorData::invalid_params(
                        "unknown cursor: pass the nextCursor of the previous resources/list page, \
                         or none to start again",
                        None,
                    ));
                }
            },
        };
        let mut listed = ListResourcesResult::default().mark_complete();
        if let Some(cursor) = upstream_page.take() {
            let upstream = self.upstream(&context, None).await?;
            if upstream_has_resources(&upstream) {
                let params = PaginatedRequestParams::default().with_cursor(cursor);
                let page = self
                    .forward(upstream.peer.list_resources(Some(params)))
                    .await?;
                listed.resources = page.resources;
                if let Some(next) = page.next_cursor {
                    listed.next_cursor = Some(format!("upstream:{next}"));
                    return Ok(listed);
                }
            }
        }
        if !self.inner.options.scratchpad_tools {
            return Ok(listed);
        }
        let params = own_cursor
            .filter(|cursor| !cursor.is_empty())
            .map(|cursor| PaginatedRequestParams::default().with_cursor(Some(cursor)));
        let own = self.inner.local.list_resources(params, context).await?;
        listed.resources.extend(own.resources);
        listed.next_cursor = own.next_cursor.map(|next| format!("scratchpad:{next}"));
        Ok(listed)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let upstream = self.upstream(&context, None).await?;
        let mut templates = if upstream_has_resources(&upstream) {
            self.forward(upstream.peer.list_resource_templates(request))
                .await?
                .mark_complete()
        } else {
            ListResourceTemplatesResult::default().mark_complete()
        };
        if !self.inner.options.scratchpad_tools {
            return Ok(templates);
        }
        let own = self
            .inner
            .local
            .list_resource_templates(None, context)
            .await?;
        templates.resource_templates.extend(own.resource_templates);
        Ok(templates)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri.starts_with("scratchpad://") {
            return self.inner.local.read_resource(request, context).await;
        }
        let upstream = self.upstream(&context, None).await?;
        self.forward(upstream.peer.read_resource(request))
            .await
            .map(|result| result.mark_complete().into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let upstream = self.upstream(&context, None).await?;
        self.forward(upstream.peer.complete(request))
            .await
            .map(MarkComplete::mark_complete)
    }

    #[expect(deprecated, reason = "logging is still what most upstreams speak")]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let upstream = self.upstream(&context, None).await?;
        self.forward(upstream.peer.set_level(request)).await
    }
}

impl ProxyServer {
    /// One forwarded request, bounded in time; a dropped future cancels it upstream.
    async fn forward<T>(
        &self,
        request: impl Future<Output = Result<T, ServiceError>>,
    ) -> Result<T, ErrorData> {
        match tokio::time::timeout(REQUEST_TIMEOUT, request).await {
            Ok(result) => result.map_err(|err| self.upstream_error(err)),
            Err(_) => Err(self.upstream_error(ServiceError::Timeout {
                timeout: REQUEST_TIMEOUT,
            })),
        }
    }
}

/// Results from an upstream that speaks an older protocol carry no `resultType`; 2026-07-28 clients
/// require it. Marking them complete is what the upstream meant: rmcp strips the field again for
/// clients on older versions.
trait MarkComplete {
    fn mark_complete(self) -> Self;
}

macro_rules! mark_complete {
    ($($t:ty),*) => {$(
        impl MarkComplete for $t {
            fn mark_complete(mut self) -> Self {
                self.result_type.get_or_insert(rmcp::model::ResultType::COMPLETE);
                self
            }
        }
    )*};
}

mark_complete!(
    CallToolResult,
    ListPromptsResult,
    rmcp::model::GetPromptResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    rmcp::model::ReadResourceResult,
    CompleteResult
);

fn upstream_has_resources(upstream: &Upstream) -> bool {
    upstream
        .peer
        .peer_info()
        .is_some_and(|info| info.capabilities.resources.is_some())
}

/// Proxies MCP on stdin/stdout to the upstream until the client closes the connection; the
/// upstream is then closed (a child process is reaped).
pub fn serve_proxy_stdio(pad: Scratchpad, options: ProxyOptions) -> Result<()> {
    let max_message_bytes = options.max_message_bytes;
    let proxy = ProxyServer::new(pad.clone(), options);
    crate::run_to_completion(pad, async move {
        let running = proxy
            .clone()
            .serve(crate::stdio_lines(max_message_bytes))
            .await
            .map_err(|err| Error::Protocol(err.to_string()))?;
        let outcome = running.waiting().await;
        proxy.shutdown().await;
        outcome.map_err(|err| Error::Protocol(err.to_string()))?;
        Ok(())
    })
}
