//! Streamable HTTP security, spoken as raw HTTP/1.1 so every status code is the server's own: bearer
//! tokens off loopback, Host and Origin checks, the body limit, and one session per token.

use std::net::SocketAddr;
use std::time::Duration;

use scratchpad_core::Scratchpad;
use scratchpad_mcp::http::{HttpOptions, HttpServer};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::common::store_url;

const ALICE: &str = "alice-token-0123456789abcdef";
const BOB: &str = "bob-token-0123456789abcdef00";

struct Running {
    addr: SocketAddr,
    pad: Scratchpad,
    _dir: tempfile::TempDir,
    stop: tokio_util::sync::CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A server on every interface (not loopback), so tokens are required; reached through 127.0.0.1.
async fn start(tokens: &[&str], max_body_bytes: usize) -> Running {
    start_with(tokens, |options| options.max_body_bytes = max_body_bytes).await
}

async fn start_with(tokens: &[&str], configure: impl FnOnce(&mut HttpOptions)) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&store_url(&dir)).unwrap();
    let mut options = HttpOptions::new("0.0.0.0:0".parse().unwrap());
    options.tokens = tokens.iter().map(|t| (*t).to_owned()).collect();
    configure(&mut options);
    let server = HttpServer::bind(pad.clone(), options).await.unwrap();
    let port = server.local_addr().unwrap().port();
    let stop = server.shutdown_token();
    tokio::spawn(server.run());
    Running {
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        pad,
        _dir: dir,
        stop,
    }
}

struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    }

    /// The JSON-RPC message of a JSON or SSE body.
    fn message(&self) -> Value {
        if let Ok(value) = serde_json::from_str(self.body.trim()) {
            return value;
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|value| value.get("jsonrpc").is_some())
            .unwrap_or_else(|| panic!("no JSON-RPC message in: {}", self.body))
    }
}

