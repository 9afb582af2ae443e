//! `scratchpad ui`: the command, and the web view in a real browser. The browser half runs
//! Chromium from Debian's packages, driven by Playwright (`tests/python/ui_browser.py`, one browser
//! launch for all of it), against the binary serving a store written by the CLI.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};

use crate::common::Pad;
use crate::common::clients::browser;

/// A running `scratchpad ui`, killed when dropped, and the address it printed first.
struct Ui {
    child: Child,
    url: String,
}

impl Drop for Ui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Ui {
    fn start(pad: &Pad, args: &[&str]) -> Self {
        let mut all = vec!["ui", "--no-open"];
        all.extend_from_slice(args);
        let mut child = pad
            .command(&all)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut url = String::new();
        stdout.read_line(&mut url).unwrap();
        let stderr = child.stderr.take().unwrap();
        // Drained so the server never blocks on a full pipe; shown if a test fails.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[scratchpad ui] {line}");
            }
        });
        Self {
            child,
            url: url.trim().to_owned(),
        }
    }

    fn base(&self) -> &str {
        self.url.split("/?").next().unwrap()
    }

    /// GET with these headers; the status line and the body.
    fn get(&self, path: &str, headers: &[(&str, &str)]) -> (String, String) {
        let host = self.base().trim_start_matches("http://").to_owned();
        let mut stream = TcpStream::connect(&host).unwrap();
        let mut request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        (
            head.lines().next().unwrap_or("").to_owned(),
            body.to_owned(),
        )
    }
}

#[test]
fn ui_prints_its_address_with_a_token_first() {
    let pad = Pad::new();
    pad.ok(&["write", "plan", "1. reproduce"]);
    let ui = Ui::start(&pad, &["--http", "127.0.0.1:0", "--read-only"]);
    assert!(ui.url.starts_with("http://127.0.0.1:"), "{}", ui.url);
    let token = ui.url.split("?token=").nth(1).unwrap().to_owned();
    assert_eq!(token.len(), 32, "{}", ui.url);
    let (status, _) = ui.get("/api/sessions", &[]);
    assert!(status.contains(" 401 "), "{status}");
    let auth = format!("Bearer {token}");
    let (status, body) = ui.get("/s/default/e/plan", &[("Authorization", &auth)]);
    assert!(status.contains(" 200 "), "{status}");
    assert!(
        body.contains("1. reproduce") && body.contains("read-only"),
        "{body}"
    );
}

#[test]
fn ui_on_a_public_address_needs_a_token() {
    let pad = Pad::new();
    let run = pad.run(&["ui", "--no-open", "--http", "0.0.0.0:0"]).fails();
    assert!(run.stderr.contains("--token"), "{}", run.stderr);
}

/// Writes what the browser test looks at, through the CLI as agents would.
fn fixture(pad: &Pad) {
    let mut log = String::with_capacity(200_000 * 50);
    for i in 1..=200_000u64 {
        if i == 150_000 || i == 199_990 {
            log.push_str(&format!(
                "2026-11-21T10:00:00Z ERROR worker {i}: disk full\n"
            ));
        } else {
            log.push_str(&format!(
                "2026-11-21T10:00:00Z INFO  worker {i}: batch ok\n"
            ));
        }
    }
    pad.ok_stdin(
        &["--session", "build", "put", "--tool", "cargo_build"],
        log.as_bytes(),
    );
    pad.ok_stdin(
        &["--session", "build", "put", "--tool", "fetch_orders"],
        br#"{"items":[{"id":1,"name":"first"},{"id":2,"name":"second"}],"total":2}"#,
    );
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend((0..5_000u32).map(|i| (i % 251) as u8));
    let image = pad.dir.path().join("shot.png");
    std::fs::write(&image, png).unwrap();
    pad.ok(&[
        "--session",
        "build",
        "put",
        "--tool",
        "screenshot",
        "--file",
        image.to_str().unwrap(),
    ]);
    pad.ok(&[
        "--session",
        "build",
        "write",
        "plan",
        "1. reproduce\n2. bisect\n",
        "--author",
        "agent-a",
    ]);
    pad.ok(&[
        "--session",
        "build",
        "append",
        "plan",
        "3. fix\n",
        "--author",
        "agent-a",
    ]);
    pad.ok(&[
        "--session",
        "build",
        "edit",
        "plan",
        "--old",
        "2. bisect",
        "--new",
        "2. bisect (found a1b2c3)",
        "--author",
        "agent-b",
    ]);
    let hostile = "<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\">";
    let text = format!("{hostile}\n{}", "a line of the hostile note\n".repeat(30));
    pad.ok(&[
        "--session",
        "build",
        "write",
        "hostile",
        &text,
        "--author",
        hostile,
    ]);
    pad.ok(&[
        "--session",
        "build",
        "read",
        "cargo_build_1",
        "--grep",
        "ERROR",
    ]);
    pad.ok(&[
        "--session",
        "notes",
        "write",
        "decisions-old",
        "keep the CLI small",
    ]);
}

#[test]
fn the_view_works_in_a_real_browser() {
    let (python, chromium) = browser();
    let pad = Pad::new();
    fixture(&pad);
    let ui = Ui::start(&pad, &["--http", "127.0.0.1:0"]);
    let screenshots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-screenshots");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/ui_browser.py");
    let output = std::process::Command::new(python)
        .arg(&script)
        .arg(&ui.url)
        .arg(env!("CARGO_BIN_EXE_scratchpad"))
        .arg(&pad.store)
        .arg(&screenshots)
        .env("CHROMIUM", chromium)
        .env("HOME", pad.dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && (stdout.contains("\nok: ") || stdout.starts_with("ok: ")),
        "the browser test failed:\n{stdout}\n{stderr}"
    );
    // Shown with --nocapture: what was checked, and where the screenshots are.
    println!("{stdout}screenshots: {}", screenshots.display());
}
