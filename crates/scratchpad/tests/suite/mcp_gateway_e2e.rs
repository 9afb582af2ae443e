//! `scratchpad mcp gateway` end to end: the official Python SDK client → one gateway → the real npm
//! reference servers (`server-filesystem`, two `server-everything` whose names clash once
//! sanitised) and one server that cannot start.

use crate::common::Pad;
use crate::common::clients::{bin, node_prefix, path_str, python_flow};

#[test]
fn python_client_reaches_every_server_behind_one_gateway_with_the_scratchpad_tools_once() {
    let pad = Pad::new();
    let dir = super::mcp_proxy_e2e::fixture_dir();
    let root = dir.path().canonicalize().unwrap();
    let work = tempfile::tempdir().unwrap();
    let pidfile = work.path().join("every_thing.pid");
    let node = node_prefix().join("node_modules/node/bin/node");
    let package = |name: &str| {
        node_prefix()
            .join("node_modules/@modelcontextprotocol")
            .join(name)
            .join("dist/index.js")
    };
    let everything = package("server-everything");
    let script = format!(
        "echo $$ > '{}'; exec '{}' '{}' stdio",
        pidfile.display(),
        node.display(),
        everything.display()
    );
    let servers = serde_json::json!({
        "mcpServers": {
            "filesystem": {"command": node, "args": [package("server-filesystem"), root]},
            "every_thing": {"command": "sh", "args": ["-c", script]},
            "every.thing": {"command": node, "args": [everything, "stdio"]},
            "broken": {"command": "sh", "args": ["-c", "exit 3"]},
        }
    });
    let file = work.path().join("mcp.json");
    std::fs::write(&file, serde_json::to_string_pretty(&servers).unwrap()).unwrap();
    for mode in ["legacy", "auto"] {
        let flow = python_flow(
            "mcp_gateway_flow.py",
            &[
                mode,
                bin(),
                &pad.store,
                path_str(&file),
                path_str(&root),
                path_str(&pidfile),
            ],
        );
        assert!(
            flow.contains("crash reported and restarted"),
            "{mode}: {flow}"
        );
    }
}

/// The TypeScript SDK validates every structured result against its tool's output schema, so this
/// is the client that catches a gateway listing or result a real client would refuse.
#[test]
fn typescript_sdk_client_lists_calls_every_server_and_reads_an_offloaded_result_back() {
    let pad = Pad::new();
    let dir = super::mcp_proxy_e2e::fixture_dir();
    let root = dir.path().canonicalize().unwrap();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node/strict_client.mjs");
    let output = std::process::Command::new(node_prefix().join("node_modules/node/bin/node"))
        .arg(script)
        .args([
            bin(),
            pad.store.as_str(),
            path_str(node_prefix()),
            path_str(&root),
            "gateway",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.starts_with("ok gateway: "),
        "strict_client.mjs gateway failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("read back (8"),
        "the 800 KB log came back whole: {stdout}"
    );
}

#[test]
fn gateway_without_servers_or_with_a_bad_one_says_how_to_give_them() {
    let pad = Pad::new();
    let run = pad.run(&["mcp", "gateway"]);
    assert!(
        run.code != 0 && run.stderr.contains("--servers-from"),
        "{}",
        run.stderr
    );
    let run = pad.run(&["mcp", "gateway", "--server", "npx -y pkg"]);
    assert!(
        run.code != 0 && run.stderr.contains("NAME=VALUE"),
        "{}",
        run.stderr
    );
    let run = pad.run(&[
        "mcp",
        "gateway",
        "--upstream-url",
        "docs=localhost:3001/mcp",
    ]);
    assert!(
        run.code != 0 && run.stderr.contains("http:// or https://"),
        "{}",
        run.stderr
    );
    let run = pad.run(&["mcp", "gateway", "--server", "a=x", "--server", "a=y"]);
    assert!(
        run.code != 0 && run.stderr.contains("two upstream servers are called `a`"),
        "{}",
        run.stderr
    );
    let help = pad.ok(&["mcp", "gateway", "--help"]);
    assert!(
        help.contains("[gateway.servers.fs]") && help.contains("--servers-from"),
        "{help}"
    );
}
