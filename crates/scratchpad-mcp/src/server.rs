//! The MCP server: scratchpad tools, every entry as a resource, and the guidance as instructions and
//! as a prompt.

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    ResourceTemplate, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use scratchpad_core::{Kind, ListFilter, Scratchpad};
use std::io::Read as _;

use crate::tools::{self, Mcp, render};
use crate::{blocking, guidance};
use scratchpad_core::figures::thousands;

/// Resources per `resources/list` page.
const RESOURCE_PAGE: usize = 100;
/// Largest entry `resources/read` returns whole (bytes); larger ones are read in slices with the tool.
pub const RESOURCE_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Which scratchpad session a request works in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionPolicy {
    /// Every request uses the server's session (stdio, a fixed `--session`, or HTTP without tokens).
    Fixed,
    /// Each authenticated HTTP client works in the session its credential maps to ([`ClientSession`]).
    PerClient,
}

/// The session of an authenticated HTTP client, put in the request's extensions by the HTTP layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientSession(pub String);

/// An MCP server over one scratchpad store.
#[derive(Debug, Clone)]
pub struct ScratchpadServer {
    pad: Scratchpad,
    policy: SessionPolicy,
}

impl ScratchpadServer {
    /// A server whose requests all work in `pad`'s session.
    pub fn new(pad: Scratchpad) -> Self {
        Self::with_policy(pad, SessionPolicy::Fixed)
    }

    pub fn with_policy(pad: Scratchpad, policy: SessionPolicy) -> Self {
        Self { pad, policy }
    }

    /// The scratchpad as seen by the client that sent this request.
    fn pad_for(&self, context: &RequestContext<RoleServer>) -> Result<Scratchpad, ErrorData> {
        match self.policy {
            SessionPolicy::Fixed => Ok(self.pad.clone()),
            SessionPolicy::PerClient => {
                let session = context
                    .extensions
                    .get::<http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<ClientSession>())
                    .ok_or_else(|| {
                        ErrorData::invalid_request(
                            "this server gives each authenticated client its own session, and this request \
                             carried no credential; send `Authorization: Bearer <token>`",
                            None,
                        )
                    })?;
                self.pad
                    .with_session(&session.0)
                    .map_err(|err| ErrorData::internal_error(err.render(&Mcp), None))
            }
        }
    }
}

impl ServerHandler for ScratchpadServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(
            Implementation::new("scratchpad", env!("CARGO_PKG_VERSION"))
                .with_title("Scratchpad")
                .with_description(
                    "Keeps whole tool outputs and notes out of the context window; read slices on demand.",
                ),
        )
        .with_instructions(guidance::INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let pad = with_client_author(self.pad_for(&context)?, &context);
        let args = request.arguments.unwrap_or_default();
        match tools::call(&pad, &request.name, args, context.ct.clone()).await {
            Some(result) => Ok(result.into()),
            None => Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; this server's tools are {}",
                    request.name,
                    tools::definitions()
                        .iter()
                        .map(|tool| tool.name.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let pad = self.pad_for(&context)?;
        let cursor = request.and_then(|params| params.cursor);
        let page =
            blocking(move || pad.list(&ListFilter::default(), cursor.as_deref(), RESOURCE_PAGE))
                .await?
                .map_err(|err| ErrorData::invalid_params(err.render(&Mcp), None))?;
        let mut result = ListResourcesResult::with_all_items(
            page.entries.iter().map(render::resource).collect(),
        );
        result.next_cursor = page.next_cursor;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let session = self.pad_for(&context)?.session().to_owned();
        let template = ResourceTemplate::new(
            format!("scratchpad://{session}/{{name}}"),
            "scratchpad entry",
        )
        .with_description(
            "A note or stored output of this session, by name or id. Large entries are better read in \
             slices with scratchpad_read.",
        );
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let pad = self.pad_for(&context)?;
        let uri = request.uri;
        let name = entry_name(&uri, pad.session())?;
        let contents = blocking(move || read_whole(&pad, &name, &uri)).await??;
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            guidance::PROMPT_NAME,
            Some(guidance::PROMPT_DESCRIPTION),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != guidance::PROMPT_NAME {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt `{}`; this server has one prompt, `{}`",
                    request.name,
                    guidance::PROMPT_NAME
                ),
                None,
            ));
        }
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            guidance::INSTRUCTIONS,
        )])
        .with_description(guidance::PROMPT_DESCRIPTION)
        .into())
    }
}

