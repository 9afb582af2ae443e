//! The Python package (`crates/scratchpad-py`) under its own pytest suite: built by
//! `scripts/python-package` into the test virtualenv and run against this binary, which the suite
//! uses to check that the CLI sees what Python stored. PostgreSQL comes from
//! `SCRATCHPAD_TEST_PG_URL`, as for every other PostgreSQL test. Nothing in it may skip.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use crate::common::clients::{bin, python_with_package};

#[test]
fn python_package_suite_passes_without_skipping() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scratchpad-py/tests");
    let output = Command::new(python_with_package())
        .args(["-m", "pytest", "-q", "-rfEs"])
        .arg(&tests)
        .env("SCRATCHPAD_BIN", bin())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "pytest failed:\n{stdout}\n{stderr}"
    );
    let summary = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert!(
        summary.contains(" passed")
            && !summary.contains("skipped")
            && !summary.contains("deselected"),
        "every Python test must run and pass: {summary}\n{stdout}"
    );
    // How many Python tests ran belongs in the suite's log, where `println!` would be captured and
    // dropped with the passing test's output: written to the process's stderr directly, it shows.
    let _ = writeln!(
        std::io::stderr(),
        "pytest (crates/scratchpad-py/tests): {summary}"
    );
}