async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (key, value) in headers {
        request.push_str(&format!("{key}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw).await;
        raw
    };
    let raw = tokio::time::timeout(Duration::from_secs(30), exchange)
        .await
        .expect("the server answers");
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Reply {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

async fn delete(addr: SocketAddr, headers: &[(&str, &str)]) -> u16 {
    let mut request = format!("DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (key, value) in headers {
        request.push_str(&format!("{key}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    String::from_utf8_lossy(&raw)
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw-http-test", "version": "1"}}})
    .to_string()
}

/// A legacy-mode MCP session over raw HTTP with one bearer token.
struct Client {
    addr: SocketAddr,
    auth: String,
    session: String,
    next_id: u64,
}

impl Client {
    async fn connect(addr: SocketAddr, token: &str) -> Self {
        let auth = format!("Bearer {token}");
        let reply = post(addr, &[("Authorization", &auth)], &initialize()).await;
        assert_eq!(reply.status, 200, "{}\n{}", reply.head, reply.body);
        let session = reply.header("mcp-session-id").expect("a session id");
        let initialized =
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
        let headers = [
            ("Authorization", auth.as_str()),
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", "2025-11-25"),
        ];
        let ack = post(addr, &headers, &initialized).await;
        assert_eq!(ack.status, 202, "{}", ack.body);
        Self {
            addr,
            auth,
            session,
            next_id: 2,
        }
    }

    async fn call(&mut self, tool: &str, args: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}})
        .to_string();
        self.next_id += 1;
        let headers = [
            ("Authorization", self.auth.as_str()),
            ("Mcp-Session-Id", self.session.as_str()),
            ("MCP-Protocol-Version", "2025-11-25"),
        ];
        let reply = post(self.addr, &headers, &body).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.message()["result"].clone()
    }
}

#[tokio::test]
async fn a_public_bind_needs_a_token_of_some_length() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&store_url(&dir)).unwrap();
    let open = HttpServer::bind(pad.clone(), HttpOptions::new("0.0.0.0:0".parse().unwrap())).await;
    let message = open.unwrap_err().to_string();
    assert!(
        message.contains("not a loopback address") && message.contains("--token"),
        "{message}"
    );

    let mut short = HttpOptions::new("0.0.0.0:0".parse().unwrap());
    short.tokens = vec!["hunter2".into()];
    let message = HttpServer::bind(pad.clone(), short)
        .await
        .unwrap_err()
        .to_string();
    assert!(message.contains("at least 16 characters"), "{message}");
    assert!(
        !message.contains("hunter2"),
        "the token is never echoed: {message}"
    );

    // Loopback without a token is the local default.
    assert!(
        HttpServer::bind(pad, HttpOptions::new("127.0.0.1:0".parse().unwrap()))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn no_or_wrong_token_is_401() {
    let server = start(&[ALICE], 1 << 20).await;
    let none = post(server.addr, &[], &initialize()).await;
    assert_eq!(none.status, 401);
    assert_eq!(none.header("www-authenticate").as_deref(), Some("Bearer"));
    assert!(none.body.contains("Authorization: Bearer"), "{}", none.body);
    let wrong = post(
        server.addr,
        &[("Authorization", "Bearer not-the-token-at-all")],
        &initialize(),
    )
    .await;
    assert_eq!(wrong.status, 401);
    let right = post(
        server.addr,
        &[("Authorization", &format!("Bearer {ALICE}"))],
        &initialize(),
    )
    .await;
    assert_eq!(right.status, 200, "{}", right.body);
    assert!(right.message()["result"]["serverInfo"]["name"] == "scratchpad");
}

#[tokio::test]
async fn foreign_origin_and_host_are_refused() {
    let server = start(&[ALICE], 1 << 20).await;
    let auth = format!("Bearer {ALICE}");
    let origin = post(
        server.addr,
        &[("Authorization", &auth), ("Origin", "http://evil.example")],
        &initialize(),
    )
    .await;
    assert_eq!(origin.status, 403, "{}", origin.body);
    let host = post(
        server.addr,
        &[("Authorization", &auth), ("Host", "evil.example:80")],
        &initialize(),
    )
    .await;
    assert_eq!(host.status, 403, "{}", host.body);
    // Regression: any localhost origin was trusted, but any local web page can send one.
    let local_page = [
        ("Authorization", auth.as_str()),
        ("Origin", "http://localhost:3000"),
    ];
    let local = post(server.addr, &local_page, &initialize()).await;
    assert_eq!(local.status, 403, "{}", local.body);
    let configured = start_with(&[ALICE], |options| {
        options.allowed_origins = vec!["http://localhost:3000".into()];
    })
    .await;
    let local = post(configured.addr, &local_page, &initialize()).await;
    assert_eq!(local.status, 200, "{}", local.body);
    // The server's own origin is its own.
    let own = format!("http://127.0.0.1:{}", server.addr.port());
    let same = post(
        server.addr,
        &[("Authorization", &auth), ("Origin", &own)],
        &initialize(),
    )
    .await;
    assert_eq!(same.status, 200, "{}", same.body);
    // A client that sends no Origin (not a browser) is not affected.
    let plain = post(server.addr, &[("Authorization", &auth)], &initialize()).await;
    assert_eq!(plain.status, 200, "{}", plain.body);
}

#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive() {
    let server = start(&[ALICE], 1 << 20).await;
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let auth = format!("{scheme} {ALICE}");
        let reply = post(server.addr, &[("Authorization", &auth)], &initialize()).await;
        assert_eq!(reply.status, 200, "{scheme}: {}", reply.body);
    }
    let wrong = post(
        server.addr,
        &[("Authorization", &format!("Basic {ALICE}"))],
        &initialize(),
    )
    .await;
    assert_eq!(wrong.status, 401, "{}", wrong.body);
}

#[tokio::test]
async fn malformed_json_is_400_and_misshapen_arguments_are_named() {
    let server = start(&[ALICE], 1 << 20).await;
    let client = Client::connect(server.addr, ALICE).await;
    let headers = [
        ("Authorization", client.auth.as_str()),
        ("Mcp-Session-Id", client.session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    // Regression: a body that was not JSON got 415 Unsupported Media Type.
    let garbage = post(server.addr, &headers, "{garbage").await;
    assert_eq!(garbage.status, 400, "{}", garbage.body);
    assert_eq!(
        garbage.message()["error"]["code"],
        -32700,
        "{}",
        garbage.body
    );
    // Regression: arguments that were not an object got -32601 "method not found".
    for (arguments, kind) in [(json!([1, 2]), "an array"), (json!("x"), "a string")] {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "scratchpad_list", "arguments": arguments}})
        .to_string();
        let reply = post(server.addr, &headers, &body).await;
        let message = reply.message();
        assert_eq!(message["id"], 7, "{message}");
        assert_eq!(message["error"]["code"], -32602, "{message}");
        let text = message["error"]["message"].as_str().unwrap();
        assert!(
            text.contains("`arguments` must be an object") && text.contains(kind),
            "{text}"
        );
    }
}

