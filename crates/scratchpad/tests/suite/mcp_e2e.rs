//! `scratchpad mcp serve` end to end: the official MCP Python SDK client over stdio and HTTP in both
//! protocol eras, and the `@modelcontextprotocol/conformance` server scenarios over HTTP.
//!
//! The clients come from `common::clients` (set up once per process; they fail, never skip).

use std::process::Command;

use crate::common::clients::{bin, node_prefix, python, python_flow};
use crate::common::{Pad, Server};

const FLOW: &str = "mcp_user_flow.py";

const TOKEN_A: &str = "e2e-token-alice-0123456789";
const TOKEN_B: &str = "e2e-token-bob-9876543210ab";

/// The server scenarios of the conformance suite that apply to this server. The others exercise
/// fixtures only the suite's reference server has (`test_simple_text`, `test://static-text`, …), or
/// features this server does not offer (sampling, elicitation, logging, completion, subscriptions).
const CONFORMANCE_SCENARIOS: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "dns-rebinding-protection",
    "server-sse-polling",
];

#[test]
fn python_client_over_stdio_in_both_eras_keeps_notes_across_runs() {
    let pad = Pad::new();
    for mode in ["legacy", "auto"] {
        let session = format!("stdio-{mode}");
        let flow = python_flow(FLOW, &["stdio", mode, bin(), &pad.store, &session]);
        assert!(flow.contains("log sliced"), "{flow}");
        let reopened = python_flow(FLOW, &["stdio-reopen", mode, bin(), &pad.store, &session]);
        assert!(reopened.contains("survived"), "{reopened}");
    }
    // Both sessions kept their plan, each in its own session.
    for session in ["stdio-legacy", "stdio-auto"] {
        let ls = pad.ok(&["--session", session, "ls"]);
        assert!(ls.contains("plan"), "{session}: {ls}");
    }
}

/// Regression: the PostgreSQL client closes its connections by blocking, which panicked when the
/// server's last store handle was dropped on a runtime thread at exit.
#[cfg(feature = "postgres")]
#[test]
fn python_client_over_stdio_on_postgres_shares_notes_with_the_cli() {
    let pad = crate::suite::postgres::pg_pad();
    let session = format!("mcp-e2e-{}", std::process::id());
    let flow = python_flow(FLOW, &["stdio", "auto", bin(), &pad.store, &session]);
    assert!(flow.contains("log sliced"), "{flow}");
    let plan = pad.ok(&["--session", &session, "read", "plan"]);
    assert!(plan.contains("- [x] find the failing job"), "{plan}");
    let other = pad
        .run(&["--session", &format!("{session}-other"), "read", "plan"])
        .fails();
    assert!(
        other.stderr.contains("no entry named `plan`"),
        "{}",
        other.stderr
    );
}

#[test]
fn python_client_over_http_in_both_eras() {
    let pad = Pad::new();
    let server = Server::start(&pad, &["--http", "127.0.0.1:0"], &[]);
    for mode in ["legacy", "auto"] {
        let flow = python_flow(FLOW, &["http", mode, &server.url, "-"]);
        assert!(flow.contains("log sliced"), "{mode}: {flow}");
    }
}

#[test]
fn python_clients_with_different_tokens_cannot_see_each_other() {
    let pad = Pad::new();
    let tokens = format!("{TOKEN_A},{TOKEN_B}");
    let server = Server::start(
        &pad,
        &["--http", "0.0.0.0:0"],
        &[("SCRATCHPAD_MCP_TOKEN", tokens.as_str())],
    );
    assert!(
        server.banner.contains("each token has its own session"),
        "{}",
        server.banner
    );
    for mode in ["legacy", "auto"] {
        let flow = python_flow(
            FLOW,
            &["http-isolation", mode, &server.url, TOKEN_A, TOKEN_B],
        );
        assert!(flow.contains("two sessions"), "{mode}: {flow}");
    }
    // Without a token the same server answers 401 through the SDK too.
    let denied = python(FLOW, &["http", "legacy", &server.url, "-"]);
    assert!(
        !denied.status.success(),
        "an unauthenticated client must be refused"
    );
}

#[test]
fn a_public_bind_without_a_token_is_refused_at_start() {
    let pad = Pad::new();
    let run = pad.run(&["mcp", "serve", "--http", "0.0.0.0:0"]).fails();
    assert!(run.stderr.contains("--token"), "{}", run.stderr);
}

#[test]
fn conformance_server_scenarios_pass() {
    let pad = Pad::new();
    let server = Server::start(&pad, &["--http", "127.0.0.1:0"], &[]);
    let prefix = node_prefix();
    let runner = prefix.join("node_modules/.bin/conformance");
    let node_bin = prefix.join("node_modules/node/bin");
    let path = format!(
        "{}:{}",
        node_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for scenario in CONFORMANCE_SCENARIOS {
        let output = Command::new(&runner)
            .args(["server", "--url", &server.url, "--scenario", scenario])
            .env("PATH", &path)
            .output()
            .unwrap();
        let report = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let summary = report
            .lines()
            .find(|line| line.starts_with("Passed: "))
            .unwrap_or_else(|| panic!("{scenario}: no summary in\n{report}"));
        assert!(
            output.status.success() && summary.contains(", 0 failed"),
            "{scenario}: {summary}\n{report}"
        );
        assert!(
            !summary.starts_with("Passed: 0/"),
            "{scenario} ran no check: {summary}"
        );
    }
}
