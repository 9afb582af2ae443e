//! What the MCP proxy and the gateway cost per tool call, measured against calling the same
//! upstream directly in the same run (these machines are noisy: read the ratios).
//!
//! The upstream is an rmcp server in this process, served over streamable HTTP on loopback; its tool
//! `payload` returns `bytes` bytes of log lines. Direct: an rmcp client over HTTP. Proxied: an rmcp
//! client over an in-memory pipe to the proxy, which calls the upstream over HTTP, then offloads
//! (a 1 MB result is stored in SQLite and answered with a reference). Gateway: one gateway in front
//! of three such upstreams, a small call to each through it (`upN__payload`) against the same call
//! made directly to that upstream.
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
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{
    StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{RoleClient, RoleServer, ServerHandler, ServiceExt as _};
use scratchpad_mcp::{
    GatewayOptions, GatewayServer, GatewayUpstream, ProxyOptions, ProxyServer, UpstreamSpec,
};
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

type Client = RunningService<RoleClient, ()>;

fn call(bytes: u64) -> CallToolRequestParams {
    call_named("payload", bytes)
}

fn call_named(tool: &str, bytes: u64) -> CallToolRequestParams {
    let mut args = serde_json::Map::new();
    args.insert("bytes".into(), bytes.into());
    CallToolRequestParams::new(tool.to_owned()).with_arguments(args)
}

/// A new upstream on a loopback port; its URL.
async fn serve_upstream() -> Result<String, Error> {
    let service = StreamableHttpService::new(
        || Ok(Upstream),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(url)
}

/// A client over an in-memory pipe to `server`.
async fn serve_in_memory<S: ServerHandler>(server: S) -> Result<Client, Error> {
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    Ok(().serve(client_end).await?)
}

/// Median times of `reps` calls each way, alternating, after one warm-up call each (connections,
/// tool-list caches, SQLite pages).
async fn compare(
    direct: (&Client, &CallToolRequestParams),
    through: (&Client, &CallToolRequestParams),
    reps: usize,
    check: impl Fn(&CallToolResult) -> Result<(), Error>,
) -> Result<(Duration, Duration), Error> {
    direct.0.call_tool(direct.1.clone()).await?;
    check(&through.0.call_tool(through.1.clone()).await?)?;
    let (mut d, mut p) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        let start = Instant::now();
        direct.0.call_tool(direct.1.clone()).await?;
        d.push(start.elapsed());
        let start = Instant::now();
        let result = through.0.call_tool(through.1.clone()).await?;
        p.push(start.elapsed());
        check(&result)?;
    }
    Ok((median(d), median(p)))
}

fn row(label: &str, reps: usize, (d, p): (Duration, Duration)) {
    println!(
        "| {label} ×{reps} | {:.2} ms | {:.2} ms | {:.2}× | +{:.2} ms |",
        d.as_secs_f64() * 1e3,
        p.as_secs_f64() * 1e3,
        p.as_secs_f64() / d.as_secs_f64(),
        (p.as_secs_f64() - d.as_secs_f64()) * 1e3
    );
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
    let url = serve_upstream().await?;
    scratchpad_mcp::proxy::upstream::use_ring_for_tls();
    let direct = ().serve(StreamableHttpClientTransport::from_uri(url.as_str())).await?;

    let dir = tempfile::tempdir()?;
    let pad =
        scratchpad_core::Scratchpad::open(&format!("sqlite://{}/pad.db", dir.path().display()))?;
    let proxied = serve_in_memory(ProxyServer::new(
        pad.clone(),
        ProxyOptions::new(UpstreamSpec::url(url.clone())),
    ))
    .await?;

    println!("| result | direct median | proxied median | ratio | proxied overhead |");
    println!("|---|---|---|---|---|");
    for (label, bytes, reps) in [
        ("100 B (passes through)", 100u64, reps),
        ("1 MB (offloaded)", 1_000_000, (reps / 5).max(3)),
    ] {
        let request = call(bytes);
        let times = compare((&direct, &request), (&proxied, &request), reps, |result| {
            let offloaded = result
                .content
                .iter()
                .any(|b| matches!(b, ContentBlock::ResourceLink(_)));
            if bytes > 4_096 && !offloaded {
                return Err("the 1 MB result was not offloaded".into());
            }
            Ok(())
        })
        .await?;
        row(label, reps, times);
    }

    // The gateway in front of three upstreams: a small call to each, direct and through it.
    const UPSTREAMS: usize = 3;
    let mut upstreams = Vec::new();
    let mut directs = Vec::new();
    for n in 1..=UPSTREAMS {
        let url = serve_upstream().await?;
        directs.push(
            ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                .await?,
        );
        upstreams.push(GatewayUpstream {
            name: format!("up{n}"),
            spec: UpstreamSpec::url(url),
        });
    }
    let gateway = serve_in_memory(GatewayServer::new(pad, GatewayOptions::new(upstreams))).await?;
    println!();
    println!(
        "| gateway ({UPSTREAMS} upstreams): 100 B call to | direct median | through the gateway | ratio | gateway overhead |"
    );
    println!("|---|---|---|---|---|");
    let direct_call = call(100);
    for (n, direct) in directs.iter().enumerate() {
        let through = call_named(&format!("up{}__payload", n + 1), 100);
        let times = compare(
            (direct, &direct_call),
            (&gateway, &through),
            reps,
            |result| {
                if result.is_error == Some(true) {
                    return Err(format!("the gateway failed: {:?}", result.content).into());
                }
                Ok(())
            },
        )
        .await?;
        row(&format!("up{}", n + 1), reps, times);
    }
    Ok(())
}