#[tokio::test]
async fn a_session_belongs_to_the_token_that_opened_it() {
    let server = start(&[ALICE, BOB], 1 << 20).await;
    let mut alice = Client::connect(server.addr, ALICE).await;
    let bob_auth = format!("Bearer {BOB}");
    let as_bob = [
        ("Authorization", bob_auth.as_str()),
        ("Mcp-Session-Id", alice.session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}).to_string();
    let used = post(server.addr, &as_bob, &ping).await;
    assert_eq!(used.status, 404, "{}", used.body);
    let deleted = delete(server.addr, &as_bob).await;
    assert_eq!(deleted, 404);
    // Alice's session is untouched.
    let listing = alice.call("scratchpad_list", json!({})).await;
    assert_eq!(listing["isError"], false, "{listing}");
    let as_alice = [
        ("Authorization", alice.auth.as_str()),
        ("Mcp-Session-Id", alice.session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let closed = delete(server.addr, &as_alice).await;
    assert!((200..300).contains(&closed), "{closed}");
    let after = post(server.addr, &as_alice, &ping).await;
    assert_eq!(after.status, 404, "{}", after.body);
}

#[tokio::test]
async fn sessions_are_capped_per_client_and_in_total_and_expire_when_idle() {
    let server = start_with(&[ALICE, BOB], |options| {
        options.sessions.max_per_client = 3;
        options.sessions.max_total = 4;
        options.sessions.idle = Duration::from_millis(1_500);
    })
    .await;
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}).to_string();
    let alive = |client: &Client| {
        let (auth, session) = (client.auth.clone(), client.session.clone());
        let ping = ping.clone();
        async move {
            let headers = [
                ("Authorization", auth.as_str()),
                ("Mcp-Session-Id", session.as_str()),
                ("MCP-Protocol-Version", "2025-11-25"),
            ];
            post(server.addr, &headers, &ping).await.status == 200
        }
    };
    // Alice opens five: only her last three stay; the two oldest were closed to make room.
    let mut alices = Vec::new();
    for _ in 0..5 {
        alices.push(Client::connect(server.addr, ALICE).await);
    }
    let mut open = Vec::new();
    for client in &alices {
        open.push(alive(client).await);
    }
    assert_eq!(open, [false, false, true, true, true]);
    // Bob takes the last place; then the server is full, and Bob is told so, not Alice evicted.
    let bob = Client::connect(server.addr, BOB).await;
    let full = post(
        server.addr,
        &[("Authorization", &format!("Bearer {BOB}"))],
        &initialize(),
    )
    .await;
    assert_eq!(full.status, 503, "{}", full.body);
    assert!(full.header("retry-after").is_some());
    assert!(alive(&alices[4]).await && alive(&bob).await);
    // Unused sessions expire, which makes room again.
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    assert!(!alive(&bob).await, "an idle session expires");
    Client::connect(server.addr, BOB).await;
}

