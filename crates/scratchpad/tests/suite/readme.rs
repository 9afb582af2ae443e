//! The README's command-line examples and those of `scratchpad --help`, run as a user pastes them:
//! into a session that already has entries, and twice in a row. `cargo` and `make` are stand-ins
//! that print a test run's log, so the examples run as written.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;

use crate::common::Pad;
use crate::common::clients::bin;

/// The fenced ```sh blocks of the README that drive the CLI on a store (not the install, build or
/// server ones).
fn readme_cli_examples() -> Vec<String> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let mut blocks = Vec::new();
    let mut block: Option<String> = None;
    for line in readme.lines() {
        match (&mut block, line.trim_end()) {
            (None, "```sh") => block = Some(String::new()),
            (Some(text), "```") => {
                if text.contains("scratchpad put ") {
                    blocks.push(text.clone());
                }
                block = None;
            }
            (Some(text), _) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// The lines under `Examples:` in `scratchpad --help`.
fn help_examples(pad: &Pad) -> String {
    let help = pad.ok(&["--help"]);
    let examples: Vec<&str> = help
        .lines()
        .skip_while(|l| l.trim() != "Examples:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    assert!(examples.len() >= 3, "no examples in --help:\n{help}");
    examples.join("\n") + "\n"
}

/// A directory for PATH with `scratchpad` and stand-ins for `cargo` and `make`: a test log of
/// 2,000 lines with a failure in the middle, as `cargo test` would print.
fn tools(pad: &Pad) -> std::path::PathBuf {
    let dir = pad.dir.path().join("bin");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(bin(), dir.join("scratchpad")).unwrap();
    let log = "#!/bin/sh\n\
        i=1\n\
        while [ $i -le 2000 ]; do\n\
          if [ $i -eq 1230 ]; then echo \"thread 'parse::t$i' panicked at src/parse.rs:12:5\"; echo \"test parse::t$i ... FAILED\";\n\
          else echo \"test parse::t$i ... ok\"; fi\n\
          i=$((i + 1))\n\
        done\n";
    for tool in ["cargo", "make"] {
        let path = dir.join(tool);
        std::fs::write(&path, log).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

#[test]
fn the_readme_and_help_examples_work_in_a_used_session_twice_in_a_row() {
    let pad = Pad::new();
    // A session that has had entries: automatic names are past their first number.
    pad.ok_stdin(&["put", "--tool", "cargo_test"], b"an earlier run\n");
    pad.ok_stdin(&["put", "--tool", "make"], b"an earlier build\n");
    let blocks = readme_cli_examples();
    assert!(!blocks.is_empty(), "no CLI example found in the README");
    let script = blocks.concat() + &help_examples(&pad);
    let path = format!(
        "{}:{}",
        tools(&pad).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for round in 1..=2 {
        let output = Command::new("sh")
            .args(["-e", "-c", &script])
            .env("PATH", &path)
            .env("HOME", pad.dir.path())
            .env("XDG_CONFIG_HOME", pad.dir.path().join("config"))
            .env("XDG_DATA_HOME", pad.dir.path().join("data"))
            .env("SCRATCHPAD_STORE", &pad.store)
            .current_dir(pad.dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success() && !stderr.contains("error"),
            "round {round} of\n{script}\nfailed:\n{stderr}\n{stdout}"
        );
        // The reads found what the examples say they find.
        assert!(
            stdout.contains("1231: test parse::t1230 ... FAILED"),
            "{stdout}"
        );
        assert!(
            stdout.contains("1260: test parse::t1259 ... ok"),
            "{stdout}"
        );
    }
}
