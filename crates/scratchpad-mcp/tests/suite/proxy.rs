//! The proxy's rewrite rules, each on its own, and the whole proxy in process: an rmcp upstream
//! server defined here, served over streamable HTTP on loopback, the proxy in front of it, and an
//! rmcp client talking to the proxy over `tokio::io::duplex`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, JsonObject,
    ListToolsResult, PaginatedRequestParams, ResourceContents, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ClientHandler, RoleClient, RoleServer, ServerHandler, ServiceExt as _};
use scratchpad_core::Scratchpad;
use scratchpad_mcp::proxy::reuse::ReusePolicy;
use scratchpad_mcp::proxy::rewrite::{self, CallInfo};
use scratchpad_mcp::{ProxyOptions, ProxyServer, UpstreamSpec};
use serde_json::{Value, json};

use crate::common::{log_with_error, store_url, text};

pub(super) fn pad() -> (Scratchpad, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (Scratchpad::open(&store_url(&dir)).unwrap(), dir)
}

pub(super) fn object(value: Value) -> JsonObject {
    let Value::Object(map) = value else {
        panic!("not an object: {value}")
    };
    map
}

fn call_info(tool: &str, save_as: Option<&str>) -> CallInfo {
    CallInfo {
        tool: tool.into(),
        args: json!({}),
        server: Some("test".into()),
        save_as: save_as.map(str::to_owned),
    }
}

pub(super) fn observation(result: &CallToolResult) -> Value {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text())
        .find_map(|t| {
            serde_json::from_str::<Value>(&t.text)
                .ok()
                .filter(|v| v.get("preview").is_some())
        })
        .unwrap_or_else(|| panic!("no observation in {}", text(result)))
}

pub(super) fn links(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ResourceLink(link) => Some(link.uri.clone()),
            _ => None,
        })
        .collect()
}

// ---- tools/list rewrite ----

#[test]
fn a_clashing_upstream_tool_is_prefixed_and_says_so() {
    let tools = vec![
        Tool::new(
            "scratchpad_read",
            "Reads their thing",
            object(json!({"type": "object"})),
        ),
        Tool::new("fetch", "Fetches", object(json!({"type": "object"}))),
    ];
    let reserved = vec!["scratchpad_read".to_owned()];
    let (tools, map) = rewrite::rewrite_tools(tools, &reserved, &ReusePolicy::default());
    assert_eq!(tools[0].name, "upstream_scratchpad_read");
    let description = tools[0].description.as_deref().unwrap();
    assert!(
        description.starts_with("Reads their thing"),
        "{description}"
    );
    assert!(description.contains("`scratchpad_read`"), "{description}");
    assert_eq!(
        map.upstream_names["upstream_scratchpad_read"],
        "scratchpad_read"
    );
    assert_eq!(map.upstream_names["fetch"], "fetch");
    assert_eq!(tools[1].name, "fetch");
}

#[test]
fn every_tool_gains_an_optional_scratchpad_argument_unless_it_has_its_own() {
    let tools = vec![
        Tool::new(
            "grep",
            "g",
            object(
                json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}),
            ),
        ),
        Tool::new("bare", "b", JsonObject::new()),
        Tool::new(
            "notes",
            "n",
            object(json!({"type": "object", "properties": {"scratchpad": {"type": "integer"}}})),
        ),
    ];
    let (tools, map) = rewrite::rewrite_tools(tools, &[], &ReusePolicy::default());
    let grep = &tools[0].input_schema;
    assert_eq!(grep["properties"]["scratchpad"]["type"], "string");
    assert_eq!(
        grep["required"],
        json!(["q"]),
        "the argument stays optional"
    );
    assert_eq!(tools[1].input_schema["type"], "object");
    assert!(tools[1].input_schema["properties"]["scratchpad"].is_object());
    assert_eq!(
        tools[2].input_schema["properties"]["scratchpad"]["type"],
        "integer"
    );
    assert!(map.own_scratchpad_arg.contains("notes"));
    assert!(!map.own_scratchpad_arg.contains("grep"));
}