/// `pad` recording who a request's changes come from: the server's own `--author` when it was
/// given one; else, over HTTP with tokens, the identity of the client's token (`client-…`, which a
/// client cannot choose); else the name the client gave itself (`clientInfo`, at `initialize` or
/// with each request).
pub fn with_client_author(pad: Scratchpad, context: &RequestContext<RoleServer>) -> Scratchpad {
    if pad.author().is_some() {
        return pad;
    }
    let identity = context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<ClientSession>())
        .map(|session| session.0.clone());
    let name = context
        .peer
        .peer_info()
        .map(|info| info.client_info.name.clone())
        .or_else(|| context.meta.client_info().map(|info| info.name));
    let author = match (identity, name) {
        (Some(identity), _) => Some(identity),
        // A client's name is whatever it says: characters that would distort a table are
        // written as escapes rather than refusing the client.
        (None, Some(name)) => scratchpad_core::model::author_from_client(&name),
        (None, None) => None,
    };
    match author {
        Some(author) => pad.with_author(&author).unwrap_or(pad),
        None => pad,
    }
}

/// The entry name in `scratchpad://SESSION/NAME`, which must name the caller's own session.
fn entry_name(uri: &str, session: &str) -> Result<String, ErrorData> {
    let not_found = |why: String| ErrorData::resource_not_found(why, None);
    let rest = uri.strip_prefix("scratchpad://").ok_or_else(|| {
        not_found(format!(
            "`{uri}` is not a scratchpad resource; they look like scratchpad://{session}/NAME"
        ))
    })?;
    match rest.split_once('/') {
        Some((owner, name)) if owner == session && !name.is_empty() => Ok(name.to_owned()),
        Some((_, name)) if !name.is_empty() => Err(not_found(format!(
            "no entry `{uri}` in your session `{session}`; resources of other sessions are not readable"
        ))),
        _ => Err(not_found(format!(
            "`{uri}` names no entry; use scratchpad://{session}/NAME"
        ))),
    }
}

/// The whole entry as resource contents: text as text, binary as base64.
fn read_whole(pad: &Scratchpad, name: &str, uri: &str) -> Result<ResourceContents, ErrorData> {
    let (info, mut reader) = pad
        .open_content(name)
        .map_err(|err| ErrorData::resource_not_found(err.render(&Mcp), None))?;
    if info.bytes > RESOURCE_MAX_BYTES {
        return Err(ErrorData::invalid_params(
            format!(
                "`{}` is {} bytes, more than resources/read returns whole ({} bytes); read it in slices \
                 with scratchpad_read",
                info.name,
                thousands(info.bytes),
                thousands(RESOURCE_MAX_BYTES)
            ),
            None,
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(info.bytes).unwrap_or(0));
    reader
        .read_to_end(&mut bytes)
        .map_err(|err| ErrorData::internal_error(format!("reading `{name}`: {err}"), None))?;
    let blob = |bytes: &[u8]| {
        ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(bytes), uri)
    };
    let contents = match info.kind {
        Kind::Text | Kind::Json => match String::from_utf8(bytes) {
            Ok(text) => ResourceContents::text(text, uri),
            Err(err) => blob(err.as_bytes()),
        },
        Kind::Binary => blob(&bytes),
    };
    Ok(contents.with_mime_type(info.mime_type()))
}