#[tokio::test]
async fn an_oversized_body_is_refused_and_nothing_is_stored() {
    let server = start(&[ALICE], 4_096).await;
    let mut client = Client::connect(server.addr, ALICE).await;
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "scratchpad_write", "arguments": {"name": "big", "content": "x".repeat(10_000)}}})
    .to_string();
    let headers = [
        ("Authorization", client.auth.as_str()),
        ("Mcp-Session-Id", client.session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let reply = post(server.addr, &headers, &body).await;
    assert_eq!(reply.status, 413, "{}", reply.body);
    let listing = client.call("scratchpad_list", json!({})).await;
    assert_eq!(listing["structuredContent"]["total_entries"], 0);
}

#[tokio::test]
async fn each_token_is_its_own_session() {
    let server = start(&[ALICE, BOB], 1 << 20).await;
    let mut alice = Client::connect(server.addr, ALICE).await;
    let mut bob = Client::connect(server.addr, BOB).await;
    let written = alice
        .call(
            "scratchpad_write",
            json!({"name": "plan", "content": "alice's plan"}),
        )
        .await;
    assert_eq!(written["isError"], false, "{written}");
    let id = written["structuredContent"]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let by_name = bob.call("scratchpad_read", json!({"ref": "plan"})).await;
    assert_eq!(by_name["isError"], true, "{by_name}");
    let by_id = bob.call("scratchpad_read", json!({"ref": id})).await;
    assert_eq!(by_id["isError"], true, "{by_id}");
    let listing = bob.call("scratchpad_list", json!({})).await;
    assert_eq!(
        listing["structuredContent"]["total_entries"], 0,
        "{listing}"
    );

    let mine = alice.call("scratchpad_read", json!({"ref": "plan"})).await;
    assert!(
        mine["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("alice's plan")
    );
    // Sessions are named after a hash of the token, never the token.
    let sessions: Vec<String> = server
        .pad
        .list(&Default::default(), None, 10)
        .unwrap()
        .entries
        .iter()
        .map(|e| e.session.clone())
        .collect();
    assert!(sessions.is_empty(), "the default session holds nothing");
    let session = alice.call("scratchpad_list", json!({})).await["structuredContent"]["session"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        session.starts_with("client-") && !session.contains("alice"),
        "{session}"
    );
}

/// Over HTTP with tokens, what a client writes is recorded as written by its token's identity,
/// which it cannot choose, not by the name it gives itself.
#[tokio::test]
async fn writes_name_the_token_as_their_author() {
    let server = start(&[ALICE, BOB], 1 << 20).await;
    let mut alice = Client::connect(server.addr, ALICE).await;
    let written = alice
        .call(
            "scratchpad_write",
            json!({"name": "plan", "content": "alice's plan"}),
        )
        .await;
    let author = written["structuredContent"]["author"].as_str().unwrap();
    let session = alice.call("scratchpad_list", json!({})).await["structuredContent"]["session"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(author, session, "the token's identity, not `raw-http-test`");
    let history = alice
        .call(
            "scratchpad_read",
            json!({"name": "plan", "mode": "history"}),
        )
        .await;
    assert!(
        history["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains(&format!("by {session}")),
        "{history}"
    );
}

/// A loopback server without tokens, as `scratchpad mcp serve --http 127.0.0.1:PORT` runs.
async fn start_local(configure: impl FnOnce(&mut HttpOptions)) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&store_url(&dir)).unwrap();
    let mut options = HttpOptions::new("127.0.0.1:0".parse().unwrap());
    configure(&mut options);
    let server = HttpServer::bind(pad.clone(), options).await.unwrap();
    let addr = server.local_addr().unwrap();
    let stop = server.shutdown_token();
    tokio::spawn(server.run());
    Running {
        addr,
        pad,
        _dir: dir,
        stop,
    }
}

/// A connection from another loopback address (127.0.0.2), as a second machine would be.
async fn connect_from(source: [u8; 4], addr: SocketAddr) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((source, 0))).unwrap();
    socket.connect(addr).await.unwrap()
}

/// Reads until the server closes the connection (or resets it); what it said, if anything.
async fn until_closed(stream: &mut tokio::net::TcpStream) -> String {
    let mut raw = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut raw)).await;
    assert!(read.is_ok(), "the server never closed the connection");
    String::from_utf8_lossy(&raw).into_owned()
}

/// A head that a slow client sends a byte at a time.
fn slow_head(addr: SocketAddr) -> Vec<u8> {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nX-Padding: {}\r\n\r\n",
        "a".repeat(200)
    )
    .into_bytes()
}

/// Regression: connections sending their headers a byte at a time were never timed out and
/// needed no token, so enough of them took the memory and made everyone else's requests time out.
#[tokio::test]
async fn connections_sending_headers_slowly_are_closed_and_others_are_served() {
    let server = start_with(&[ALICE], |options| {
        options.connections.header_timeout = Duration::from_secs(1);
        options.connections.max_per_address = 40;
    })
    .await;
    let addr = server.addr;
    let slow: Vec<_> = (0..30)
        .map(|_| {
            tokio::spawn(async move {
                let mut stream = connect_from([127, 0, 0, 2], addr).await;
                // A byte every 100 ms would take 26 s for this head; the server must not wait.
                let mut sent = 0;
                for byte in slow_head(addr) {
                    if stream.write_all(&[byte]).await.is_err() {
                        break;
                    }
                    sent += 1;
                    let mut probe = [0u8; 1];
                    let answer =
                        tokio::time::timeout(Duration::from_millis(100), stream.read(&mut probe))
                            .await;
                    // Closed (or reset) by the server: it stopped waiting for this head.
                    if let Ok(Ok(0) | Err(_)) = answer {
                        break;
                    }
                }
                sent
            })
        })
        .collect();
    // Meanwhile a normal client is served.
    let mut alice = Client::connect(addr, ALICE).await;
    let listing = alice.call("scratchpad_list", json!({})).await;
    assert_eq!(listing["isError"], false, "{listing}");
    let head = slow_head(addr).len();
    for task in slow {
        let sent = task.await.unwrap();
        assert!(
            sent < head,
            "a slow head ({sent} of {head} bytes) was waited for"
        );
    }
}

