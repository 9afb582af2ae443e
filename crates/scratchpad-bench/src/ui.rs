//! The web view (`scratchpad ui`), served by the real binary and asked over loopback HTTP as a
//! browser would: the first page of a 10,000-entry session, a line range from the middle of a large
//! entry, and the whole entry downloaded while the server's peak memory is watched. Each request is
//! compared with the library call that does the same work in this process, so the ratio is what the
//! view adds (HTTP, rendering, JSON) to the engine.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use scratchpad_core::{ListFilter, PutOptions, ReadMode};

use crate::data::{LogSource, open_pad};
use crate::harness::{Row, median, sibling_binary, time, watch_peak_rss};

/// Entries in the listed session.
const SESSION_ENTRIES: usize = 10_000;
/// The page the view lists by default, and the lines its viewer fetches at a time (`app.js`).
const PAGE_ENTRIES: usize = 100;
const VIEWER_LINES: u64 = 200;
/// What the view promises.
const PAGE_TARGET: Duration = Duration::from_millis(300);
const LINES_TARGET: Duration = Duration::from_millis(5);
const RSS_TARGET_MIB: u64 = 64;
const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// `scratchpad ui` on a store, killed when dropped.
struct View {
    child: Child,
    addr: SocketAddr,
}

impl View {
    fn start(store: &str) -> Result<Self> {
        let mut child = Command::new(sibling_binary("scratchpad")?)
            .args(["--store", store, "ui", "--no-open", "--http", "127.0.0.1:0"])
            .args(["--token", TOKEN])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting scratchpad ui")?;
        let mut first = String::new();
        let stdout = child
            .stdout
            .take()
            .context("no stdout from scratchpad ui")?;
        BufReader::new(stdout).read_line(&mut first)?;
        // http://127.0.0.1:PORT/?token=…
        let addr = first
            .trim()
            .strip_prefix("http://")
            .and_then(|rest| rest.split('/').next())
            .and_then(|authority| authority.parse().ok());
        match addr {
            Some(addr) => Ok(Self { child, addr }),
            None => {
                let _ = child.kill();
                bail!("scratchpad ui printed `{}`, not its address", first.trim())
            }
        }
    }

    /// One request on a new connection, as a page load makes; the body, after checking the status.
    fn get(&self, path: &str, body: &mut dyn Write) -> Result<u64> {
        let mut stream = TcpStream::connect(self.addr)?;
        stream.set_nodelay(true)?;
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n",
            self.addr
        )?;
        let mut reader = BufReader::with_capacity(1 << 16, stream);
        let mut status = String::new();
        reader.read_line(&mut status)?;
        if !status.contains(" 200 ") {
            bail!("GET {path}: {}", status.trim());
        }
        let mut chunked = false;
        loop {
            let mut header = String::new();
            reader.read_line(&mut header)?;
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            chunked |= header
                .to_ascii_lowercase()
                .starts_with("transfer-encoding: chunked");
        }
        if chunked {
            dechunk(&mut reader, body)
        } else {
            Ok(std::io::copy(&mut reader, body)?)
        }
    }
}

impl Drop for View {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body of a chunked response (a download streams in chunks).
fn dechunk(reader: &mut impl BufRead, body: &mut dyn Write) -> Result<u64> {
    let mut total = 0;
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = u64::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16)
            .with_context(|| format!("a chunk size of `{}`", size.trim()))?;
        if size == 0 {
            return Ok(total);
        }
        total += std::io::copy(&mut reader.by_ref().take(size), body)?;
        let mut end = [0u8; 2];
        reader.read_exact(&mut end)?;
    }
}

pub(crate) fn rows(entry_bytes: u64, reps: usize) -> Result<Vec<Row>> {
    let dir = tempfile::tempdir()?;
    let pad = open_pad(dir.path())?.with_session("bench")?;
    for i in 0..SESSION_ENTRIES {
        let text = format!("note {i}\n");
        pad.put(
            &mut text.as_bytes(),
            PutOptions {
                name: Some(format!("n{i}")),
                ..PutOptions::default()
            },
        )?;
    }
    let mut big = LogSource::new(entry_bytes);
    pad.put(
        &mut big,
        PutOptions {
            name: Some("big".into()),
            ..PutOptions::default()
        },
    )?;
    let info = pad.get("big")?;
    let store = format!("sqlite://{}", dir.path().join("pad.db").display());
    let view = View::start(&store)?;
    let reps = reps.max(20);

    let mut page = Vec::new();
    let mut list = Vec::new();
    let mut sink = Vec::new();
    for _ in 0..reps {
        sink.clear();
        page.push(time(|| view.get("/s/bench", &mut sink))?.0);
        list.push(time(|| Ok(pad.list(&ListFilter::default(), None, PAGE_ENTRIES)?))?.0);
    }
    if !String::from_utf8_lossy(&sink).contains("n9999") {
        bail!("the session page does not show the newest entry");
    }

    let from = info.lines / 2;
    let lines_path = format!("/api/s/bench/e/big/lines?from={from}&count={VIEWER_LINES}");
    let mode = ReadMode::Lines {
        from,
        to: Some(from + VIEWER_LINES - 1),
    };
    let mut range = Vec::new();
    let mut read = Vec::new();
    for _ in 0..reps {
        sink.clear();
        range.push(time(|| view.get(&lines_path, &mut sink))?.0);
        read.push(time(|| Ok(pad.read("big", &mode, None)?))?.0);
    }
    let served: serde_json::Value = serde_json::from_slice(&sink)?;
    let served_lines = served["lines"].as_array().map_or(0, Vec::len);
    if served_lines as u64 != VIEWER_LINES {
        bail!("the line range gave {served_lines} lines, not {VIEWER_LINES}");
    }

    let idle = rss_kib(view.child.id());
    let peak = watch_peak_rss(view.child.id());
    let (download, bytes) = time(|| view.get("/api/s/bench/e/big/raw", &mut std::io::sink()))?;
    // The watcher reads until the process is gone.
    drop(view);
    let peak_mib = peak.join().unwrap_or(0) / 1024;
    if bytes != info.bytes {
        bail!("downloaded {bytes} bytes of {}", info.bytes);
    }
    let met = |ok: bool| if ok { "met" } else { "NOT met" };
    Ok(vec![
        Row {
            name: format!("ui: session page, {SESSION_ENTRIES} entries"),
            extra: format!(
                "target ≤ {} ms: {}",
                PAGE_TARGET.as_millis(),
                met(median(&page) <= PAGE_TARGET)
            ),
            ours: page,
            baseline_name: format!("library list of {PAGE_ENTRIES}"),
            baseline: list,
            target: None,
        },
        Row {
            name: format!("ui: {VIEWER_LINES} lines from the middle"),
            extra: format!(
                "entry {} MB; target ≤ {} ms: {}",
                info.bytes / 1_000_000,
                LINES_TARGET.as_millis(),
                met(median(&range) <= LINES_TARGET)
            ),
            ours: range,
            baseline_name: "library read of the lines".into(),
            baseline: read,
            target: None,
        },
        Row {
            name: "ui: download the whole entry".into(),
            extra: format!(
                "{:.0} MB/s; peak RSS {peak_mib} MiB (idle {} MiB), target ≤ {RSS_TARGET_MIB} MiB: {}",
                bytes as f64 / download.as_secs_f64() / 1e6,
                idle / 1024,
                met(peak_mib <= RSS_TARGET_MIB)
            ),
            ours: vec![download],
            baseline_name: String::new(),
            baseline: Vec::new(),
            target: None,
        },
    ])
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
