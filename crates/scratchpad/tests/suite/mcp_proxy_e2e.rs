//! `scratchpad mcp proxy` end to end: the official Python SDK client and the TypeScript SDK client (which
//! validates structured content against output schemas) → the proxy → the real npm reference servers
//! (`@modelcontextprotocol/server-filesystem`, `@modelcontextprotocol/server-everything`), over stdio
//! and streamable HTTP.
//!
//! The clients come from `common::clients` (set up once per process; they fail, never skip).

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::common::Pad;
use crate::common::clients::{bin, node_prefix, path_str, python_flow};

const FLOW: &str = "mcp_proxy_flow.py";

/// A directory with a small file and an 800 KB build log whose one error line sits in the middle.
fn fixture_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "hello from a small file\n").unwrap();
    let mut log = String::new();
    for i in 1..12_000 {
        if i == 7_321 {
            log.push_str(&format!(
                "line {i} ERROR linker failed for crate-{i}: undefined symbol `frob`\n"
            ));
        } else {
            log.push_str(&format!(
                "line {i} compiling crate-{i} (rustc -C opt-level=3, 24 units, 1 warn)\n"
            ));
        }
    }
    log.push_str("line 12000 finished build\n");
    assert!((800_000..900_000).contains(&log.len()), "{}", log.len());
    std::fs::write(dir.path().join("build.log"), log).unwrap();
    dir
}

#[test]
fn python_client_through_the_proxy_to_server_filesystem_offloads_and_passes_by_reference() {
    for mode in ["legacy", "auto"] {
        let pad = Pad::new();
        let dir = fixture_dir();
        let root = dir.path().canonicalize().unwrap();
        let flow = python_flow(
            FLOW,
            &[
                "filesystem",
                mode,
                bin(),
                &pad.store,
                path_str(node_prefix()),
                path_str(&root),
            ],
        );
        assert!(
            flow.contains("offloaded as read_text_file_"),
            "{mode}: {flow}"
        );
        // The entry is in the store the proxy was given, under the proxy's session.
        let ls = pad.ok(&["--session", "proxy", "ls"]);
        assert!(ls.contains("greeting"), "{ls}");
    }
}

#[test]
fn python_client_through_the_proxy_to_server_everything_over_stdio() {
    for mode in ["legacy", "auto"] {
        let pad = Pad::new();
        let flow = python_flow(
            FLOW,
            &[
                "everything",
                mode,
                bin(),
                &pad.store,
                path_str(node_prefix()),
            ],
        );
        assert!(flow.contains("offloaded as echo_"), "{mode}: {flow}");
    }
}

#[test]
fn python_client_through_the_proxy_to_server_everything_over_http() {
    let upstream = HttpUpstream::start();
    for mode in ["legacy", "auto"] {
        let pad = Pad::new();
        let flow = python_flow(
            FLOW,
            &["everything-http", mode, bin(), &pad.store, &upstream.url],
        );
        assert!(flow.contains("offloaded as echo_"), "{mode}: {flow}");
    }
}

#[test]
fn an_upstream_crash_is_a_clear_error_and_the_next_call_reconnects() {
    let pad = Pad::new();
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("upstream.pid");
    let flow = python_flow(
        FLOW,
        &[
            "crash",
            "legacy",
            bin(),
            &pad.store,
            path_str(node_prefix()),
            path_str(&pidfile),
        ],
    );
    assert!(
        flow.contains("upstream crash reported") && flow.contains("reconnected"),
        "{flow}"
    );
}

#[test]
fn a_malformed_or_silent_upstream_gives_clear_errors_not_a_hang() {
    let pad = Pad::new();
    let flow = python_flow(FLOW, &["malformed", "legacy", bin(), &pad.store]);
    assert!(
        flow.contains("something other than a tool result"),
        "the garbled answer is named: {flow}"
    );
    assert!(
        flow.contains("echo afterwards: echo ok"),
        "the proxy and upstream still serve: {flow}"
    );
    assert!(
        flow.contains("did not answer"),
        "the silent call names the timeout: {flow}"
    );
}

#[test]
fn typescript_sdk_client_accepts_every_result_against_the_output_schemas() {
    let pad = Pad::new();
    let dir = fixture_dir();
    let root = dir.path().canonicalize().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node/strict_client.mjs");
    let output = Command::new(node_prefix().join("node_modules/node/bin/node"))
        .arg(script)
        .args([
            bin(),
            pad.store.as_str(),
            path_str(node_prefix()),
            path_str(&root),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.starts_with("ok "),
        "strict_client.mjs failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn proxy_without_an_upstream_says_how_to_give_one() {
    let pad = Pad::new();
    let run = pad.run(&["mcp", "proxy"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("--upstream-url"), "{}", run.stderr);
    let help = pad.ok(&["mcp", "proxy", "--help"]);
    assert!(
        help.contains("--threshold") && help.contains("--lazy-tools"),
        "{help}"
    );
}

/// server-everything serving streamable HTTP on a free port.
struct HttpUpstream {
    child: Child,
    url: String,
}

impl HttpUpstream {
    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(node_prefix().join("node_modules/node/bin/node"))
            .arg(
                node_prefix()
                    .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
            )
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        loop {
            line.clear();
            let read = stderr.read_line(&mut line).unwrap();
            assert!(read > 0, "server-everything exited before listening");
            if line.contains("listening on port") {
                break;
            }
        }
        // Keep draining its stderr so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in stderr.lines() {});
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpUpstream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