#[tokio::test]
async fn an_idle_connection_is_closed_after_the_keep_alive_timeout() {
    let server = start_with(&[ALICE], |options| {
        options.connections.keep_alive = Duration::from_secs(1);
    })
    .await;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let body = initialize();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nAuthorization: Bearer {ALICE}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        server.addr,
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    // The answer comes on a connection kept alive, which is then closed for sitting idle.
    let said = until_closed(&mut stream).await;
    assert!(said.starts_with("HTTP/1.1 200"), "{said}");
    assert!(said.contains("serverInfo"), "{said}");
}

#[tokio::test]
async fn a_body_that_trickles_is_answered_408() {
    let server = start_with(&[ALICE], |options| {
        options.connections.body_timeout = Duration::from_secs(1);
    })
    .await;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let body = initialize();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nAuthorization: Bearer {ALICE}\r\n\
         Content-Length: {}\r\n\r\n",
        server.addr,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let trickle = async {
        for byte in body.bytes() {
            if stream.write_all(&[byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(3), trickle).await;
    let said = until_closed(&mut stream).await;
    assert!(said.starts_with("HTTP/1.1 408"), "{said}");
    assert!(said.contains("--body-timeout-secs"), "{said}");
}

#[tokio::test]
async fn connections_past_the_caps_are_refused_with_the_reason() {
    let server = start_with(&[ALICE], |options| {
        options.connections.max_per_address = 3;
        options.connections.max_total = 5;
    })
    .await;
    let addr = server.addr;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(connect_from([127, 0, 0, 2], addr).await);
    }
    let mut fourth = connect_from([127, 0, 0, 2], addr).await;
    let said = until_closed(&mut fourth).await;
    assert!(said.starts_with("HTTP/1.1 429"), "{said}");
    assert!(
        said.contains("127.0.0.2") && said.contains("--max-connections-per-address"),
        "{said}"
    );
    // Another address still gets in, up to the total.
    for _ in 0..2 {
        held.push(connect_from([127, 0, 0, 3], addr).await);
    }
    let mut sixth = connect_from([127, 0, 0, 4], addr).await;
    let said = until_closed(&mut sixth).await;
    assert!(said.starts_with("HTTP/1.1 503"), "{said}");
    assert!(said.contains("--max-connections"), "{said}");
    // Closing some makes room again.
    held.clear();
    let mut alice = None;
    for _ in 0..50 {
        let reply = post(
            addr,
            &[("Authorization", &format!("Bearer {ALICE}"))],
            &initialize(),
        )
        .await;
        if reply.status == 200 {
            alice = Some(reply);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(alice.is_some(), "closed connections are given back");
}

/// A legacy-mode MCP session over raw HTTP without a token.
async fn open_local_session(addr: SocketAddr) -> Reply {
    post(addr, &[], &initialize()).await
}

/// Regression: without tokens all clients counted as one, so one program sending 64 `initialize`
/// requests closed every other client's session.
#[tokio::test]
async fn without_tokens_a_flood_of_sessions_closes_no_other_clients_session() {
    let server = start_local(|options| options.sessions.max_per_client = 8).await;
    let addr = server.addr;
    let first = open_local_session(addr).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let session = first.header("mcp-session-id").unwrap();
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}).to_string();
    let in_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    // The flood comes from the same address, as every local program does.
    let mut refused = None;
    for _ in 0..40 {
        let reply = open_local_session(addr).await;
        match reply.status {
            200 => {}
            429 => refused = Some(reply),
            other => panic!("{other}: {}", reply.body),
        }
    }
    let refused = refused.expect("the flood is refused past the cap");
    assert!(refused.header("retry-after").is_some());
    let message = refused.message()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.contains("127.0.0.1") && message.contains("--max-sessions-per-client"),
        "{message}"
    );
    let alive = post(addr, &in_session, &ping).await;
    assert_eq!(
        alive.status, 200,
        "the first client's session survives: {}",
        alive.body
    );
    // Another address is not affected by this one's sessions.
    let mut other = connect_from([127, 0, 0, 2], addr).await;
    let body = initialize();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    other.write_all(request.as_bytes()).await.unwrap();
    let said = until_closed(&mut other).await;
    assert!(said.starts_with("HTTP/1.1 200"), "{said}");
}
