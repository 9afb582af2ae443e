//! The MCP gateway: one server in front of several upstream servers, with the scratchpad tools
//! listed once. Each upstream sits behind its own [`ProxyServer`] (offload, the `scratchpad`
//! argument, placeholders, progress, cancellation, timeouts, restart after a crash, requests
//! routed back to the client), with the scratchpad tools turned off there; the gateway namespaces
//! what each lists (`server__tool`, see [`names`]) and routes every request to the upstream that
//! listed the name.
//!
//! Upstreams start concurrently when the client initializes. One that fails, or is still starting
//! when the tools are listed, is listed as a single `server__unavailable` tool that says why and
//! tries again when called; the others are unaffected, and the client is told
//! (`notifications/tools/list_changed`) when a late one comes up.

pub mod names;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientConfig, CompleteRequestParams,
    CompleteResult, ContentBlock, ErrorData, GetPromptRequestParams, GetPromptResponse,
    Implementation, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    Prompt, ReadResourceRequestParams, ReadResourceResponse, Reference, Resource, ResourceTemplate,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer, ServerHandler, ServiceExt as _};
use scratchpad_core::Scratchpad;
use tokio::sync::watch;

use crate::error::{Error, Result};
use crate::proxy::reuse::{RecentCalls, ReusePolicy};
use crate::proxy::{ProxyOptions, ProxyServer, UpstreamSpec};
use crate::server::ScratchpadServer;
use crate::tools;

/// How long a listing waits for an upstream that is still starting (or not answering) before it
/// lists that upstream's placeholder instead, when none is configured.
pub const DEFAULT_STARTUP_WAIT: Duration = Duration::from_secs(10);
/// The tool that stands for an upstream that is not available, after its server's name.
pub const UNAVAILABLE_TOOL: &str = "unavailable";

/// One upstream server of the gateway.
#[derive(Debug, Clone)]
pub struct GatewayUpstream {
    /// What the client's configuration calls it; the namespace of its tools and prompts.
    pub name: String,
    pub spec: UpstreamSpec,
}

/// How to run the gateway.
#[derive(Debug, Clone)]
pub struct GatewayOptions {
    pub upstreams: Vec<GatewayUpstream>,
    /// Offload threshold in bytes; `None`: the configuration's.
    pub threshold: Option<usize>,
    pub call_timeout: Duration,
    /// How long the client's `initialize`, and a listing, wait for upstreams still starting.
    pub startup_wait: Duration,
    /// Largest message accepted from the client (bytes).
    pub max_message_bytes: usize,
    /// Largest message accepted from an upstream (bytes).
    pub max_result_bytes: u64,
    /// Which repeated calls are answered from the stored result; its tools are named SERVER__TOOL
    /// (the server's name and the tool's as that server calls it).
    pub reuse: ReusePolicy,
}

impl GatewayOptions {
    pub fn new(upstreams: Vec<GatewayUpstream>) -> Self {
        Self {
            upstreams,
            threshold: None,
            call_timeout: crate::proxy::DEFAULT_CALL_TIMEOUT,
            startup_wait: DEFAULT_STARTUP_WAIT,
            max_message_bytes: crate::lines::DEFAULT_MAX_MESSAGE_BYTES,
            max_result_bytes: crate::lines::DEFAULT_MAX_RESULT_BYTES,
            reuse: ReusePolicy::default(),
        }
    }

