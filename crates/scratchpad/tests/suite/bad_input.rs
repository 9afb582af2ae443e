//! Bad input gets a clear `error:` line and a non-zero exit, never a panic, and the store survives.

use crate::common::Pad;

#[test]
fn bad_inputs_are_refused_clearly() {
    let pad = Pad::new();
    pad.ok(&["write", "keep", "still here"]);
    pad.ok_stdin(
        &["put", "log"],
        "line one\nline two\nline three\n".as_bytes(),
    );
    pad.ok_stdin(&["put", "blob"], b"\x89PNG\r\n\x1a\n\0\0\0binary");
    let long_name = "a".repeat(1_000);

    // (args, what stderr must say)
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["write", "a/b", "x"], "invalid name `a/b`"),
        (vec!["write", "..", "x"], "invalid name `..`"),
        (vec!["write", "a..b", "x"], "do not contain `..`"),
        (vec!["write", "bad name!", "x"], "invalid name `bad name!`"),
        (vec!["write", "", "x"], "invalid name ``"),
        (vec!["write", &long_name, "x"], "(1000 characters)"),
        (vec!["read", "../etc/passwd"], "invalid name"),
        (
            vec!["read", "log", "--range", "5-2"],
            "the start 5 is after the end 2",
        ),
        (
            vec!["read", "log", "--range", "abc"],
            "invalid character range `abc`",
        ),
        (
            vec!["read", "log", "--lines", "0-3"],
            "lines are numbered from 1",
        ),
        (
            vec!["read", "log", "--lines", "-3"],
            "invalid line range `-3`",
        ),
        (
            vec!["read", "log", "--lines", "abc"],
            "invalid line range `abc`: use FROM-TO with 1-based numbers",
        ),
        (vec!["read", "log", "--lines", ""], "invalid line range ``"),
        (
            vec!["read", "log", "--bytes", "9-1"],
            "invalid byte range `9-1`",
        ),
        (vec!["read", "log", "--grep", "("], "regex"),
        (vec!["read", "blob", "--lines", "1-3"], "`blob` is binary"),
        (
            vec!["read", "blob", "--grep", "PNG"],
            "scratchpad read blob --bytes 0-3000",
        ),
        (vec!["read", "log", "--jq", "."], "not one JSON document"),
        (
            vec!["read", "missing"],
            "no entry named `missing` in session `default`",
        ),
        (vec!["put", "x", "--meta", "[1"], "invalid --meta"),
        (vec!["put", "x", "--ttl=-5m"], "invalid duration"),
        (vec!["--session", "no/slash", "ls"], "invalid session"),
        (vec!["ls", "--turn", "a b"], "invalid turn"),
        (
            vec!["--store", "foo://x", "ls"],
            "unknown store scheme `foo://`",
        ),
        (vec!["--store", "sqlite://", "ls"], "empty SQLite path"),
        (
            // Nothing listens on port 1; a build without the backend says so instead.
            vec!["--store", "postgres://user:secret@127.0.0.1:1/db", "ls"],
            if cfg!(feature = "postgres") {
                "cannot connect to PostgreSQL at user@127.0.0.1:1/db"
            } else {
                "postgres support is not enabled"
            },
        ),
        (
            // An unencoded `@` in the password: the last one ends it, so no part of it is taken
            // for the host and printed.
            vec!["--store", "postgres://user:p@secret@127.0.0.1:1/db", "ls"],
            if cfg!(feature = "postgres") {
                "cannot connect to PostgreSQL at user@127.0.0.1:1/db"
            } else {
                "postgres support is not enabled"
            },
        ),
    ];
    for (args, expected) in &cases {
        let run = pad.run(args);
        assert_ne!(run.code, 0, "{args:?} succeeded: {}", run.stdout);
        assert!(
            run.stderr.starts_with("error: "),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(expected),
            "{args:?}: expected `{expected}` in {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
        assert!(
            !run.stderr.contains("secret") && !run.stdout.contains("secret"),
            "{args:?} leaks a password"
        );
        assert_eq!(
            run.stderr.lines().count(),
            1,
            "{args:?}: one line: {}",
            run.stderr
        );
    }
    assert!(
        !pad.ok(&["ls"]).contains("put_"),
        "no failed put left an entry"
    );
    assert_eq!(pad.ok(&["read", "keep", "--raw"]), "still here");

    // Clap's own usage errors keep exit 2.
    for args in [
        vec!["read", "log", "--head", "--tail"],
        vec!["read", "log", "-C", "2"],
        vec!["bogus"],
    ] {
        let run = pad.run(&args).no_panic();
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    }
}

#[test]
fn out_of_range_reads_are_clamped_with_a_note() {
    let pad = Pad::new();
    pad.ok_stdin(&["put", "log"], b"line one\nline two\n");
    // One note that says what happened, not two that contradict each other.
    let out = pad.ok(&["read", "log", "--range", "99999999999-99999999999999"]);
    assert!(out.contains("past the end"), "{out}");
    assert!(out.contains("nothing to return"), "{out}");
    assert!(!out.contains("clamped"), "{out}");
    let out = pad.ok(&["read", "log", "--range", "5-99999999999999"]);
    assert!(out.contains("clamped to 18"), "{out}");
    let out = pad.ok(&["read", "log", "--lines", "2-9999"]);
    assert!(out.contains("clamped to 2"), "{out}");
    assert!(out.contains("2: line two"), "{out}");
    let out = pad.ok(&["read", "log", "--bytes", "99999999999-"]);
    assert!(out.contains("past the end"), "{out}");
}

