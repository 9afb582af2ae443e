//! `scratchpad mcp proxy` end to end: the official Python SDK client and the TypeScript SDK client (which
//! validates structured content against output schemas) → the proxy → the real npm reference servers
//! (`@modelcontextprotocol/server-filesystem`, `@modelcontextprotocol/server-everything`), over stdio
//! and streamable HTTP.
//!
//! The clients come from `common::clients` (set up once per process; they fail, never skip).

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::common::Pad;
use crate::common::clients::{bin, node_prefix, path_str, python_flow};

const FLOW: &str = "mcp_proxy_flow.py";

/// A directory with a small file and an 800 KB build log whose one error line sits in the middle.
pub(super) fn fixture_dir() -> tempfile::TempDir {
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
fn python_client_through_the_proxy_to_an_https_upstream_with_a_bearer_token() {
    let upstream = HttpUpstream::start();
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = private_ca_and_certificate(dir.path());
    let token = "upstream-secret-0123456789";
    let front = TlsFront::start(&cert, &key, &upstream.port, token);
    let pad = Pad::new();
    let url = format!("https://localhost:{}/mcp", front.port);
    let flow = python_flow(
        FLOW,
        &[
            "everything-https",
            "auto",
            bin(),
            &pad.store,
            &url,
            path_str(&ca),
            token,
        ],
    );
    assert!(flow.contains("offloaded as echo_"), "{flow}");
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
    // Regression: an answer the upstream tore, or one over the 16 MiB line cap of stdio transports,
    // was dropped, and the client waited the whole call timeout to hear "did not answer".
    assert!(
        flow.contains("torn: ") && flow.contains("not valid JSON"),
        "the torn answer is named: {flow}"
    );
    assert!(
        flow.contains("toolong: ") && flow.contains("--max-result-bytes"),
        "the answer over the limit names it: {flow}"
    );
    assert!(
        flow.contains("huge: stored as huge_1 (22282241 bytes)"),
        "a 20 MiB result is stored whole: {flow}"
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
fn proxy_without_an_upstream_or_with_a_bad_one_says_how_to_give_one() {
    let pad = Pad::new();
    let run = pad.run(&["mcp", "proxy"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("--upstream-url"), "{}", run.stderr);
    let help = pad.ok(&["mcp", "proxy", "--help"]);
    assert!(
        help.contains("--threshold") && help.contains("--lazy-tools"),
        "{help}"
    );
    // A reuse window that is not a duration is refused before the upstream starts, saying what is.
    let run = pad.run(&["mcp", "proxy", "--reuse-window", "soon", "--", "true"]);
    assert!(
        run.code != 0 && run.stderr.contains("60s") && run.stderr.contains("`off`"),
        "{}",
        run.stderr
    );
    // A URL without its scheme, and a header that is not `Name: value`, are named before any
    // connection is tried.
    let run = pad.run(&["mcp", "proxy", "--upstream-url", "localhost:3001/mcp"]);
    assert!(
        run.code != 0 && run.stderr.contains("http:// or https://"),
        "{}",
        run.stderr
    );
    let args = [
        "mcp",
        "proxy",
        "--upstream-url",
        "https://mcp.example.com/mcp",
    ];
    let run = pad.run(&[&args[..], &["--upstream-header", "X-Api-Key=abc"]].concat());
    assert!(
        run.code != 0 && run.stderr.contains("`Name: value`"),
        "{}",
        run.stderr
    );
    let run = pad.run(&[&args[..], &["--upstream-header", "Accept: */*"]].concat());
    assert!(
        run.code != 0 && run.stderr.contains("set by the MCP transport"),
        "{}",
        run.stderr
    );
    // An upstream that never answers the handshake, or exits at once: the client's initialize gets
    // an error that says so, in time, and no upstream process is left behind.
    let initialize = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
"#;
    let silent = ["mcp", "proxy", "--call-timeout", "2", "--", "sleep", "30"];
    let run = pad.run_stdin(&silent, initialize);
    assert!(
        run.stdout
            .contains("did not answer the MCP handshake within 2 s"),
        "{}",
        run.stdout
    );
    // Whether the proxy's write meets a closed pipe or its read meets end of file is a race; both
    // say what happened.
    for upstream in [&["true"][..], &["sh", "-c", "exec 0<&-; sleep 1"]] {
        let run = pad.run_stdin(
            &[&["mcp", "proxy", "--"][..], upstream].concat(),
            initialize,
        );
        assert!(run.stdout.contains("the command exited"), "{}", run.stdout);
    }
}

/// server-everything serving streamable HTTP on a free port.
struct HttpUpstream {
    child: Child,
    port: String,
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
            port: port.to_string(),
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

/// A private CA and a `localhost` certificate it signed, made with the openssl CLI: (CA PEM,
/// certificate PEM, key PEM).
fn private_ca_and_certificate(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let [ca, ca_key, cert, key, csr, ext] = [
        "ca.pem", "ca.key", "cert.pem", "key.pem", "leaf.csr", "leaf.ext",
    ]
    .map(|f| dir.join(f));
    std::fs::write(
        &ext,
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    let steps: [Vec<&std::ffi::OsStr>; 3] = [
        os(&[
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .chain(os(&["-subj", "/CN=scratchpad-test-ca", "-keyout"]))
        .chain([ca_key.as_os_str(), "-out".as_ref(), ca.as_os_str()])
        .collect(),
        os(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=localhost",
        ])
        .chain([
            "-keyout".as_ref(),
            key.as_os_str(),
            "-out".as_ref(),
            csr.as_os_str(),
        ])
        .collect(),
        os(&["x509", "-req", "-days", "2", "-CAcreateserial", "-in"])
            .chain([csr.as_os_str(), "-CA".as_ref(), ca.as_os_str()])
            .chain([
                "-CAkey".as_ref(),
                ca_key.as_os_str(),
                "-out".as_ref(),
                cert.as_os_str(),
            ])
            .chain(["-extfile".as_ref(), ext.as_os_str()])
            .collect(),
    ];
    for step in steps {
        let run = Command::new("openssl")
            .args(&step)
            .output()
            .unwrap_or_else(|err| {
                panic!("openssl makes the test certificates: {err}; apt-get install openssl")
            });
        assert!(
            run.status.success(),
            "openssl {step:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    (ca, cert, key)
}

fn os<'a>(args: &'a [&'a str]) -> impl Iterator<Item = &'a std::ffi::OsStr> {
    args.iter().map(std::ffi::OsStr::new)
}

/// `tests/node/tls_front.mjs`: HTTPS with a bearer token in front of a plain-HTTP upstream.
struct TlsFront {
    child: Child,
    port: String,
}

impl TlsFront {
    fn start(cert: &Path, key: &Path, target_port: &str, token: &str) -> Self {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node/tls_front.mjs");
        let mut child = Command::new(node_prefix().join("node_modules/node/bin/node"))
            .arg(script)
            .args([cert, key])
            .args([target_port, token])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("listening on port ")
            .unwrap_or_else(|| panic!("the TLS front did not start: {line:?}"))
            .to_owned();
        Self { child, port }
    }
}

impl Drop for TlsFront {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