#[test]
fn output_schemas_accept_the_original_or_the_offloaded_observation() {
    let original = object(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"item": {"$ref": "#/$defs/Item"}},
        "required": ["item"],
        "$defs": {"Item": {"type": "string"}}
    }));
    let widened = rewrite::widen_output_schema(&original);
    assert_eq!(widened["type"], "object", "MCP requires an object root");
    assert_eq!(
        widened["$defs"]["Item"]["type"], "string",
        "definitions stay at the root"
    );
    assert!(widened.contains_key("$schema"));
    let branches = widened["anyOf"].as_array().unwrap();
    assert_eq!(branches[0]["properties"]["item"]["$ref"], "#/$defs/Item");
    assert!(branches[0].get("$defs").is_none());
    assert_eq!(branches[1], rewrite::offloaded_schema());
    let required = branches[1]["required"].as_array().unwrap();
    assert!(required.contains(&json!("scratchpad")));
}

// ---- arguments ----

#[test]
fn the_scratchpad_argument_is_stripped_before_forwarding() {
    let mut args = object(json!({"path": "/x", "scratchpad": "kept"}));
    assert_eq!(
        rewrite::take_control(false, &mut args)
            .unwrap()
            .save_as
            .as_deref(),
        Some("kept")
    );
    assert_eq!(args, object(json!({"path": "/x"})));
    // A tool that has its own `scratchpad` argument keeps it.
    let mut args = object(json!({"scratchpad": "theirs"}));
    assert_eq!(
        rewrite::take_control(true, &mut args).unwrap(),
        rewrite::Control::default()
    );
    assert!(args.contains_key("scratchpad"));
    let mut args = object(json!({"scratchpad": 3}));
    assert!(
        rewrite::take_control(false, &mut args)
            .unwrap_err()
            .contains("string")
    );
    // An invalid name is refused before the call, saying what a name may be.
    let mut args = object(json!({"scratchpad": "../etc/passwd"}));
    let refused = rewrite::take_control(false, &mut args).unwrap_err();
    assert!(
        refused.contains("A-Z a-z 0-9") && refused.contains("not called"),
        "{refused}"
    );
}

#[test]
fn the_scratchpad_argument_also_takes_a_name_and_fresh_together() {
    let mut args = object(json!({"q": 1, "scratchpad": {"fresh": true, "name": "kept"}}));
    let control = rewrite::take_control(false, &mut args).unwrap();
    assert_eq!(
        control,
        rewrite::Control {
            save_as: Some("kept".into()),
            fresh: true
        }
    );
    assert_eq!(args, object(json!({"q": 1})));
    let mut args = object(json!({"scratchpad": {"fresh": false}}));
    assert_eq!(
        rewrite::take_control(false, &mut args).unwrap(),
        rewrite::Control::default()
    );
    for (bad, says) in [
        (json!({"fresh": 1}), "true or false"),
        (json!({"name": 3}), "must be a string"),
        (json!({"fresh": true, "force": true}), "`force`"),
        (json!({"name": "../x"}), "not called"),
    ] {
        let mut args = object(json!({"scratchpad": bad}));
        let refused = rewrite::take_control(false, &mut args).unwrap_err();
        assert!(refused.contains(says), "{bad}: {refused}");
    }
}

// ---- results ----

#[test]
fn a_small_result_passes_untouched() {
    let (pad, _dir) = pad();
    let result = CallToolResult::structured(json!({"n": 1}));
    let out = rewrite::offload_result(&pad, &call_info("t", None), result.clone()).unwrap();
    assert_eq!(out, result);
}

#[test]
fn a_large_text_result_becomes_the_observation_and_a_link() {
    let (pad, _dir) = pad();
    let log = log_with_error(5_000, 2_500);
    let result = CallToolResult::success(vec![ContentBlock::text(log.clone())]);
    let out = rewrite::offload_result(&pad, &call_info("tail_log", None), result).unwrap();
    let obs = observation(&out);
    assert_eq!(obs["ok"], true);
    assert_eq!(obs["scratchpad"], "tail_log_1");
    assert_eq!(obs["bytes"], log.len());
    let preview = obs["preview"].as_str().unwrap();
    assert!(preview.contains("ERROR payment 2500 declined"), "{preview}");
    assert!(
        obs["hint"]
            .as_str()
            .unwrap()
            .contains("scratchpad_read(name=\"tail_log_1\"")
    );
    assert_eq!(links(&out), ["scratchpad://default/tail_log_1"]);
    assert!(serde_json::to_vec(&out).unwrap().len() < 6_000);
    assert_eq!(out.is_error, Some(false));
}

