//! Helpers shared by the engine's integration tests.

use scratchpad_core::{Config, EntryInfo, PutOptions, Scratchpad};
use tempfile::TempDir;

/// A scratchpad on a fresh SQLite file that lives as long as the returned directory.
pub fn pad() -> (TempDir, Scratchpad) {
    pad_with(Config::default())
}

pub fn pad_with(config: Config) -> (TempDir, Scratchpad) {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open_with(Some(&store_url(&dir)), config).unwrap();
    (dir, pad)
}

pub fn store_url(dir: &TempDir) -> String {
    format!("sqlite://{}/pad.db", dir.path().display())
}

pub fn put(pad: &Scratchpad, name: &str, content: &[u8]) -> EntryInfo {
    let mut input = content;
    pad.put(
        &mut input,
        PutOptions {
            name: Some(name.to_owned()),
            ..PutOptions::default()
        },
    )
    .unwrap()
}

/// A log of `lines` lines whose only ERROR lines are at the given 1-based numbers.
pub fn log_with_errors(lines: u64, errors: &[u64]) -> String {
    let mut out = String::new();
    for i in 1..=lines {
        if errors.contains(&i) {
            out.push_str(&format!(
                "2026-11-21T10:00:{:02}Z ERROR worker {i}: connection reset by peer\n",
                i % 60
            ));
        } else {
            out.push_str(&format!(
                "2026-11-21T10:00:{:02}Z INFO worker {i}: processed batch ok\n",
                i % 60
            ));
        }
    }
    out
}

/// A child process that is killed when the test ends, whether it passed or not.
pub struct ChildGuard(pub std::process::Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs this test binary again as a child that executes only `test` (an ignored test) with `env`.
pub fn spawn_child(test: &str, env: &[(&str, String)]) -> ChildGuard {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        test,
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdout(std::process::Stdio::null());
    ChildGuard(cmd.spawn().unwrap())
}
