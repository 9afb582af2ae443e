//! A view served on a free loopback port for one test, and a small HTTP/1.1 client to talk to it.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use scratchpad_core::{PutOptions, Scratchpad, Source, WriteOptions};
use scratchpad_ui::{UiOptions, UiServer};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

/// A view being served, and the store behind it.
pub struct Served {
    pub addr: SocketAddr,
    pub token: String,
    pub pad: Scratchpad,
    stop: CancellationToken,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: Option<TempDir>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop.cancel();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A fresh SQLite store.
pub fn sqlite_pad() -> (TempDir, Scratchpad) {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&format!("sqlite://{}/pad.db", dir.path().display())).unwrap();
    (dir, pad)
}

/// Serves `pad` with `options` (its address is replaced by a free loopback port).
pub fn serve_with(pad: Scratchpad, dir: Option<TempDir>, mut options: UiOptions) -> Served {
    if options.addr.port() != 0 || options.addr.ip().is_unspecified() {
        options.addr = "127.0.0.1:0".parse().unwrap();
    }
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let serving = pad.clone();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let server = UiServer::bind(serving, options).await.unwrap();
            let url = server.url().to_owned();
            ready_tx
                .send((server.local_addr().unwrap(), url, server.shutdown_token()))
                .unwrap();
            server.run().await.unwrap();
        });
    });
    let (addr, url, stop) = ready_rx.recv_timeout(Duration::from_secs(30)).unwrap();
    let token = url.split("token=").nth(1).unwrap().to_owned();
    Served {
        addr,
        token,
        pad,
        stop,
        thread: Some(thread),
        _dir: dir,
    }
}

pub fn serve(pad: Scratchpad, dir: Option<TempDir>) -> Served {
    serve_with(pad, dir, UiOptions::new("127.0.0.1:0".parse().unwrap()))
}

/// An answer: status, headers (names lowercase) and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {}", self.text()))
    }
}

impl Served {
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.addr.port())
    }

    pub fn origin(&self) -> String {
        format!("http://{}", self.host())
    }

    /// A request with exactly these headers (Host added unless given).
    pub fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
            request.push_str(&format!("Host: {}\r\n", self.host()));
        }
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        stream.write_all(request.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        read_reply(&mut BufReader::new(stream))
    }

    /// GET with the token as a bearer.
    pub fn get(&self, path: &str) -> Reply {
        let auth = format!("Bearer {}", self.token);
        self.raw("GET", path, &[("Authorization", &auth)], b"")
    }

    /// POST of JSON from this view's own page (its Origin), with the token.
    pub fn post(&self, path: &str, body: &serde_json::Value) -> Reply {
        let auth = format!("Bearer {}", self.token);
        let origin = self.origin();
        self.raw(
            "POST",
            path,
            &[
                ("Authorization", &auth),
                ("Origin", &origin),
                ("Content-Type", "application/json"),
            ],
            body.to_string().as_bytes(),
        )
    }

    /// Opens the event stream and returns the reader positioned after the headers.
    pub fn events(&self) -> BufReader<TcpStream> {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut writer = stream.try_clone().unwrap();
        write!(
            writer,
            "GET /api/events HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nAccept: text/event-stream\r\n\r\n",
            self.host(),
            self.token
        )
        .unwrap();
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        loop {
            line.clear();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
        }
        reader
    }
}

fn read_reply(reader: &mut impl BufRead) -> Reply {
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            if size == 0 {
                break;
            }
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).unwrap();
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        reader.read_to_end(&mut body).unwrap();
    }
    Reply {
        status,
        headers,
        body,
    }
}

/// A log of `lines` lines with ERROR lines at the given numbers.
pub fn log(lines: u64, errors: &[u64]) -> String {
    (1..=lines)
        .map(|i| {
            if errors.contains(&i) {
                format!("2026-11-21T10:00:00Z ERROR worker {i}: connection reset by peer\n")
            } else {
                format!("2026-11-21T10:00:00Z INFO worker {i}: processed batch ok\n")
            }
        })
        .collect()
}

/// Stores `content` as a tool's output.
pub fn offload(pad: &Scratchpad, tool: &str, content: &[u8]) -> String {
    pad.put_bytes(
        content,
        PutOptions {
            source: Source {
                tool: Some(tool.to_owned()),
                ..Source::default()
            },
            ..PutOptions::default()
        },
    )
    .unwrap()
    .name
}

pub fn note(pad: &Scratchpad, name: &str, text: &str) {
    pad.write(name, text, WriteOptions::default()).unwrap();
}

/// Text a stored value could use to run script, if it were ever markup.
pub const HOSTILE: &str =
    "<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\">\"'&";