#[test]
fn is_error_is_kept_and_said() {
    let (pad, _dir) = pad();
    let result = CallToolResult::error(vec![ContentBlock::text(log_with_error(3_000, 10))]);
    let out = rewrite::offload_result(&pad, &call_info("t", None), result).unwrap();
    assert_eq!(out.is_error, Some(true));
    assert_eq!(observation(&out)["ok"], false);
}

#[test]
fn structured_content_that_repeats_the_text_points_at_the_same_entry() {
    let (pad, _dir) = pad();
    let log = log_with_error(3_000, 10);
    let mut result = CallToolResult::success(vec![ContentBlock::text(log.clone())]);
    result.structured_content = Some(json!({"content": log}));
    let out = rewrite::offload_result(&pad, &call_info("read", None), result).unwrap();
    let structured = out.structured_content.clone().unwrap();
    assert_eq!(structured, observation(&out), "one entry, shown twice");
    assert_eq!(
        pad.list(&Default::default(), None, 10)
            .unwrap()
            .entries
            .len(),
        1
    );
}

#[test]
fn bulky_structured_content_is_stored_as_json_and_a_short_text_stays() {
    let (pad, _dir) = pad();
    let rows: Vec<Value> = (0..2_000)
        .map(|i| json!({"id": i, "name": format!("row {i}")}))
        .collect();
    let mut result = CallToolResult::success(vec![ContentBlock::text("2000 rows")]);
    result.structured_content = Some(json!({"rows": rows}));
    let out = rewrite::offload_result(&pad, &call_info("query", None), result).unwrap();
    assert_eq!(text(&out).lines().next(), Some("2000 rows"));
    let structured = out.structured_content.unwrap();
    assert_eq!(structured["kind"], "json");
    let name = structured["scratchpad"].as_str().unwrap();
    let reply = pad
        .read(
            name,
            &scratchpad_core::ReadMode::Json {
                query: ".rows[1999].id".into(),
            },
            None,
        )
        .unwrap();
    assert!(reply.text.contains("1999"), "{}", reply.text);
}

#[test]
fn images_audio_and_blob_resources_are_stored_as_binary() {
    let (pad, _dir) = pad();
    let png: Vec<u8> = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]
        .into_iter()
        .chain((0..6_000u32).map(|i| (i % 251) as u8))
        .collect();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&png);
    let result = CallToolResult::success(vec![
        ContentBlock::text("a chart"),
        ContentBlock::image(b64.clone(), "image/png"),
        ContentBlock::audio(b64.clone(), "audio/wav"),
        ContentBlock::resource(ResourceContents::BlobResourceContents {
            uri: "file:///chart.bin".into(),
            mime_type: Some("application/octet-stream".into()),
            blob: b64,
            meta: None,
        }),
        ContentBlock::resource(ResourceContents::text(
            log_with_error(200, 3),
            "file:///app.log",
        )),
    ]);
    let out = rewrite::offload_result(&pad, &call_info("chart", None), result).unwrap();
    assert_eq!(links(&out).len(), 4, "{}", text(&out));
    assert!(
        text(&out).starts_with("a chart"),
        "a short text stays inline"
    );
    let entries = pad.list(&Default::default(), None, 10).unwrap().entries;
    let binaries: Vec<_> = entries
        .iter()
        .filter(|e| e.kind == scratchpad_core::Kind::Binary)
        .collect();
    assert_eq!(binaries.len(), 3);
    for entry in binaries {
        assert_eq!(entry.bytes, png.len() as u64, "stored as the decoded bytes");
    }
    assert!(
        text(&out).contains("\"uri\":\"file:///app.log\""),
        "metadata kept"
    );
}