    /// Refuses a gateway without upstreams, or with two of the same name.
    pub fn validate(&self) -> Result<()> {
        if self.upstreams.is_empty() {
            return Err(Error::Config(
                "the gateway has no upstream servers: give them with --servers-from FILE, \
                 --server NAME=COMMAND, --upstream-url NAME=URL, or [gateway.servers.NAME] in the \
                 configuration file"
                    .into(),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for upstream in &self.upstreams {
            if !seen.insert(upstream.name.as_str()) {
                return Err(Error::Config(format!(
                    "two upstream servers are called `{}`; give each its own name",
                    upstream.name
                )));
            }
        }
        Ok(())
    }
}

/// Where an upstream is: not yet answered, connected, or failed with a reason.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Status {
    Starting,
    Ready,
    Failed(String),
}

#[derive(Debug)]
struct Member {
    name: String,
    proxy: ProxyServer,
    status: watch::Sender<Status>,
}

/// Where a listed name goes.
#[derive(Debug, Clone)]
enum ToolRoute {
    /// Member index and the name its proxy lists the tool under.
    Upstream(usize, String),
    /// The placeholder of a member that is not available.
    Unavailable(usize),
}

#[derive(Debug, Default)]
struct Routes {
    tools: BTreeMap<String, ToolRoute>,
    /// Listed prompt name → member index and the upstream's name.
    prompts: BTreeMap<String, (usize, String)>,
    /// Resource URI → member index.
    resources: BTreeMap<String, usize>,
    /// The literal start of each resource template (before its first `{`) → member index.
    templates: Vec<(String, usize)>,
}

/// One downstream session of the gateway.
#[derive(Debug, Clone)]
pub struct GatewayServer {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    pad: Scratchpad,
    local: ScratchpadServer,
    members: Vec<Member>,
    startup_wait: Duration,
    routes: Mutex<Routes>,
    /// A listing showed a placeholder: the client is told when that upstream comes up.
    placeholders_listed: AtomicBool,
    /// The upstreams were started (on `initialize`, or on the first request of a client that
    /// speaks a protocol without one).
    started: AtomicBool,
}

const GATEWAY_INSTRUCTIONS: &str = "This server is the scratchpad gateway in front of several MCP \
servers: each server's tools and prompts are listed as SERVER__NAME. Tool results larger than a few \
kilobytes are stored whole and replaced by a JSON reference with a preview (first and last lines, \
error lines); read more with scratchpad_read (mode=grep, lines, tail, json). Every tool also takes an \
optional `scratchpad` argument that saves its full output under a name, and any argument may contain \
{{scratchpad:NAME}} (or {{scratchpad:NAME#lines=10-20}}) to pass a stored value without reading it.";

impl GatewayServer {
    pub fn new(pad: Scratchpad, options: GatewayOptions) -> Self {
        let pad = match options.threshold {
            Some(bytes) => pad.with_threshold(bytes),
            None => pad,
        };
        // One table for all upstreams: a call that may change something through one server
        // forgets what the others read.
        let recent = options
            .reuse
            .window
            .map(|window| Arc::new(RecentCalls::new(window)));
        warn_unmatched_reuse_tools(&options.reuse, &options.upstreams);
        let members = options
            .upstreams
            .into_iter()
            .map(|upstream| {
                let mut proxy = ProxyOptions::new(upstream.spec);
                proxy.scratchpad_tools = false;
                proxy.call_timeout = options.call_timeout;
                proxy.max_message_bytes = options.max_message_bytes;
                proxy.max_result_bytes = options.max_result_bytes;
                proxy.reuse = member_reuse(&options.reuse, &upstream.name);
                Member {
                    name: upstream.name,
                    proxy: ProxyServer::with_recent_calls(pad.clone(), proxy, recent.clone()),
                    status: watch::Sender::new(Status::Starting),
                }
            })
            .collect();
        Self {
            inner: Arc::new(Inner {
                local: ScratchpadServer::new(pad.clone()),
                pad,
                members,
                startup_wait: options.startup_wait,
                routes: Mutex::new(Routes::default()),
                placeholders_listed: AtomicBool::new(false),
                started: AtomicBool::new(false),
            }),
        }
    }

    /// Closes every upstream connection (child processes are reaped).
    pub async fn shutdown(&self) {
        let closing = self.inner.members.iter().map(|m| m.proxy.shutdown());
        futures_util::future::join_all(closing).await;
    }

    /// Starts every upstream at once, the first time only; each reports its own outcome.
    fn start_all(&self, downstream: &Peer<RoleServer>, info: Option<&ClientConfig>) {
        if self.inner.started.swap(true, Ordering::SeqCst) {
            return;
        }
        let info = info
            .cloned()
            .or_else(|| downstream.peer_info().map(|info| (*info).clone()))
            .unwrap_or_default();
        for index in 0..self.inner.members.len() {
            let gateway = self.clone();
            let downstream = downstream.clone();
            let info = info.clone();
            tokio::spawn(async move { gateway.start(index, &downstream, Some(info)).await });
        }
    }

    /// Connects one upstream and records the outcome; when a listing already showed it as
    /// unavailable, the client is told to list again.
    async fn start(&self, index: usize, downstream: &Peer<RoleServer>, info: Option<ClientConfig>) {
        let Some(member) = self.inner.members.get(index) else {
            return;
        };
        member.status.send_replace(Status::Starting);
        let status = match member.proxy.connect(downstream, info).await {
            Ok(()) => Status::Ready,
            Err(reason) => {
                tracing::warn!(upstream = %member.name, %reason, "upstream not available");
                Status::Failed(reason)
            }
        };
        let ready = status == Status::Ready;
        member.status.send_replace(status);
        if ready && self.inner.placeholders_listed.load(Ordering::SeqCst) {
            let _ = downstream.notify_tool_list_changed().await;
            let _ = downstream.notify_prompt_list_changed().await;
            let _ = downstream.notify_resource_list_changed().await;
        }
    }

    /// The member's status once it is no longer starting, or after `wait`.
    async fn settled_status(&self, index: usize, wait: Duration) -> Status {
        let Some(member) = self.inner.members.get(index) else {
            return Status::Failed("no such upstream".into());
        };
        let mut status = member.status.subscribe();
        let _ = tokio::time::timeout(wait, status.wait_for(|s| *s != Status::Starting)).await;
        status.borrow().clone()
    }

    /// What is wrong with an upstream and what to do, as the model reads it.
    fn unavailable_message(&self, index: usize, status: &Status) -> String {
        let name = self.member_name(index);
        match status {
            Status::Starting => format!(
                "the MCP server `{name}` is still starting (it has not answered the MCP handshake \
                 yet); call {name}__{UNAVAILABLE_TOOL} again in a moment, or list the tools again \
                 once the client is told they changed"
            ),
            Status::Failed(reason) => format!(
                "the MCP server `{name}` is not available: {reason}. Fix its entry in the gateway's \
                 configuration (command, arguments, environment, URL), then call \
                 {name}__{UNAVAILABLE_TOOL} to start it again"
            ),
            Status::Ready => format!(
                "the MCP server `{name}` is running now; list the tools again to see its tools"
            ),
        }
    }

    fn member_name(&self, index: usize) -> &str {
        self.inner
            .members
            .get(index)
            .map_or("?", |member| member.name.as_str())
    }

    fn unavailable_tool(&self, index: usize, status: &Status) -> Tool {
        let mut schema = rmcp::model::JsonObject::new();
        schema.insert("type".into(), "object".into());
        schema.insert(
            "properties".into(),
            serde_json::Value::Object(rmcp::model::JsonObject::new()),
        );
        Tool::new(
            format!(
                "{}{}{UNAVAILABLE_TOOL}",
                self.member_name(index),
                names::SEPARATOR
            ),
            format!(
                "Stands for the tools of the MCP server `{}`, which is not available: {} Calling \
                 it tries to start the server again and says what happened.",
                self.member_name(index),
                self.unavailable_message(index, status)
            ),
            Arc::new(schema),
        )
    }

    /// One member's tools as its proxy lists them, or its placeholder.
    async fn member_tools(
        &self,
        index: usize,
        context: &RequestContext<RoleServer>,
    ) -> (usize, std::result::Result<Vec<Tool>, Tool>) {
        let status = self.settled_status(index, self.inner.startup_wait).await;
        let Some(member) = self.inner.members.get(index) else {
            return (index, Ok(Vec::new()));
        };
        if status != Status::Ready {
            return (index, Err(self.unavailable_tool(index, &status)));
        }
        let listing = tokio::time::timeout(
            self.inner.startup_wait,
            member.proxy.list_tools(None, fork(context)),
        )
        .await;
        match listing {
            Ok(Ok(listed)) => (index, Ok(listed.tools)),
            Ok(Err(err)) => {
                let status = Status::Failed(err.message.to_string());
                (index, Err(self.unavailable_tool(index, &status)))
            }
            Err(_) => {
                let status = Status::Failed(format!(
                    "it did not list its tools within {} s",
                    self.inner.startup_wait.as_secs()
                ));
                (index, Err(self.unavailable_tool(index, &status)))
            }
        }
    }

    /// Every upstream's tools under their listed names, the placeholders of those not available,
    /// then the scratchpad tools; remembers where each name goes.
    async fn list_all_tools(&self, context: &RequestContext<RoleServer>) -> Vec<Tool> {
        self.start_all(&context.peer, None);
        let listings = futures_util::future::join_all(
            (0..self.inner.members.len()).map(|index| self.member_tools(index, context)),
        )
        .await;
        let mut entries: Vec<(usize, Option<String>, Tool)> = Vec::new();
        for (index, listing) in listings {
            match listing {
                Ok(tools) => entries.extend(
                    tools
                        .into_iter()
                        .map(|tool| (index, Some(tool.name.to_string()), tool)),
                ),
                Err(placeholder) => {
                    self.inner.placeholders_listed.store(true, Ordering::SeqCst);
                    entries.push((index, None, placeholder));
                }
            }
        }
        let own = tools::definitions();
        let reserved: Vec<&str> = own.iter().map(|tool| tool.name.as_ref()).collect();
        let originals: Vec<(&str, String)> = entries
            .iter()
            .map(|(index, upstream, _)| {
                let item = upstream
                    .clone()
                    .unwrap_or_else(|| UNAVAILABLE_TOOL.to_owned());
                (self.member_name(*index), item)
            })
            .collect();
        let pairs: Vec<(&str, &str)> = originals.iter().map(|(s, t)| (*s, t.as_str())).collect();
        let listed = names::assign(&pairs, &reserved);
        let mut routes = BTreeMap::new();
        let mut tools = Vec::with_capacity(entries.len() + own.len());
        for ((index, upstream, mut tool), name) in entries.into_iter().zip(listed) {
            let server = self.member_name(index);
            if let Some(original) = &upstream
                && name != names::plain(server, original)
            {
                let note = format!(
                    "(Listed as `{name}` by the scratchpad gateway: the MCP server `{server}` \
                     calls it `{original}`.)"
                );
                tool.description = Some(match tool.description.take() {
                    Some(text) => format!("{text}\n\n{note}").into(),
                    None => note.into(),
                });
            }
            let route = match upstream {
                Some(original) => ToolRoute::Upstream(index, original),
                None => ToolRoute::Unavailable(index),
            };
            routes.insert(name.clone(), route);
            tool.name = name.into();
            tools.push(tool);
        }
        if let Ok(mut current) = self.inner.routes.lock() {
            current.tools = routes;
        }
        tools.extend(own);
        tools
    }

    fn tool_route(&self, name: &str) -> Option<ToolRoute> {
        self.inner
            .routes
            .lock()
            .ok()
            .and_then(|routes| routes.tools.get(name).cloned())
    }

    async fn call_unavailable(
        &self,
        index: usize,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let mut status = self.settled_status(index, self.inner.startup_wait).await;
        if matches!(status, Status::Failed(_)) {
            self.start(index, &context.peer, None).await;
            status = self.settled_status(index, Duration::ZERO).await;
        }
        let message = self.unavailable_message(index, &status);
        if status == Status::Ready {
            let _ = context.peer.notify_tool_list_changed().await;
            CallToolResult::success(vec![ContentBlock::text(message)])
        } else {
            CallToolResult::error(vec![ContentBlock::text(message)])
        }
    }

    /// The members that are up, without waiting for the others.
    fn ready_members(&self) -> impl Iterator<Item = (usize, &Member)> {
        self.inner
            .members
            .iter()
            .enumerate()
            .filter(|(_, member)| *member.status.borrow() == Status::Ready)
    }

    /// The members whose upstream serves `capability`, after waiting for those still starting.
    async fn members_with(
        &self,
        context: &RequestContext<RoleServer>,
        capability: fn(&ServerCapabilities) -> bool,
    ) -> Vec<(usize, &Member)> {
        self.start_all(&context.peer, None);
        futures_util::future::join_all(
            (0..self.inner.members.len())
                .map(|index| self.settled_status(index, self.inner.startup_wait)),
        )
        .await;
        self.ready_members()
            .filter(|(_, member)| {
                member
                    .proxy
                    .upstream_info()
                    .is_some_and(|info| capability(&info.capabilities))
            })
            .collect()
    }

    /// Every page of every upstream's prompts, namespaced.
    async fn list_all_prompts(&self, context: &RequestContext<RoleServer>) -> Vec<Prompt> {
        let members = self
            .members_with(context, |caps| caps.prompts.is_some())
            .await;
        let listings = futures_util::future::join_all(members.iter().map(|(index, member)| {
            let context = fork(context);
            async move {
                let prompts = all_pages(&member.name, "prompts/list", |params| async {
                    let page = member.proxy.list_prompts(params, fork(&context)).await?;
                    Ok((page.prompts, page.next_cursor))
                })
                .await;
                (*index, prompts)
            }
        }))
        .await;
        let mut entries: Vec<(usize, Prompt)> = Vec::new();
        for (index, prompts) in listings {
            entries.extend(prompts.into_iter().map(|prompt| (index, prompt)));
        }
        let pairs: Vec<(&str, &str)> = entries
            .iter()
            .map(|(index, prompt)| (self.member_name(*index), prompt.name.as_str()))
            .collect();
        let listed = names::assign(&pairs, &[]);
        let mut routes = BTreeMap::new();
        let mut prompts = Vec::with_capacity(entries.len());
        for ((index, mut prompt), name) in entries.into_iter().zip(listed) {
            let server = self.member_name(index);
            if name != names::plain(server, &prompt.name) {
                let note = format!(
                    "(Listed as `{name}` by the scratchpad gateway: the MCP server `{server}` \
                     calls it `{}`.)",
                    prompt.name
                );
                prompt.description = Some(match prompt.description.take() {
                    Some(text) => format!("{text}\n\n{note}"),
                    None => note,
                });
            }
            routes.insert(
                name.clone(),
                (index, std::mem::replace(&mut prompt.name, name)),
            );
            prompts.push(prompt);
        }
        if let Ok(mut current) = self.inner.routes.lock() {
            current.prompts = routes;
        }
        prompts
    }

    /// Every page of every upstream's resources, then the scratchpad's entries.
    async fn list_upstream_resources(&self, context: &RequestContext<RoleServer>) -> Vec<Resource> {
        let members = self
            .members_with(context, |caps| caps.resources.is_some())
            .await;
        let listings = futures_util::future::join_all(members.iter().map(|(index, member)| {
            let context = fork(context);
            async move {
                let resources = all_pages(&member.name, "resources/list", |params| async {
                    let page = member.proxy.list_resources(params, fork(&context)).await?;
                    Ok((page.resources, page.next_cursor))
                })
                .await;
                (*index, resources)
            }
        }))
        .await;
        let mut routes = BTreeMap::new();
        let mut resources = Vec::new();
        for (index, listed) in listings {
            for resource in listed {
                // The first upstream (in configuration order) to list a URI serves it.
                if routes.contains_key(&resource.uri) {
                    continue;
                }
                routes.insert(resource.uri.clone(), index);
                resources.push(resource);
            }
        }
        if let Ok(mut current) = self.inner.routes.lock() {
            current.resources = routes;
        }
        resources
    }

    async fn list_upstream_templates(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Vec<ResourceTemplate> {
        let members = self
            .members_with(context, |caps| caps.resources.is_some())
            .await;
        let listings = futures_util::future::join_all(members.iter().map(|(index, member)| {
            let context = fork(context);
            async move {
                let templates =
                    all_pages(&member.name, "resources/templates/list", |params| async {
                        let page = member
                            .proxy
                            .list_resource_templates(params, fork(&context))
                            .await?;
                        Ok((page.resource_templates, page.next_cursor))
                    })
                    .await;
                (*index, templates)
            }
        }))
        .await;
        let mut routes = Vec::new();
        let mut templates = Vec::new();
        for (index, listed) in listings {
            for template in listed {
                let prefix = template
                    .uri_template
                    .split('{')
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                routes.push((prefix, index));
                templates.push(template);
            }
        }
        if let Ok(mut current) = self.inner.routes.lock() {
            current.templates = routes;
        }
        templates
    }

    /// The member that serves `uri`: the one that listed it, else the one whose template's literal
    /// start is the longest match.
    async fn resource_member(
        &self,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Option<usize> {
        let lookup = |routes: &Routes| {
            routes.resources.get(uri).copied().or_else(|| {
                routes
                    .templates
                    .iter()
                    .filter(|(prefix, _)| !prefix.is_empty() && uri.starts_with(prefix.as_str()))
                    .max_by_key(|(prefix, _)| prefix.len())
                    .map(|(_, index)| *index)
            })
        };
        if let Some(found) = self.inner.routes.lock().ok().and_then(|r| lookup(&r)) {
            return Some(found);
        }
        // Not listed yet in this session: list, then look again.
        self.list_upstream_resources(context).await;
        self.list_upstream_templates(context).await;
        self.inner.routes.lock().ok().and_then(|r| lookup(&r))
    }

    async fn prompt_route(
        &self,
        name: &str,
        context: &RequestContext<RoleServer>,
    ) -> Option<(usize, String)> {
        let lookup = || {
            self.inner
                .routes
                .lock()
                .ok()
                .and_then(|routes| routes.prompts.get(name).cloned())
        };
        if let Some(found) = lookup() {
            return Some(found);
        }
        self.list_all_prompts(context).await;
        lookup()
    }
}

/// One upstream's part of the reuse policy: the tools named `SERVER__TOOL` for this server, by
/// the tool's own name. The server's part may be written as configured or as listed (`my.server`
/// or `my_server`).
fn member_reuse(policy: &ReusePolicy, server: &str) -> ReusePolicy {
    let prefixes = [
        names::plain(server, ""),
        format!("{}{}", names::sanitize(server), names::SEPARATOR),
    ];
    ReusePolicy {
        window: policy.window,
        tools: policy
            .tools
            .iter()
            .filter_map(|name| {
                prefixes
                    .iter()
                    .find_map(|prefix| name.strip_prefix(prefix.as_str()))
            })
            .map(str::to_owned)
            .collect(),
    }
}

/// A reuse tool name that names no server is most likely a typo; the log says so.
fn warn_unmatched_reuse_tools(policy: &ReusePolicy, upstreams: &[GatewayUpstream]) {
    for name in &policy.tools {
        let alone = ReusePolicy {
            window: policy.window,
            tools: std::iter::once(name.clone()).collect(),
        };
        let matched = upstreams
            .iter()
            .any(|upstream| !member_reuse(&alone, &upstream.name).tools.is_empty());
        if !matched {
            tracing::warn!(
                tool = %name,
                "a reuse tool names no server of the gateway; write it as SERVER__TOOL"
            );
        }
    }
}

/// Pages of one upstream listing followed at most: an upstream whose `nextCursor` never ends (or
/// comes round again) cannot hold a listing, or the memory it fills, for ever.
const MAX_LIST_PAGES: usize = 100;

/// Every item of one upstream's listing, page after page. A page that fails, a cursor seen before
/// and the page limit each end it with what was read so far, said in the log: one upstream's
/// listing never fails the gateway's.
async fn all_pages<T, F, Fut>(upstream: &str, method: &str, mut page: F) -> Vec<T>
where
    F: FnMut(Option<PaginatedRequestParams>) -> Fut,
    Fut: std::future::Future<
            Output = std::result::Result<(Vec<T>, Option<String>), rmcp::model::ErrorData>,
        >,
{
    let mut items = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut params = None;
    for _ in 0..MAX_LIST_PAGES {
        match page(params.take()).await {
            Ok((listed, next)) => {
                items.extend(listed);
                match next {
                    Some(next) if seen.insert(next.clone()) => {
                        params = Some(PaginatedRequestParams::default().with_cursor(Some(next)));
                    }
                    Some(_) => {
                        tracing::warn!(
                            upstream,
                            method,
                            "the upstream gave a cursor again; listing stopped"
                        );
                        return items;
                    }
                    None => return items,
                }
            }
            Err(err) => {
                tracing::warn!(upstream, method, error = %err.message, "listing failed");
                return items;
            }
        }
    }
    tracing::warn!(
        upstream,
        method,
        pages = MAX_LIST_PAGES,
        "listing stopped at the page limit"
    );
    items
}

/// A copy of a request's context for a request the gateway makes on its behalf: same client, same
/// cancellation, same progress token.
fn fork(context: &RequestContext<RoleServer>) -> RequestContext<RoleServer> {
    let mut forked = RequestContext::new(context.id.clone(), context.peer.clone());
    forked.ct = context.ct.clone();
    forked.meta = context.meta.clone();
    forked.extensions = context.extensions.clone();
    forked
}

fn unknown(what: &str, name: &str, next: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("no {what} `{name}` behind the scratchpad gateway; {next}"),
        None,
    )
}

impl ServerHandler for GatewayServer {
    #[expect(deprecated, reason = "logging is still what most upstreams speak")]
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_completions()
            .enable_prompts()
            .enable_resources()
            .enable_tools()
            .build();
        if let Some(tools) = capabilities.tools.as_mut() {
            tools.list_changed = Some(true);
        }
        if let Some(prompts) = capabilities.prompts.as_mut() {
            prompts.list_changed = Some(true);
        }
        if let Some(resources) = capabilities.resources.as_mut() {
            resources.list_changed = Some(true);
        }
        let mut instructions = GATEWAY_INSTRUCTIONS.to_owned();
        for (_, member) in self.ready_members() {
            if let Some(theirs) = member
                .proxy
                .upstream_info()
                .and_then(|info| info.instructions.clone())
            {
                instructions.push_str(&format!(
                    "\n\nThe MCP server `{}` (its tools are {}__*) says:\n{theirs}",
                    member.name, member.name
                ));
            }
        }
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(
                "scratchpad-gateway",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(instructions)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.start_all(&context.peer, Some(&request));
        // Fast upstreams make it into the instructions; a slow one does not hold the client up
        // longer than the startup wait.
        futures_util::future::join_all(
            (0..self.inner.members.len())
                .map(|index| self.settled_status(index, self.inner.startup_wait)),
        )
        .await;
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.list_all_tools(&context).await,
        ))
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        if tools::is_scratchpad_tool(&request.name) {
            let args = request.arguments.clone().unwrap_or_default();
            let pad = crate::server::with_client_author(self.inner.pad.clone(), &context);
            if let Some(result) = tools::call(&pad, &request.name, args, context.ct.clone()).await {
                return Ok(result.into());
            }
        }
        self.start_all(&context.peer, None);
        let route = match self.tool_route(&request.name) {
            Some(route) => Some(route),
            // A client may call before listing, or after an upstream's tools changed.
            None => {
                self.list_all_tools(&context).await;
                self.tool_route(&request.name)
            }
        };
        match route {
            Some(ToolRoute::Upstream(index, name)) => {
                let Some(member) = self.inner.members.get(index) else {
                    return Err(unknown("tool", &request.name, "list the tools again"));
                };
                request.name = name.into();
                member.proxy.call_tool(request, context).await
            }
            Some(ToolRoute::Unavailable(index)) => {
                Ok(self.call_unavailable(index, &context).await.into())
            }
            None => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "no tool `{}` behind the scratchpad gateway; list the tools again: names are \
                 SERVER__TOOL",
                request.name
            ))])
            .into()),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(
            self.list_all_prompts(&context).await,
        ))
    }

    async fn get_prompt(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<GetPromptResponse, ErrorData> {
        let Some((index, name)) = self.prompt_route(&request.name, &context).await else {
            return Err(unknown("prompt", &request.name, "list the prompts again"));
        };
        let Some(member) = self.inner.members.get(index) else {
            return Err(unknown("prompt", &request.name, "list the prompts again"));
        };
        request.name = name;
        member.proxy.get_prompt(request, context).await
    }

    /// Every upstream's resources (all pages) on the first page, then the scratchpad's entries;
    /// the cursor continues the scratchpad's listing.
    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|params| params.cursor);
        let mut resources = match cursor {
            None => self.list_upstream_resources(&context).await,
            Some(_) => Vec::new(),
        };
        let params =
            cursor.map(|cursor| PaginatedRequestParams::default().with_cursor(Some(cursor)));
        let own = self.inner.local.list_resources(params, context).await?;
        resources.extend(own.resources);
        let mut listed = ListResourcesResult::with_all_items(resources);
        listed.next_cursor = own.next_cursor;
        Ok(listed)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourceTemplatesResult, ErrorData> {
        let mut templates = self.list_upstream_templates(&context).await;
        let own = self
            .inner
            .local
            .list_resource_templates(None, context)
            .await?;
        templates.extend(own.resource_templates);
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        if request.uri.starts_with("scratchpad://") {
            return self.inner.local.read_resource(request, context).await;
        }
        let member = self
            .resource_member(&request.uri, &context)
            .await
            .and_then(|index| self.inner.members.get(index));
        let Some(member) = member else {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no upstream server behind the scratchpad gateway lists the resource `{}`; \
                     resources/list shows what exists",
                    request.uri
                ),
                None,
            ));
        };
        member.proxy.read_resource(request, context).await
    }

    async fn complete(
        &self,
        mut request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CompleteResult, ErrorData> {
        let index = match &mut request.r#ref {
            Reference::Prompt(prompt) => {
                let Some((index, name)) = self.prompt_route(&prompt.name, &context).await else {
                    return Err(unknown("prompt", &prompt.name, "list the prompts again"));
                };
                prompt.name = name;
                index
            }
            Reference::Resource(resource) => {
                let Some(index) = self.resource_member(&resource.uri, &context).await else {
                    return Err(unknown(
                        "resource",
                        &resource.uri,
                        "list the resources again",
                    ));
                };
                index
            }
            _ => {
                return Err(ErrorData::invalid_params(
                    "the scratchpad gateway completes arguments of prompts and resource templates \
                     only",
                    None,
                ));
            }
        };
        let Some(member) = self.inner.members.get(index) else {
            return Err(unknown("completion target", "", "list again"));
        };
        member.proxy.complete(request, context).await
    }

    #[expect(deprecated, reason = "logging is still what most upstreams speak")]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<(), ErrorData> {
        let members: Vec<&Member> = self
            .ready_members()
            .filter(|(_, member)| {
                member
                    .proxy
                    .upstream_info()
                    .is_some_and(|info| info.capabilities.logging.is_some())
            })
            .map(|(_, member)| member)
            .collect();
        let setting = members
            .iter()
            .map(|member| member.proxy.set_level(request.clone(), fork(&context)));
        futures_util::future::join_all(setting).await;
        Ok(())
    }
}

