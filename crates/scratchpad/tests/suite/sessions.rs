//! Sessions are walls: another session's entries are not found, by name or by id.

use crate::common::Pad;

#[test]
fn other_sessions_cannot_see_entries() {
    let pad = Pad::new();
    pad.ok(&["--session", "a", "write", "secret-plan", "only for a"]);
    let id = pad
        .run(&["--session", "a", "--json", "show", "secret-plan"])
        .ok()
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        pad.ok(&["--session", "a", "read", &id, "--raw"]),
        "only for a"
    );

    for key in ["secret-plan", id.as_str()] {
        let run = pad.run(&["--session", "b", "read", key]).fails();
        assert!(
            run.stderr
                .contains(&format!("no entry named `{key}` in session `b`")),
            "{}",
            run.stderr
        );
        pad.run(&["--session", "b", "show", key]).fails();
        pad.run(&["--session", "b", "rm", key]).fails();
    }
    assert_eq!(
        pad.ok(&["--session", "b", "ls"]),
        "no entries in session `b`\n"
    );
    assert!(
        pad.ok(&["ls"])
            .starts_with("no entries in session `default`")
    );
    // The session also comes from the environment.
    let mut cmd = pad.command(&["ls"]);
    cmd.env("SCRATCHPAD_SESSION", "a");
    let out = cmd.output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("secret-plan"));
}

#[test]
fn config_file_sets_session_and_threshold_and_flags_win() {
    let pad = Pad::new();
    let config = pad.dir.path().join("c.toml");
    std::fs::write(&config, "session = \"from-config\"\nthreshold_bytes = 10\n").unwrap();
    let config = config.to_str().unwrap();
    let out = pad.ok_stdin(&["--config", config, "put", "x"], b"0123456789abcdef\n");
    assert!(
        out.contains("Full output saved as `x`"),
        "over the 10-byte threshold: {out}"
    );
    assert!(pad.ok(&["--session", "from-config", "ls"]).contains('x'));
    pad.ok(&["--config", config, "--session", "flag", "write", "y", "z"]);
    assert!(pad.ok(&["--session", "flag", "ls"]).contains('y'));
    let bad = pad.dir.path().join("bad.toml");
    std::fs::write(&bad, "treshold_bytes = 1\n").unwrap();
    pad.run(&["--config", bad.to_str().unwrap(), "ls"]).fails();
}

#[test]
fn continuations_repeat_the_session_flag() {
    let pad = Pad::new();
    let lines: String = (1..=5_000).map(|i| format!("line {i}\n")).collect();
    pad.ok_stdin(&["--session", "cfg", "put", "log"], lines.as_bytes());
    let out = pad.ok(&[
        "--session",
        "cfg",
        "read",
        "log",
        "--lines",
        "1-5000",
        "--budget",
        "500",
    ]);
    let next = out.lines().last().unwrap();
    assert!(
        next.contains("continue with: `scratchpad --session cfg read log --lines"),
        "{next}"
    );
}