#[test]
fn the_scratchpad_argument_stores_a_small_output_under_its_name() {
    let (pad, _dir) = pad();
    let result = CallToolResult::success(vec![ContentBlock::text("42 rows")]);
    let out =
        rewrite::offload_result(&pad, &call_info("count", Some("row-count")), result).unwrap();
    assert!(
        text(&out).starts_with("42 rows"),
        "the output is still shown"
    );
    assert!(text(&out).contains("`row-count`"));
    assert_eq!(links(&out), ["scratchpad://default/row-count"]);
    assert_eq!(pad.get("row-count").unwrap().bytes, 7);
    // Large with a name: stored under it.
    let result = CallToolResult::success(vec![ContentBlock::text(log_with_error(2_000, 5))]);
    let out = rewrite::offload_result(&pad, &call_info("count", Some("big")), result).unwrap();
    assert_eq!(observation(&out)["scratchpad"], "big");
    assert!(!text(&out).contains("already existed"), "{}", text(&out));
    // The same name again: replaced, and the result says so.
    let result = CallToolResult::success(vec![ContentBlock::text(log_with_error(1_000, 5))]);
    let out = rewrite::offload_result(&pad, &call_info("count", Some("big")), result).unwrap();
    assert!(
        text(&out).contains("`big` already existed; it now holds this output (version 2)"),
        "{}",
        text(&out)
    );
}

#[test]
fn the_scratchpad_name_goes_to_the_bulk_of_a_mixed_result() {
    let (pad, _dir) = pad();
    let png: Vec<u8> = (0..6_000u32).map(|i| (i % 251) as u8).collect();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&png);
    let result = CallToolResult::success(vec![
        ContentBlock::text("Here's the image you requested:"),
        ContentBlock::image(b64, "image/png"),
        ContentBlock::text("The image above is the MCP logo."),
    ]);
    let out = rewrite::offload_result(&pad, &call_info("get-image", Some("logo")), result).unwrap();
    let logo = pad.get("logo").unwrap();
    assert_eq!(
        logo.kind,
        scratchpad_core::Kind::Binary,
        "the image, not the caption"
    );
    assert_eq!(logo.bytes, png.len() as u64);
    // Both captions stay inline, in order, around the image's reference.
    let texts: Vec<&str> = out
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
        .collect();
    assert_eq!(texts.first(), Some(&"Here's the image you requested:"));
    assert_eq!(texts.last(), Some(&"The image above is the MCP logo."));
    assert_eq!(observation(&out)["scratchpad"], "logo");
    assert_eq!(links(&out), ["scratchpad://default/logo"]);
}

#[test]
fn many_small_parts_over_the_threshold_still_honour_the_scratchpad_name() {
    let (pad, _dir) = pad();
    let small = base64::engine::general_purpose::STANDARD.encode([7u8; 300]);
    let blocks: Vec<ContentBlock> = (0..20)
        .map(|_| ContentBlock::image(small.clone(), "image/png"))
        .collect();
    let out = rewrite::offload_result(
        &pad,
        &call_info("icons", Some("icons")),
        CallToolResult::success(blocks),
    )
    .unwrap();
    assert_eq!(
        pad.get("icons").unwrap().bytes,
        300,
        "the first part is kept under the name"
    );
    assert!(text(&out).contains("`icons`"), "{}", text(&out));
}

#[test]
fn the_threshold_decides() {
    let (pad, _dir) = pad();
    let result = CallToolResult::success(vec![ContentBlock::text("x".repeat(1_000))]);
    let kept = rewrite::offload_result(&pad, &call_info("t", None), result.clone()).unwrap();
    assert_eq!(kept, result);
    let cut =
        rewrite::offload_result(&pad.with_threshold(100), &call_info("t", None), result).unwrap();
    assert_eq!(links(&cut).len(), 1);
}

// ---- the whole proxy, in process, against an HTTP upstream ----

/// An upstream with a tool that returns `lines` log lines, one with an output schema, and a tool
/// whose name clashes with the scratchpad's. Counts calls.
#[derive(Clone, Default)]
pub(super) struct Upstream {
    pub(super) calls: Arc<AtomicUsize>,
    /// Calls of `sleep` that saw their cancellation arrive.
    cancelled: Arc<AtomicUsize>,
}

