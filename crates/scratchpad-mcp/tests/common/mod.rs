//! A server on a temporary store and an rmcp client connected to it over `tokio::io::duplex`.

use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::{ClientLifecycleMode, ClientServiceExt as _, RoleClient, ServiceExt as _};
use scratchpad_core::Scratchpad;
use scratchpad_mcp::ScratchpadServer;
use serde_json::Value;

/// The two ways current clients start a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// The `initialize` handshake (2025-11-25).
    Handshake,
    /// `server/discover` and per-request versions (2026-07-28).
    Discover,
}

pub const ERAS: [Era; 2] = [Era::Handshake, Era::Discover];

pub struct Harness {
    pub client: RunningService<RoleClient, ()>,
    pub pad: Scratchpad,
    _dir: tempfile::TempDir,
}

impl Harness {
    /// A fresh store, session `default`.
    pub async fn new(era: Era) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let pad = Scratchpad::open(&store_url(&dir)).unwrap();
        Self::connect(pad, dir, era).await
    }

    /// A server on `pad` (any store, any session) and a client connected to it.
    pub async fn connect(pad: Scratchpad, dir: tempfile::TempDir, era: Era) -> Self {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        let server = ScratchpadServer::new(pad.clone());
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        let client = match era {
            Era::Handshake => ().serve(client_end).await.unwrap(),
            Era::Discover => ()
                .serve_with_lifecycle(
                    client_end,
                    ClientLifecycleMode::Discover {
                        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                    },
                )
                .await
                .unwrap(),
        };
        Self {
            client,
            pad,
            _dir: dir,
        }
    }

    /// Calls a tool; a protocol error fails the test (tool failures are results).
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(args) = args else {
            panic!("tool arguments must be an object")
        };
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
            .await
            .unwrap_or_else(|err| panic!("{tool} gave a protocol error: {err}"))
    }

    /// Calls a tool that must succeed and returns its text.
    pub async fn ok(&self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args.clone()).await;
        let text = text(&result);
        assert_ne!(result.is_error, Some(true), "{tool}({args}) failed: {text}");
        text
    }

    /// Calls a tool that must fail with `isError` and returns the message.
    pub async fn fails(&self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args.clone()).await;
        let text = text(&result);
        assert_eq!(
            result.is_error,
            Some(true),
            "{tool}({args}) should fail, said: {text}"
        );
        text
    }
}

pub fn store_url(dir: &tempfile::TempDir) -> String {
    format!("sqlite://{}/pad.db", dir.path().display())
}

/// The text content of a result, joined.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A log of `lines` lines with one ERROR line at `error_at`.
pub fn log_with_error(lines: usize, error_at: usize) -> String {
    (1..=lines)
        .map(|i| {
            if i == error_at {
                format!("2026-11-22T10:00:00Z ERROR payment {i} declined: card expired\n")
            } else {
                format!("2026-11-22T10:00:00Z INFO request {i} served in 12ms\n")
            }
        })
        .collect()
}
