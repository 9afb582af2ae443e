//! In-process tests of the MCP server: a real rmcp client talks to the server over an in-memory duplex
//! pipe, in both protocol eras, against a real SQLite store.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should stop loudly at the first surprise"
)]

mod common;
mod suite;
