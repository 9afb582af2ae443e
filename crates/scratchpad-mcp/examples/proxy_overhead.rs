//! What the MCP proxy costs per tool call, measured against calling the same upstream directly in
//! the same run (these machines are noisy: read the ratios).
//!
//! The upstream is an rmcp server in this process, served over streamable HTTP on loopback; its tool
//! `payload` returns `bytes` bytes of log lines. Direct: an rmcp client over HTTP. Proxied: an rmcp
//! client over an in-memory pipe to the proxy, which calls the upstream over HTTP, then offloads
//! (a 1 MB result is stored in SQLite and answered with a reference).
//!
//! ```sh
//! cargo run --release -p scratchpad-mcp --example proxy_overhead -- [REPS]
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{
    StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{RoleServer, ServerHandler, ServiceExt as _};
use scratchpad_mcp::{ProxyOptions, ProxyServer, UpstreamSpec};
use serde_json::json;

type Error = Box<dyn std::error::Error + Send + Sync>;

#[derive(Clone)]
struct Upstream;

impl ServerHandler for Upstream {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {"bytes": {"type": "integer"}}});
        let serde_json::Value::Object(schema) = schema else {
            return Err(ErrorData::internal_error("schema", None));
        };
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "payload",
            "Returns BYTES bytes of log lines",
            schema,
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let bytes = request
            .arguments
            .and_then(|args| args.get("bytes").and_then(serde_json::Value::as_u64))
            .unwrap_or(100) as usize;
        let line = "2026-11-22T10:00:00Z INFO worker-3 job done in 12 ms\n";
        let mut text = line.repeat(bytes / line.len() + 1);
        text.truncate(bytes);
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

fn call(bytes: u64) -> CallToolRequestParams {
    let mut args = serde_json::Map::new();
    args.insert("bytes".into(), bytes.into());
    CallToolRequestParams::new("payload").with_arguments(args)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(50);
    let service = StreamableHttpService::new(
        || Ok(Upstream),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, router).await });

    scratchpad_mcp::proxy::upstream::use_ring_for_tls();
    let direct = ().serve(StreamableHttpClientTransport::from_uri(url.as_str())).await?;

    let dir = tempfile::tempdir()?;
    let pad =
        scratchpad_core::Scratchpad::open(&format!("sqlite://{}/pad.db", dir.path().display()))?;
    let proxy = ProxyServer::new(pad, ProxyOptions::new(UpstreamSpec::url(url.clone())));
    let (proxy_end, client_end) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = proxy.serve(proxy_end).await {
            let _ = running.waiting().await;
        }
    });
    let proxied = ().serve(client_end).await?;

    println!("| result | direct median | proxied median | ratio | proxied overhead |");
    println!("|---|---|---|---|---|");
    for (label, bytes, reps) in [
        ("100 B (passes through)", 100u64, reps),
        ("1 MB (offloaded)", 1_000_000, (reps / 5).max(3)),
    ] {
        // Warm both paths (connections, tool-list cache, SQLite pages).
        direct.call_tool(call(bytes)).await?;
        proxied.call_tool(call(bytes)).await?;
        let (mut d, mut p) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            let start = Instant::now();
            direct.call_tool(call(bytes)).await?;
            d.push(start.elapsed());
            let start = Instant::now();
            let result = proxied.call_tool(call(bytes)).await?;
            p.push(start.elapsed());
            if bytes > 4_096
                && !result
                    .content
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ResourceLink(_)))
            {
                return Err("the 1 MB result was not offloaded".into());
            }
        }
        let (d, p) = (median(d), median(p));
        println!(
            "| {label} ×{reps} | {:.2} ms | {:.2} ms | {:.2}× | +{:.2} ms |",
            d.as_secs_f64() * 1e3,
            p.as_secs_f64() * 1e3,
            p.as_secs_f64() / d.as_secs_f64(),
            (p.as_secs_f64() - d.as_secs_f64()) * 1e3
        );
    }
    Ok(())
}