impl ServerHandler for Upstream {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions("upstream instructions")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let input = object(
            json!({"type": "object", "properties": {"lines": {"type": "integer"}, "text": {"type": "string"}}}),
        );
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("log", "Returns a log", input.clone()),
            Tool::new("echo", "Echoes text", input.clone()),
            Tool::new(
                "read_log",
                "Returns a log with structured content",
                input.clone(),
            )
            .with_raw_output_schema(Arc::new(object(json!({
                "type": "object",
                "properties": {"content": {"type": "string"}},
                "required": ["content"]
            })))),
            Tool::new("scratchpad_read", "Their own read", input.clone()),
            Tool::new("lookup", "Looks a word up (read-only)", input).with_annotations(
                rmcp::model::ToolAnnotations::new()
                    .read_only(true)
                    .idempotent(true),
            ),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if request.name == "progress" {
            // A burst of updates, then the result at once.
            let token = context.meta.get_progress_token().expect("a progress token");
            for step in 1..=PROGRESS_STEPS {
                let update =
                    rmcp::model::ProgressNotificationParam::new(token.clone(), step as f64);
                context.peer.notify_progress(update).await.unwrap();
            }
            return Ok(CallToolResult::success(vec![ContentBlock::text("done")]).into());
        }
        if request.name == "sleep" {
            context.ct.cancelled().await;
            self.cancelled.fetch_add(1, Ordering::SeqCst);
            return Ok(CallToolResult::success(vec![ContentBlock::text("woke")]).into());
        }
        let args = request.arguments.unwrap_or_default();
        assert!(!args.contains_key("scratchpad"), "the proxy strips it");
        let lines = args.get("lines").and_then(Value::as_u64).unwrap_or(10) as usize;
        let log = log_with_error(lines, lines / 2 + 1);
        Ok(match request.name.as_ref() {
            "log" => CallToolResult::success(vec![ContentBlock::text(log)]),
            "echo" => CallToolResult::success(vec![ContentBlock::text(
                args.get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            )]),
            "read_log" => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(log.clone())]);
                result.structured_content = Some(json!({"content": log}));
                result
            }
            "scratchpad_read" => CallToolResult::success(vec![ContentBlock::text("theirs")]),
            // Says which call of the upstream answered, so an answer from the store shows.
            "lookup" => match args.get("text").and_then(Value::as_str) {
                Some("fail") => CallToolResult::error(vec![ContentBlock::text("lookup failed")]),
                Some(word) if args.contains_key("lines") => {
                    CallToolResult::success(vec![ContentBlock::text(format!(
                        "{word} at upstream call {call}\n{log}"
                    ))])
                }
                word => CallToolResult::success(vec![ContentBlock::text(format!(
                    "{} at upstream call {call}",
                    word.unwrap_or_default()
                ))]),
            },
            other => CallToolResult::error(vec![ContentBlock::text(format!("no tool {other}"))]),
        }
        .into())
    }
}

const PROGRESS_STEPS: usize = 200;

/// Counts `tools/list_changed` notifications.
#[derive(Clone, Default)]
struct Client {
    list_changed: Arc<AtomicUsize>,
}

impl ClientHandler for Client {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }
}

struct Rig {
    client: RunningService<RoleClient, Client>,
    calls: Arc<AtomicUsize>,
    cancelled: Arc<AtomicUsize>,
    list_changed: Arc<AtomicUsize>,
    pad: Scratchpad,
    _dir: tempfile::TempDir,
    _stop: tokio_util::sync::CancellationToken,
}

async fn rig(lazy_tools: bool) -> Rig {
    rig_with(lazy_tools, scratchpad_mcp::proxy::DEFAULT_CALL_TIMEOUT).await
}

/// The in-process upstream on a loopback port; serves until the token is cancelled.
pub(super) async fn serve_upstream(
    upstream: Upstream,
) -> (String, tokio_util::sync::CancellationToken) {
    let stop = tokio_util::sync::CancellationToken::new();
    let service = StreamableHttpService::new(
        move || Ok(upstream.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token()),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = stop.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await;
    });
    (format!("http://{addr}/mcp"), stop)
}

/// The proxy in front of `options`' upstream, serving on the returned end of a duplex pipe.
pub(super) fn serve_proxy(pad: &Scratchpad, options: ProxyOptions) -> tokio::io::DuplexStream {
    let proxy = ProxyServer::new(pad.clone(), options);
    let (proxy_end, client_end) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = proxy.clone().serve(proxy_end).await {
            let _ = running.waiting().await;
        }
        proxy.shutdown().await;
    });
    client_end
}

