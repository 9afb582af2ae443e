//! The MCP faces of the scratchpad: a server that gives any MCP client the scratchpad tools, resources
//! and guidance, over stdio or streamable HTTP; and a [`proxy`] that puts the scratchpad in front of
//! any existing MCP server (offload of large results, the `scratchpad` argument, placeholders).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let pad = scratchpad_core::Scratchpad::open("sqlite:///tmp/pad.db")?;
//! // Serves MCP on stdin/stdout until the client disconnects.
//! scratchpad_mcp::serve_stdio(pad, scratchpad_mcp::lines::DEFAULT_MAX_MESSAGE_BYTES)?;
//! # Ok(()) }
//! ```
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod error;
pub mod gateway;
pub mod guidance;
pub mod http;
pub mod lines;
pub mod proxy;
pub mod server;
pub mod tools;

pub use error::{Error, Result};
pub use gateway::{GatewayOptions, GatewayServer, GatewayUpstream, serve_gateway_stdio};
pub use http::{HttpOptions, serve_http};
pub use proxy::{HttpUpstream, ProxyOptions, ProxyServer, UpstreamSpec, serve_proxy_stdio};
pub use server::{ClientSession, ScratchpadServer, SessionPolicy};

use rmcp::ServiceExt as _;

/// Serves the scratchpad over stdio until the client closes the connection. stdout carries only the
/// protocol; logs go to stderr. A message longer than `max_message_bytes`, a line that is not JSON
/// and a request of the wrong shape are each answered with an error naming the problem.
pub fn serve_stdio(pad: scratchpad_core::Scratchpad, max_message_bytes: usize) -> Result<()> {
    let server = ScratchpadServer::new(pad.clone());
    run_to_completion(pad, async move {
        let running = server
            .serve(stdio_lines(max_message_bytes))
            .await
            .map_err(|err| Error::Protocol(err.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|err| Error::Protocol(err.to_string()))?;
        Ok(())
    })
}

/// This process's stdin and stdout as a server's bounded JSON-RPC lines.
fn stdio_lines(
    max_message_bytes: usize,
) -> lines::Lines<rmcp::RoleServer, tokio::io::Stdin, tokio::io::Stdout> {
    lines::Lines::new(
        tokio::io::stdin(),
        tokio::io::stdout(),
        lines::LineLimits::server(max_message_bytes),
    )
}

/// Runs engine work (synchronous: SQLite or a blocking PostgreSQL client) on the blocking pool, off
/// the async workers; a panic there is an internal error for this request, not a crash.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, rmcp::model::ErrorData> {
    tokio::task::spawn_blocking(work).await.map_err(|err| {
        rmcp::model::ErrorData::internal_error(
            format!("the request stopped unexpectedly: {err}"),
            None,
        )
    })
}

/// Runs `serve` on a new runtime, then drops the runtime before `pad`. The PostgreSQL client blocks
/// while closing its connections, which panics on a runtime thread; holding `pad` until the runtime
/// is gone makes sure the store's last reference (and so its connections) is released outside it.
fn run_to_completion(
    pad: scratchpad_core::Scratchpad,
    serve: impl std::future::Future<Output = Result<()>>,
) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::Io)?;
    let result = runtime.block_on(serve);
    drop(runtime);
    drop(pad);
    result
}