/// Serves the gateway on stdin/stdout until the client closes the connection; every upstream is
/// then closed (child processes are reaped).
pub fn serve_gateway_stdio(pad: Scratchpad, options: GatewayOptions) -> Result<()> {
    options.validate()?;
    let max_message_bytes = options.max_message_bytes;
    let gateway = GatewayServer::new(pad.clone(), options);
    crate::run_to_completion(pad, async move {
        let running = gateway
            .clone()
            .serve(crate::stdio_lines(max_message_bytes))
            .await
            .map_err(|err| Error::Protocol(err.to_string()))?;
        let outcome = running.waiting().await;
        gateway.shutdown().await;
        outcome.map_err(|err| Error::Protocol(err.to_string()))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor_of(params: Option<PaginatedRequestParams>) -> Option<String> {
        params.and_then(|p| p.cursor)
    }

    #[tokio::test]
    async fn a_listing_whose_cursor_never_ends_stops_at_the_page_limit() {
        let mut pages = 0;
        let items = all_pages("endless", "prompts/list", |params| {
            pages += 1;
            let next = format!("page-{pages}");
            async move {
                let _ = cursor_of(params);
                Ok((vec![1u8], Some(next)))
            }
        })
        .await;
        assert_eq!(items.len(), MAX_LIST_PAGES);
    }

    #[tokio::test]
    async fn a_cursor_that_comes_round_again_ends_the_listing() {
        let items = all_pages("looping", "resources/list", |params| async move {
            // Page 1 and every later page point back at the same cursor.
            let item = if cursor_of(params).is_some() { 2u8 } else { 1 };
            Ok((vec![item], Some("again".to_owned())))
        })
        .await;
        assert_eq!(items, vec![1, 2]);
    }

    #[tokio::test]
    async fn a_failed_page_keeps_what_was_listed_before_it() {
        let items = all_pages("flaky", "prompts/list", |params| async move {
            match cursor_of(params) {
                None => Ok((vec!["first"], Some("next".to_owned()))),
                Some(_) => Err(rmcp::model::ErrorData::internal_error("gone", None)),
            }
        })
        .await;
        assert_eq!(items, vec!["first"]);
    }
}
