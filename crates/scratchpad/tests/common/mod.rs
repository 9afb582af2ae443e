//! Helpers shared by the CLI tests: a throwaway store and a way to run the binary against it.

pub mod agent_shell;
pub mod clients;
pub mod disk;
pub mod model_api;

/// Tighter jq limits than the defaults (10 s, 4 GiB), so that the runaway-query tests end quickly.
pub const JQ_LIMITS: [(&str, &str); 2] = [
    ("SCRATCHPAD_JQ_TIMEOUT_MS", "2000"),
    ("SCRATCHPAD_JQ_MEMORY_MB", "512"),
];

use std::io::Write as _;
use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Output, Stdio};

use tempfile::TempDir;

/// A fresh store in a temporary directory, and the binary pointed at it.
pub struct Pad {
    pub dir: TempDir,
    pub store: String,
}

/// What one invocation did.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stdout_bytes: Vec<u8>,
    pub stderr: String,
}

impl Run {
    /// Fails the test on a non-zero exit, showing stderr.
    pub fn ok(self) -> Self {
        assert_eq!(
            self.code, 0,
            "expected success; stderr:\n{}\nstdout:\n{}",
            self.stderr, self.stdout
        );
        self.no_panic()
    }

    /// Fails the test on success; the message must be a one-line `error:` without panics.
    pub fn fails(self) -> Self {
        assert_ne!(self.code, 0, "expected failure; stdout:\n{}", self.stdout);
        assert!(
            self.stderr.starts_with("error: "),
            "stderr must start with `error:`: {:?}",
            self.stderr
        );
        self.no_panic()
    }

    pub fn no_panic(self) -> Self {
        assert!(
            !self.stderr.contains("panicked") && !self.stdout.contains("panicked"),
            "a panic: {}",
            self.stderr
        );
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }
}

impl Pad {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = format!("sqlite://{}/pad.db", dir.path().display());
        Self { dir, store }
    }

    /// The binary with the store in `SCRATCHPAD_STORE` (unless `args` pass `--store`) and an otherwise
    /// clean environment (no user config), as a user who exported the variable once.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_scratchpad"));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .envs(JQ_LIMITS)
            .current_dir(self.dir.path());
        if !args.contains(&"--store") {
            cmd.env("SCRATCHPAD_STORE", &self.store);
        }
        cmd.args(args);
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, None)
    }

    pub fn run_stdin(&self, args: &[&str], input: &[u8]) -> Run {
        self.run_with(args, Some(input))
    }

    fn run_with(&self, args: &[&str], input: Option<&[u8]>) -> Run {
        let mut cmd = self.command(args);
        cmd.stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let writer = input.map(|data| {
            let mut stdin = child.stdin.take().unwrap();
            let data = data.to_vec();
            // A thread, so a large input cannot deadlock against a full stdout pipe.
            std::thread::spawn(move || {
                let _ = stdin.write_all(&data);
            })
        });
        let output: Output = child.wait_with_output().unwrap();
        if let Some(writer) = writer {
            writer.join().unwrap();
        }
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stdout_bytes: output.stdout,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Runs and expects success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        self.run(args).ok().stdout
    }

    pub fn ok_stdin(&self, args: &[&str], input: &[u8]) -> String {
        self.run_stdin(args, input).ok().stdout
    }

    /// The temp directory as it appears in output, for snapshot filters.
    pub fn path(&self) -> String {
        self.dir.path().display().to_string()
    }
}

/// A log of `lines` lines with ERROR lines at 50,005, 60,000 (when present) and the last line.
pub fn log(lines: u64) -> String {
    let mut out = String::with_capacity(lines as usize * 42);
    for i in 1..=lines {
        if i == 50_005 || i == 60_000 || i == lines {
            out.push_str(&format!(
                "2024-05-01T12:00:00Z ERROR step {i} failed: disk full\n"
            ));
        } else {
            out.push_str(&format!("2024-05-01T12:00:00Z INFO step {i} ok\n"));
        }
    }
    out
}

/// A running `scratchpad mcp serve --http`, killed when dropped.
pub struct Server {
    pub child: Child,
    pub url: String,
    pub banner: String,
}

impl Server {
    pub fn start(pad: &Pad, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut all = vec!["mcp", "serve"];
        all.extend_from_slice(args);
        let mut cmd = pad.command(&all);
        for (key, value) in env {
            cmd.env(key, value);
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut banner = String::new();
        stderr.read_line(&mut banner).unwrap();
        let Some(start) = banner.find("http://") else {
            let _ = child.kill();
            panic!("no listening line from the server: {banner:?}");
        };
        let url = banner[start..]
            .split_whitespace()
            .next()
            .unwrap()
            .to_owned();
        // Reached through loopback whatever the bind address.
        let url = url.replace("0.0.0.0", "127.0.0.1");
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in stderr.lines() {});
        Self { child, url, banner }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
