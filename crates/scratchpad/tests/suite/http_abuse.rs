//! The HTTP server under load and abuse at once: clients writing and reading back their notes, a
//! flood of sessions, and clients that hang up in the middle of a long call. Nothing written is
//! lost, the server stays up, and its memory stays bounded.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Pad, Server};

const ALICE: &str = "alice-load-token-0123456789";
const MALLORY: &str = "mallory-flood-token-0123456789";

/// One HTTP/1.1 POST; the status and the JSON-RPC message of the reply (JSON or SSE).
fn post(
    addr: SocketAddr,
    token: &str,
    session: Option<&str>,
    body: &Value,
) -> (u16, Option<String>, Value) {
    let body = body.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nAuthorization: Bearer {token}\r\n\
         MCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(session) = session {
        request.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let session = head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_owned())
    });
    let message = serde_json::from_str(body.trim()).ok().or_else(|| {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|value| value.get("jsonrpc").is_some())
    });
    (status, session, message.unwrap_or(Value::Null))
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "load-test", "version": "1"}}})
}

/// Opens a session and acknowledges it.
fn connect(addr: SocketAddr, token: &str) -> String {
    let (status, session, _) = post(addr, token, None, &initialize());
    assert_eq!(status, 200);
    let session = session.unwrap_or_else(|| panic!("no session id in the reply to initialize"));
    let ack = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(addr, token, Some(&session), &ack);
    session
}

fn call(addr: SocketAddr, token: &str, session: &str, id: u64, tool: &str, args: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": args}});
    let (status, _, message) = post(addr, token, Some(session), &body);
    assert_eq!(status, 200, "{message}");
    message["result"].clone()
}

fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmHWM:"))
                .and_then(|line| line.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

#[test]
fn load_floods_and_hangups_lose_no_write_and_keep_memory_bounded() {
    let pad = Pad::new();
    // A large entry for slow calls to hang up on.
    let big: String = (0..600_000)
        .map(|i| {
            format!(
                "2026-11-25T10:00:00Z INFO request {i} served in {} ms\n",
                i % 97
            )
        })
        .collect();
    pad.ok_stdin(&["--session", "shared", "put", "big"], big.as_bytes());
    let server = Server::start(
        &pad,
        &[
            "--http",
            "127.0.0.1:0",
            "--token",
            ALICE,
            "--token",
            MALLORY,
            "--session",
            "shared",
            "--max-sessions-per-client",
            "16",
        ],
        &[],
    );
    let addr: SocketAddr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let pid = server.child.id();
    let started = Instant::now();
    let done = Arc::new(AtomicBool::new(false));

    // A flood of sessions that are opened and never used.
    let flood = {
        std::thread::spawn(move || {
            let mut opened = 0;
            while opened < 3_000 {
                let (status, _, _) = post(addr, MALLORY, None, &initialize());
                assert!(status == 200 || status == 503, "{status}");
                opened += 1;
            }
            opened
        })
    };
    // Clients that start a slow search and hang up in the middle of it.
    let hangups = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let session = connect(addr, MALLORY);
            let mut cut = 0;
            while !done.load(Ordering::Relaxed) && cut < 40 {
                let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
                    "name": "scratchpad_read", "arguments": {"name": "big", "mode": "grep",
                    "pattern": "(served|failed) in (9[0-6]|1[0-9]{3}) ms$", "max_matches": 100000}}})
                .to_string();
                let request = format!(
                    "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
                     Accept: application/json, text/event-stream\r\nAuthorization: Bearer {MALLORY}\r\n\
                     MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: {session}\r\n\
                     Content-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                let mut stream = TcpStream::connect(addr).unwrap();
                stream.write_all(request.as_bytes()).unwrap();
                std::thread::sleep(Duration::from_millis(15));
                drop(stream);
                cut += 1;
            }
            cut
        })
    };
    // Clients doing real work: every note they write must read back whole.
    let clients: Vec<_> = (0..8)
        .map(|client| {
            std::thread::spawn(move || {
                let session = connect(addr, ALICE);
                for round in 0..25u64 {
                    let name = format!("c{client}_{round}");
                    let content = format!("finding {round} of client {client}\n").repeat(50);
                    let written = call(
                        addr,
                        ALICE,
                        &session,
                        round * 2 + 2,
                        "scratchpad_write",
                        json!({"name": name, "content": content}),
                    );
                    assert_eq!(written["isError"], false, "{written}");
                    let read = call(
                        addr,
                        ALICE,
                        &session,
                        round * 2 + 3,
                        "scratchpad_read",
                        json!({"name": name, "mode": "full"}),
                    );
                    let text = read["content"][0]["text"].as_str().unwrap_or_default();
                    assert!(text.ends_with(&content), "{name}: {text:.200}");
                }
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
    done.store(true, Ordering::Relaxed);
    let opened = flood.join().unwrap();
    let cut = hangups.join().unwrap();
    assert!(
        opened == 3_000 && cut > 5,
        "{opened} sessions flooded, {cut} calls cut"
    );

    // Nothing written was lost, and the server still answers.
    let session = connect(addr, ALICE);
    let listed = call(
        addr,
        ALICE,
        &session,
        100,
        "scratchpad_list",
        json!({"limit": 500}),
    );
    let total = listed["structuredContent"]["total_entries"]
        .as_u64()
        .unwrap_or(0);
    assert_eq!(total, 8 * 25 + 1, "{listed:.500}");
    let peak = peak_rss_kib(pid);
    assert!(peak < 200 * 1024, "the server peaked at {peak} KiB");
    eprintln!(
        "load test: {opened} flooded sessions, {cut} calls cut, 400 round trips in {:.1} s, peak {} MiB",
        started.elapsed().as_secs_f64(),
        peak / 1024
    );
}

/// Regression: connections that sent their headers slowly were never timed out and needed no
/// token (21,000 of them took 355 MB and made a normal request time out), and without tokens one
/// program's flood of `initialize` closed every other client's session.
#[test]
fn slow_connections_and_a_session_flood_from_one_address_starve_no_one() {
    let pad = Pad::new();
    let server = Server::start(
        &pad,
        &[
            "--http",
            "127.0.0.1:0",
            "--header-timeout-secs",
            "1",
            "--max-sessions-per-client",
            "16",
        ],
        &[],
    );
    let addr: SocketAddr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let pid = server.child.id();
    let session = connect(addr, "");
    let attack = std::thread::spawn(move || attack_from_another_address(addr));
    // While the attack runs, the client that was there first keeps working.
    for round in 0..20u64 {
        let written = call(
            addr,
            "",
            &session,
            round + 10,
            "scratchpad_write",
            json!({"name": format!("note_{round}"), "content": "still here"}),
        );
        assert_eq!(written["isError"], false, "{written}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let (slow_closed, slow_total, refused, sessions_refused) = attack.join().unwrap();
    assert_eq!(
        slow_closed, slow_total,
        "every slow connection was closed or refused before its head was complete"
    );
    assert!(
        refused > 0,
        "connections past the cap of an address are refused"
    );
    assert!(
        sessions_refused > 0,
        "sessions past the cap of an address are refused"
    );
    let listed = call(addr, "", &session, 100, "scratchpad_list", json!({}));
    assert_eq!(
        listed["structuredContent"]["total_entries"], 20,
        "{listed:.300}"
    );
    let peak = peak_rss_kib(pid);
    assert!(peak < 100 * 1024, "the server peaked at {peak} KiB");
    eprintln!(
        "slow connections: {slow_total} opened ({refused} refused at once), {sessions_refused} \
         sessions refused, peak {} MiB",
        peak / 1024
    );
}

/// From 127.0.0.2: 3,000 connections sending a head a byte every 100 ms, and 200 `initialize`
/// requests. How many slow connections ended before their head did, how many there were, how many
/// were refused at once (429), and how many sessions were refused.
fn attack_from_another_address(addr: SocketAddr) -> (usize, usize, usize, usize) {
    async fn open(addr: SocketAddr) -> std::io::Result<tokio::net::TcpStream> {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(SocketAddr::from(([127, 0, 0, 2], 0)))?;
        socket.connect(addr).await
    }
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    const SLOW: usize = 3_000;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nX-Pad: {}\r\n\r\n",
            "a".repeat(100)
        );
        let slow: Vec<_> = (0..SLOW)
            .map(|_| {
                let head = head.clone();
                tokio::spawn(async move {
                    // (ended early, refused at once)
                    let Ok(mut stream) = open(addr).await else {
                        return (true, true);
                    };
                    let mut first = true;
                    for byte in head.bytes() {
                        if stream.write_all(&[byte]).await.is_err() {
                            return (true, first);
                        }
                        let mut answer = [0u8; 16];
                        match tokio::time::timeout(
                            Duration::from_millis(100),
                            stream.read(&mut answer),
                        )
                        .await
                        {
                            Ok(Ok(0) | Err(_)) => return (true, false),
                            Ok(Ok(_)) => return (true, answer.starts_with(b"HTTP/1.1 429")),
                            Err(_) => first = false,
                        }
                    }
                    (false, false)
                })
            })
            .collect();
        let mut closed = 0;
        let mut refused = 0;
        for task in slow {
            let (ended, at_once) = task.await.unwrap();
            closed += usize::from(ended);
            refused += usize::from(at_once);
        }
        let mut sessions_refused = 0;
        for _ in 0..200 {
            let Ok(mut stream) = open(addr).await else {
                continue;
            };
            let body = initialize().to_string();
            let request = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            );
            if stream.write_all(request.as_bytes()).await.is_err() {
                continue;
            }
            let mut raw = Vec::new();
            let _ = stream.read_to_end(&mut raw).await;
            if raw.starts_with(b"HTTP/1.1 429") && String::from_utf8_lossy(&raw).contains("MCP sessions") {
                sessions_refused += 1;
            }
        }
        (closed, SLOW, refused, sessions_refused)
    })
}