#[test]
fn empty_input_is_an_empty_entry() {
    let pad = Pad::new();
    assert_eq!(
        pad.ok_stdin(&["put"], b""),
        "stored `put_1` (text, 0 bytes, 0 lines)\n"
    );
    assert_eq!(pad.ok(&["read", "put_1"]), "[put_1: chars 0–0 of 0]\n");
    assert_eq!(pad.ok(&["read", "put_1", "--raw"]), "");
    pad.ok(&["read", "put_1", "--grep", "x"]);
}

#[test]
fn open_ended_line_range_past_the_end_is_clamped() {
    let pad = Pad::new();
    pad.ok_stdin(&["put", "log"], b"line one\nline two\n");
    let out = pad.ok(&["read", "log", "--lines", "50-"]);
    assert!(out.contains("nothing to return"), "{out}");
    pad.ok_stdin(&["put", "empty"], b"");
    pad.ok(&["read", "empty", "--lines", "1-"]);
}

#[test]
fn jq_syntax_error_is_reported() {
    let pad = Pad::new();
    pad.ok_stdin(&["put", "doc"], br#"{"a": [1, 2]}"#);
    let run = pad.run(&["read", "doc", "--jq", ".a["]).fails();
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert_eq!(pad.ok(&["read", "doc", "--jq", ".a[1]", "--raw"]), "2\n");
}

/// A jq query is written by a model: one that would recurse without end, run for minutes or fill
/// the memory ends with the limit it hit (the tests run with 2 s and 512 MiB, see `JQ_LIMITS`), in a
/// worker process of its own, and the store keeps answering.
#[test]
fn runaway_jq_queries_end_with_the_limit_they_hit() {
    let pad = Pad::new();
    pad.ok_stdin(
        &["put", "orders"],
        br#"{"items": [{"id": 71}, {"id": 72}]}"#,
    );
    let deep = format!("{}.{}", "[".repeat(100), "]".repeat(100));
    let long = ".a".repeat(2_500);
    let cases: Vec<(&str, &str)> = vec![
        ("def f: 1 + f; f", "`f` calls itself"),
        (
            "def walk2(f): . as $in | f | walk2(f); walk2(.)",
            "`walk2` calls itself",
        ),
        (
            "reduce range(1e12) as $x (0; . + 1)",
            "ran longer than 2000 ms",
        ),
        ("[range(1e12)] | length", "needed more than 512 MiB"),
        (&deep, "more than 64 levels deep"),
        (&long, "over the limit of 4000"),
    ];
    for (query, want) in cases {
        let run = pad.run(&["read", "orders", "--jq", query]).fails();
        assert!(run.stderr.contains(want), "{query}: {}", run.stderr);
        assert_eq!(run.code, 1, "{query}: {}", run.stderr);
    }
    // Not recursion: a definition used after its own body, and the same words inside a string.
    let ok = pad.ok(&["read", "orders", "--jq", "def id2: .id; [.items[] | id2]"]);
    assert!(ok.contains("71") && ok.contains("72"), "{ok}");
    let ok = pad.ok(&["read", "orders", "--jq", r#""def f: f" | length"#]);
    assert!(ok.contains('8'), "{ok}");
}

/// Regression: over stdio, a line that was not JSON got no answer, a request over the line cap was
/// dropped in silence (its client waited forever), and `arguments` that were not an object got
/// -32601 "method not found".
#[test]
fn the_stdio_server_answers_every_bad_line() {
    let pad = Pad::new();
    let oversized = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "scratchpad_write", "arguments": {"name": "big", "content": "x".repeat(10_000)}}});
    let input = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        "}{ not json".to_owned(),
        oversized.to_string(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"scratchpad_list","arguments":[1,2]}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"scratchpad_list","arguments":{}}}"#.to_owned(),
    ]
    .join("\n")
        + "\n";
    let run = pad
        .run_stdin(
            &["mcp", "serve", "--max-body-bytes", "4096"],
            input.as_bytes(),
        )
        .no_panic();
    let replies: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let reply = |id: serde_json::Value| {
        replies
            .iter()
            .find(|reply| reply["id"] == id)
            .unwrap_or_else(|| panic!("no reply with id {id}: {}", run.stdout))
    };
    let garbage = reply(serde_json::Value::Null);
    assert_eq!(garbage["error"]["code"], -32700, "{garbage}");
    let big = reply(2.into());
    assert_eq!(big["error"]["code"], -32600, "{big}");
    let message = big["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("4,096 bytes") && message.contains("scratchpad put"),
        "{message}"
    );
    let misshapen = reply(3.into());
    assert_eq!(misshapen["error"]["code"], -32602, "{misshapen}");
    // The server went on serving, and stored nothing from the refused write.
    let listed = reply(4.into());
    assert_eq!(listed["result"]["isError"], false, "{listed}");
    assert!(!pad.ok(&["ls"]).contains("big"));
}
