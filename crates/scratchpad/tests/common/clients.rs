//! The real MCP clients and servers the end-to-end tests drive: the official Python SDK (a virtualenv
//! made by `scripts/python-env`) and Node 22 with the npm packages of `scripts/node-env`. Each is set up
//! once per test process; if one cannot be set up the tests fail, they never skip.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The `scratchpad` binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_scratchpad")
}

/// `PATH` with the directory of the binary under test first: the `scratchpad` a model's shell runs.
pub fn path_with_scratchpad() -> String {
    let bin_dir = Path::new(bin()).parent().unwrap();
    format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The command `name` of an npm package pinned in `scripts/node-env`; its absence fails the test.
pub fn node_cli(name: &str) -> PathBuf {
    let cli = node_prefix().join("node_modules/.bin").join(name);
    assert!(
        cli.exists(),
        "{} is missing: scripts/node-env installs it",
        cli.display()
    );
    cli
}

pub fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Runs `tests/python/SCRIPT` with `args` in the SDK's virtualenv.
pub fn python(script: &str, args: &[&str]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(script);
    Command::new(python_interpreter())
        .arg(script)
        .args(args)
        .envs(super::JQ_LIMITS)
        .output()
        .unwrap()
}

/// Runs a flow script and returns its `ok …` line; fails the test with its output otherwise, or when
/// a server under test panicked (a stdio server's stderr reaches the client's stderr).
pub fn python_flow(script: &str, args: &[&str]) -> String {
    let output = python(script, args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.starts_with("ok "),
        "{script} {:?} failed:\n{stdout}\n{stderr}",
        shown(args)
    );
    assert!(
        !stderr.contains("panicked"),
        "the server panicked:\n{stderr}"
    );
    stdout
}

/// The arguments as a failure message may show them: a store URL can hold a password.
fn shown(args: &[&str]) -> Vec<String> {
    args.iter()
        .map(|arg| {
            if arg.contains("://") && arg.contains('@') {
                "<store URL>".to_owned()
            } else {
                (*arg).to_owned()
            }
        })
        .collect()
}

/// The python of the test virtualenv with the Python package (crates/scratchpad-py) built from this
/// tree installed in it, by `scripts/python-package`.
pub fn python_with_package() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        setup(
            "python-package",
            "the Python package (maturin build of crates/scratchpad-py)",
        )
    })
}

fn python_interpreter() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| setup("python-env", "the MCP Python SDK (pip install mcp)"))
}

/// The npm prefix: `node_modules/node/bin/node` (Node 22), the conformance suite, server-everything,
/// server-filesystem, the TypeScript SDK, and the pinned Claude Code, Gemini CLI and Codex CLI.
pub fn node_prefix() -> &'static Path {
    static PREFIX: OnceLock<PathBuf> = OnceLock::new();
    PREFIX.get_or_init(|| {
        setup(
            "node-env",
            "Node 22, the conformance suite, server-everything, server-filesystem, the TypeScript SDK, \
             Claude Code, Gemini CLI and Codex CLI",
        )
    })
}

/// The python of the test virtualenv (with Playwright) and Debian's Chromium, from
/// `scripts/browser-env`, for the web view's browser tests.
pub fn browser() -> &'static (PathBuf, PathBuf) {
    static BROWSER: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    BROWSER.get_or_init(|| {
        let printed = setup(
            "browser-env",
            "Chromium (apt-get install -y chromium) and Playwright (pip, in the test virtualenv)",
        );
        let printed = printed.to_string_lossy().into_owned();
        let mut lines = printed.lines();
        let python = PathBuf::from(lines.next().unwrap_or_default());
        let chromium = PathBuf::from(lines.next().unwrap_or_default());
        assert!(
            python.is_file() && chromium.is_file(),
            "scripts/browser-env printed no python and chromium: {printed:?}"
        );
        (python, chromium)
    })
}

/// Runs `scripts/NAME`, which installs `what` if needed and prints where it is.
fn setup(name: &str, what: &str) -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .parent()
        .unwrap();
    let script = workspace.join("scripts").join(name);
    let output = Command::new(&script)
        .output()
        .unwrap_or_else(|err| panic!("cannot run {}: {err}", script.display()));
    assert!(
        output.status.success(),
        "{} could not set up {what}; these tests need it and do not skip:\n{}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}