async fn rig_with(lazy_tools: bool, call_timeout: std::time::Duration) -> Rig {
    let upstream = Upstream::default();
    let calls = upstream.calls.clone();
    let cancelled = upstream.cancelled.clone();
    let (url, stop) = serve_upstream(upstream).await;
    let (pad, dir) = pad();
    let mut options = ProxyOptions::new(UpstreamSpec::url(url));
    options.lazy_tools = lazy_tools;
    options.call_timeout = call_timeout;
    let client_end = serve_proxy(&pad, options);
    let handler = Client::default();
    let list_changed = handler.list_changed.clone();
    let client = handler.serve(client_end).await.unwrap();
    Rig {
        client,
        calls,
        cancelled,
        list_changed,
        pad,
        _dir: dir,
        _stop: stop,
    }
}

impl Rig {
    async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(object(args)))
            .await
            .unwrap_or_else(|err| panic!("{tool}: {err}"))
    }

    async fn tool_names(&self) -> Vec<String> {
        self.client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect()
    }
}

#[tokio::test]
async fn the_proxy_lists_upstream_tools_rewritten_and_its_own() {
    let rig = rig(false).await;
    let info = rig.client.peer_info().unwrap();
    assert!(
        info.instructions
            .as_deref()
            .unwrap()
            .contains("upstream instructions")
    );
    assert!(
        info.instructions
            .as_deref()
            .unwrap()
            .contains("scratchpad_read")
    );
    let tools = rig.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        &names[..4],
        ["log", "echo", "read_log", "upstream_scratchpad_read"]
    );
    assert!(names.contains(&"scratchpad_read") && names.contains(&"scratchpad_write"));
    // The renamed tool reaches the upstream's tool of the original name.
    let theirs = rig.call("upstream_scratchpad_read", json!({})).await;
    assert_eq!(text(&theirs), "theirs");
    let read_log = tools.iter().find(|t| t.name == "read_log").unwrap();
    assert!(
        read_log
            .output_schema
            .as_ref()
            .unwrap()
            .contains_key("anyOf")
    );
}

#[tokio::test]
async fn the_proxy_offloads_and_reads_back() {
    let rig = rig(false).await;
    let small = rig.call("log", json!({"lines": 3})).await;
    assert!(
        text(&small).contains("request 1 served"),
        "small passes through"
    );
    let big = rig.call("read_log", json!({"lines": 10_000})).await;
    let obs = observation(&big);
    assert_eq!(big.structured_content.as_ref(), Some(&obs));
    let name = obs["scratchpad"].as_str().unwrap().to_owned();
    assert_eq!(name, "read_log_1");
    let grep = rig
        .call(
            "scratchpad_read",
            json!({"name": name, "mode": "grep", "pattern": "ERROR"}),
        )
        .await;
    assert!(
        text(&grep).contains("5001:2026-11-22T10:00:00Z ERROR payment 5001 declined"),
        "{}",
        text(&grep)
    );
    let source = rig.pad.get(&name).unwrap().source;
    assert_eq!(source.tool.as_deref(), Some("read_log"));
    assert!(source.server.unwrap().starts_with("http://127.0.0.1:"));
}

#[tokio::test]
async fn placeholders_are_resolved_and_an_unknown_name_never_reaches_the_upstream() {
    let rig = rig(false).await;
    rig.pad
        .write(
            "greeting",
            "line one\nline two\nline three\n",
            Default::default(),
        )
        .unwrap();
    let echoed = rig
        .call(
            "echo",
            json!({"text": "{{scratchpad:greeting#lines=2-2}}!"}),
        )
        .await;
    assert_eq!(text(&echoed), "line two!");
    let before = rig.calls.load(Ordering::SeqCst);
    let missing = rig
        .call("echo", json!({"text": "{{scratchpad:nope}}"}))
        .await;
    assert_eq!(missing.is_error, Some(true));
    assert!(text(&missing).contains("not called"), "{}", text(&missing));
    // The engine's advice reaches an MCP client as a tool call, never as another face's syntax.
    assert!(
        text(&missing).contains("`scratchpad_list()`"),
        "{}",
        text(&missing)
    );
    assert_eq!(
        scratchpad_core::error::foreign_spelling("mcp", &text(&missing), &[]),
        None
    );
    assert_eq!(
        rig.calls.load(Ordering::SeqCst),
        before,
        "the upstream was not called"
    );
    let bad_name = rig
        .call(
            "echo",
            json!({"text": "hello", "scratchpad": "no spaces please"}),
        )
        .await;
    assert_eq!(bad_name.is_error, Some(true));
    assert!(
        text(&bad_name).contains("not called"),
        "{}",
        text(&bad_name)
    );
    assert_eq!(
        rig.calls.load(Ordering::SeqCst),
        before,
        "a bad `scratchpad` name never reaches the upstream"
    );
    // `scratchpad` saves the output under a name and is not forwarded (the upstream asserts it).
    let kept = rig
        .call("echo", json!({"text": "hello", "scratchpad": "kept"}))
        .await;
    assert!(text(&kept).starts_with("hello"));
    assert_eq!(rig.pad.get("kept").unwrap().bytes, 5);
}

#[tokio::test]
async fn lazy_tools_appear_after_the_first_offload_with_a_list_changed() {
    let rig = rig(true).await;
    let names = rig.tool_names().await;
    assert!(!names.iter().any(|n| n == "scratchpad_read"), "{names:?}");
    rig.call("log", json!({"lines": 3})).await;
    assert_eq!(rig.list_changed.load(Ordering::SeqCst), 0);
    rig.call("log", json!({"lines": 5_000})).await;
    for _ in 0..50 {
        if rig.list_changed.load(Ordering::SeqCst) > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(rig.list_changed.load(Ordering::SeqCst), 1);
    let names = rig.tool_names().await;
    assert!(names.iter().any(|n| n == "scratchpad_read"), "{names:?}");
}

pub(super) async fn wait_for(counter: &AtomicUsize, at_least: usize) -> usize {
    for _ in 0..200 {
        if counter.load(Ordering::SeqCst) >= at_least {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    counter.load(Ordering::SeqCst)
}

#[tokio::test]
async fn a_client_cancellation_reaches_the_upstream() {
    let rig = rig(false).await;
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
        CallToolRequestParams::new("sleep"),
    ));
    let handle = rig
        .client
        .send_cancellable_request(request, rmcp::service::PeerRequestOptions::no_options())
        .await
        .unwrap();
    assert_eq!(
        wait_for(&rig.calls, 1).await,
        1,
        "the call reached the upstream"
    );
    handle
        .cancel(Some("user pressed stop".into()))
        .await
        .unwrap();
    assert_eq!(
        wait_for(&rig.cancelled, 1).await,
        1,
        "the upstream saw the cancellation"
    );
}

#[tokio::test]
async fn an_upstream_that_hangs_past_the_timeout_is_an_error_and_is_cancelled() {
    let rig = rig_with(false, std::time::Duration::from_millis(500)).await;
    let result = rig.call("sleep", json!({})).await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("did not answer"),
        "{}",
        text(&result)
    );
    assert_eq!(
        wait_for(&rig.cancelled, 1).await,
        1,
        "the upstream was told to stop"
    );
    // The proxy still serves.
    let small = rig.call("log", json!({"lines": 2})).await;
    assert_eq!(small.is_error, Some(false));
}

/// Every progress update of a call reaches the client before the call's result, on the wire: a
/// 2026-07-28 client drops updates that come later. Read raw, since rmcp's own client handles
/// notifications on tasks of their own and could not tell the order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_progress_update_reaches_the_client_before_the_result() {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};

    let (url, _stop) = serve_upstream(Upstream::default()).await;
    let (pad, _dir) = pad();
    let (read, mut write) =
        tokio::io::split(serve_proxy(&pad, ProxyOptions::new(UpstreamSpec::url(url))));
    let mut lines = tokio::io::BufReader::new(read).lines();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "progress", "arguments": {}, "_meta": {"progressToken": "mine"}}}),
    ];
    for message in messages {
        write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut steps = Vec::new();
    let result = loop {
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
            .await
            .expect("the proxy answers")
            .unwrap()
            .expect("the proxy keeps the pipe open");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["method"] == "notifications/progress" {
            assert_eq!(message["params"]["progressToken"], "mine", "{message}");
            steps.push(message["params"]["progress"].as_f64().unwrap() as usize);
        } else if message["id"] == 2 {
            break message;
        }
    };
    assert_eq!(result["result"]["content"][0]["text"], "done", "{result}");
    assert_eq!(steps, (1..=PROGRESS_STEPS).collect::<Vec<_>>());
}

/// The proxy lists the scratchpad's entries as resources too, page after page, after the
/// upstream's (this upstream has none); a made-up cursor is refused.
#[tokio::test]
async fn resources_list_pages_through_the_scratchpad_entries() {
    let rig = rig(false).await;
    for i in 0..130 {
        rig.pad
            .write(&format!("note-{i:03}"), "x", Default::default())
            .unwrap();
    }
    let first = rig.client.list_resources(None).await.unwrap();
    assert_eq!(first.resources.len(), 100);
    let cursor = first.next_cursor.clone().expect("a second page");
    let second = rig
        .client
        .list_resources(Some(
            PaginatedRequestParams::default().with_cursor(Some(cursor)),
        ))
        .await
        .unwrap();
    assert_eq!(second.resources.len(), 30);
    assert_eq!(second.next_cursor, None);
    let mut uris: Vec<String> = first
        .resources
        .iter()
        .chain(&second.resources)
        .map(|r| r.uri.clone())
        .collect();
    uris.sort();
    uris.dedup();
    assert_eq!(uris.len(), 130);
    assert!(
        uris.iter().all(|u| u.starts_with("scratchpad://")),
        "{uris:?}"
    );
    let made_up = rig
        .client
        .list_resources(Some(
            PaginatedRequestParams::default().with_cursor(Some("page-2".into())),
        ))
        .await
        .unwrap_err();
    assert!(made_up.to_string().contains("cursor"), "{made_up}");
}

/// The `scratchpad_read(…)` calls in code spans of `hint`, as argument objects: each value is
/// the JSON the hint prints after `key=`.
fn hinted_reads(hint: &str) -> Vec<JsonObject> {
    let mut calls = Vec::new();
    for span in hint.split('`').skip(1).step_by(2) {
        let Some(rest) = span
            .strip_prefix("scratchpad_read(")
            .and_then(|r| r.strip_suffix(')'))
        else {
            continue;
        };
        let mut args = JsonObject::new();
        let mut rest = rest;
        while !rest.is_empty() {
            let (key, after) = rest.split_once('=').unwrap();
            let mut values = serde_json::Deserializer::from_str(after).into_iter::<Value>();
            let value = values.next().unwrap().unwrap();
            let used = values.byte_offset();
            args.insert(key.to_owned(), value);
            rest = after[used..].trim_start_matches(", ");
        }
        calls.push(args);
    }
    calls
}

/// The hint of an offloaded result, decoded once as a client decodes the tool result's JSON,
/// names calls whose arguments (a regex with backslashes among them) read what the hint says.
#[test]
fn a_hint_decoded_by_the_client_runs_as_printed() {
    let (pad, _dir) = pad();
    let path = format!(
        "{}/../scratchpad-core/tests/real/eslint_stylish.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let report = std::fs::read_to_string(path).unwrap();
    let result = CallToolResult::success(vec![ContentBlock::text(report)]);
    let out = rewrite::offload_result(&pad, &call_info("eslint", None), result).unwrap();
    let hint = observation(&out)["hint"].as_str().unwrap().to_owned();
    assert!(
        hint.contains("finds error at lines 1,777 and 2,963"),
        "{hint}"
    );
    let calls = hinted_reads(&hint);
    assert!(calls.len() >= 3, "{hint}");
    for arguments in calls {
        let (name, mode) = scratchpad_mcp::tools::parse_read_call(arguments).unwrap();
        let reply = pad.read(&name, &mode, None).unwrap();
        if matches!(mode, scratchpad_core::ReadMode::Grep { .. }) {
            for line in ["1777:", "2963:"] {
                assert!(reply.text.contains(line), "{line} not in:\n{}", reply.text);
            }
        }
    }
}
