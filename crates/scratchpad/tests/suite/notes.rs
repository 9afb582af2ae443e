//! Notes and entry management.

use crate::common::Pad;

#[test]
fn edit_after_line_inserts_whole_lines() {
    let pad = Pad::new();
    pad.ok(&["write", "plan", "1. parse\n3. ship\n"]);
    assert_eq!(
        pad.ok(&["edit", "plan", "--after-line", "1", "--new", "2. test"]),
        "inserted 1 line after line 1 of `plan` (version 2, 3 lines)\n"
    );
    let past = pad
        .run(&["edit", "plan", "--after-line", "7", "--new", "x"])
        .fails();
    assert!(past.stderr.contains("has 3 lines"), "{}", past.stderr);
    let both = pad
        .run(&[
            "edit",
            "plan",
            "--after-line",
            "0",
            "--old",
            "x",
            "--new",
            "y",
        ])
        .fails();
    assert!(
        both.stderr.contains("cannot be used with"),
        "{}",
        both.stderr
    );
    let stale = pad
        .run(&[
            "edit",
            "plan",
            "--after-line",
            "0",
            "--new",
            "x",
            "--if-version",
            "1",
        ])
        .fails();
    assert!(stale.stderr.contains("version"), "{}", stale.stderr);
}

#[test]
fn write_append_edit() {
    let pad = Pad::new();
    assert_eq!(
        pad.ok(&["write", "plan", "1. reproduce\n"]),
        "wrote `plan` (version 1, 13 bytes)\n"
    );
    assert_eq!(
        pad.ok_stdin(&["append", "plan"], b"2. bisect\n"),
        "appended 10 bytes to `plan` (version 2, 23 bytes)\n"
    );
    pad.ok(&["append", "plan", "3. fix the bisect result\n"]);

    let out = pad.ok(&[
        "edit",
        "plan",
        "--old",
        "reproduce",
        "--new",
        "reproduce on CI",
    ]);
    assert_eq!(out, "edited `plan`: 1 replacement (version 4, 54 bytes)\n");

    let ambiguous = pad
        .run(&["edit", "plan", "--old", "bisect", "--new", "git bisect"])
        .fails();
    assert!(
        ambiguous.stderr.contains("occurs 2 times"),
        "{}",
        ambiguous.stderr
    );
    assert!(
        ambiguous.stderr.contains("--replace-all"),
        "{}",
        ambiguous.stderr
    );

    let out = pad.ok(&[
        "edit",
        "plan",
        "--old",
        "bisect",
        "--new",
        "git bisect",
        "--replace-all",
    ]);
    assert!(
        out.starts_with("edited `plan`: 2 replacements (version 5"),
        "{out}"
    );
    assert_eq!(
        pad.ok(&["read", "plan", "--raw"]),
        "1. reproduce on CI\n2. git bisect\n3. fix the git bisect result\n"
    );
}

#[test]
fn if_version_conflicts_name_the_current_version() {
    let pad = Pad::new();
    pad.ok(&["write", "n", "one"]);
    pad.ok(&["write", "n", "two", "--if-version", "1"]);
    let conflict = pad
        .run(&["write", "n", "three", "--if-version", "1"])
        .fails();
    assert_eq!(
        conflict.stderr,
        "error: version conflict on `n`: expected version 1, current version is 2; read it again and retry \
         with `--if-version 2`\n"
    );
    pad.run(&["append", "n", "x", "--if-version", "7"]).fails();
    pad.run(&[
        "edit",
        "n",
        "--old",
        "two",
        "--new",
        "2",
        "--if-version",
        "9",
    ])
    .fails();
    pad.run(&["rm", "n", "--if-version", "9"]).fails();
    assert_eq!(pad.ok(&["read", "n", "--raw"]), "two");
}

#[test]
fn mv_rm_pin_ttl() {
    let pad = Pad::new();
    pad.ok_stdin(&["put", "--tool", "grep"], b"some output\n");
    assert_eq!(
        pad.ok(&["mv", "grep_1", "findings"]),
        "renamed `grep_1` to `findings` (version 2)\n"
    );
    pad.run(&["read", "grep_1"]).fails();
    let pinned = pad.ok(&["pin", "findings"]);
    assert!(pinned.starts_with("pinned `findings`"), "{pinned}");
    assert!(pad.ok(&["ls", "--pinned"]).contains("findings"));
    let unpinned = pad.ok(&["unpin", "findings"]);
    // Renaming promoted the offload to a note, so unpinning leaves it without expiry.
    assert!(unpinned.contains("expires: never"), "{unpinned}");
    assert!(
        pad.ok(&["ls", "--pinned"])
            .starts_with("no matching entries")
    );
    assert!(
        pad.ok(&["ttl", "findings", "never"])
            .contains("never expires")
    );
    let ttl = pad.ok(&["ttl", "findings", "7d"]);
    // Within the same millisecond the remaining time is still a whole 7 days.
    assert!(
        ttl.contains("expires in 6d") || ttl.contains("expires in 7d"),
        "{ttl}"
    );
    let bad = pad.run(&["ttl", "findings", "soon"]).fails();
    assert!(bad.stderr.contains("30m, 24h"), "{}", bad.stderr);

    pad.ok(&["write", "other", "x"]);
    let rm = pad.run(&["rm", "findings", "missing", "other"]).no_panic();
    assert_eq!(rm.code, 1);
    let lines: Vec<&str> = rm.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", rm.stdout);
    assert!(lines[0].starts_with("removed findings ("), "{}", rm.stdout);
    assert!(lines[1].starts_with("removed other ("), "{}", rm.stdout);
    assert!(
        rm.stderr.starts_with("error: no entry named `missing`"),
        "{}",
        rm.stderr
    );
    assert!(
        pad.ok(&["ls"])
            .starts_with("no entries in session `default`")
    );
}

#[test]
fn turns_expire_together() {
    let pad = Pad::new();
    pad.ok_stdin(&["put", "--turn", "t1"], b"a");
    pad.ok_stdin(&["put", "--turn", "t1"], b"b");
    pad.ok_stdin(&["put", "--turn", "t2"], b"c");
    assert_eq!(pad.ok(&["ls", "--turn", "t1"]).lines().count(), 3);
    assert_eq!(
        pad.ok(&["expire-turn", "t1"]),
        "removed 2 entries tagged `t1`\n"
    );
    let ls = pad.ok(&["ls"]);
    assert!(ls.contains("put_3") && !ls.contains("put_1"), "{ls}");
}

#[test]
fn ls_filters_and_pages() {
    let pad = Pad::new();
    for i in 0..5 {
        pad.ok(&["write", &format!("note{i}"), "text"]);
    }
    pad.ok_stdin(&["put", "data", "--tool", "api"], br#"{"a": 1}"#);
    assert!(pad.ok(&["ls", "--kind", "json"]).contains("data"));
    assert!(!pad.ok(&["ls", "--kind", "text"]).contains("data"));
    assert!(pad.ok(&["ls", "--tool", "api"]).contains("data"));
    assert_eq!(pad.ok(&["ls", "--prefix", "note"]).lines().count(), 6);
    pad.run(&["ls", "--kind", "image"]).fails();

    let mut seen = Vec::new();
    let mut args: Vec<String> = ["ls", "--prefix", "note", "--limit", "2"]
        .map(String::from)
        .to_vec();
    for _page in 0..10 {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = pad.ok(&argv);
        let mut next = None;
        for line in out.lines().skip(1) {
            match line.strip_prefix("more: scratchpad ") {
                Some(cmd) => {
                    next = Some(
                        cmd.split(' ')
                            .map(|w| w.trim_matches('\'').to_owned())
                            .collect(),
                    )
                }
                None => seen.push(line.split_whitespace().next().unwrap().to_owned()),
            }
        }
        match next {
            Some(next) => args = next,
            None => break,
        }
    }
    seen.sort();
    assert_eq!(seen, ["note0", "note1", "note2", "note3", "note4"]);
}

#[test]
fn search_resolve_stats_gc() {
    let pad = Pad::new();
    pad.ok(&[
        "write",
        "fox",
        "the quick brown fox jumps over the lazy dog",
    ]);
    pad.ok(&["write", "other", "nothing to see"]);
    let hits = pad.ok(&["search", "brown"]);
    assert!(hits.starts_with("fox (text)\n"), "{hits}");
    assert!(hits.contains("«brown»"), "{hits}");
    assert!(
        pad.ok(&["search", "zebra"])
            .starts_with("no entries in session `default` match")
    );

    assert_eq!(
        pad.ok(&["resolve", "it said: {{scratchpad:fox#range=4-9}}"]),
        "it said: quick\n"
    );
    pad.run(&["resolve", "{{scratchpad:nope}}"]).fails();

    let stats = pad.ok(&["stats"]);
    assert!(stats.contains("entries:  2 (0 pinned)"), "{stats}");
    assert!(stats.contains("kept out of context"), "{stats}");

    pad.ok(&["ttl", "other", "1s"]);
    std::thread::sleep(std::time::Duration::from_millis(1_300));
    let gc = pad.ok(&["gc"]);
    assert!(
        gc.starts_with("removed 1 expired and 0 evicted entries"),
        "{gc}"
    );
    assert!(gc.contains("store on disk: "), "{gc}");
    assert!(!pad.ok(&["ls"]).contains("other"));
}

#[test]
fn rm_keeps_a_note_restorable_and_its_reply_runs_as_printed() {
    let pad = Pad::new();
    pad.ok(&["write", "plan", "draft 1"]);
    pad.ok(&["write", "plan", "draft 2"]);
    let rm = pad.ok(&["rm", "plan"]);
    assert!(
        rm.starts_with("removed plan (2 versions kept until 20"),
        "{rm}"
    );
    // The commands in the reply, as printed (without the store and session the test adds).
    assert!(rm.contains("restore with `scratchpad "), "{rm}");
    assert!(rm.contains("restore plan --removed`"), "{rm}");
    assert!(rm.contains("rm plan --purge`)"), "{rm}");
    let listed = pad.ok(&["ls", "--removed"]);
    assert!(
        listed.contains("plan") && listed.contains("KEPT UNTIL"),
        "{listed}"
    );
    let history = pad.ok(&["history", "plan"]);
    assert!(
        history.contains("removed at") && history.contains("2 versions kept"),
        "{history}"
    );

    // The name is free at once, and the new note is never overwritten by a restore.
    pad.ok(&["write", "plan", "a new plan"]);
    let refused = pad.run(&["restore", "plan", "--removed"]).fails();
    assert!(
        refused.stderr.contains("in use again"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("--removed --as plan-restored`"),
        "{}",
        refused.stderr
    );
    let restored = pad.ok(&["restore", "plan", "--removed", "--as", "plan-restored"]);
    assert!(restored.contains("with 2 earlier versions"), "{restored}");
    assert_eq!(pad.ok(&["read", "plan-restored", "--raw"]), "draft 2");
    assert_eq!(pad.ok(&["read", "plan", "--raw"]), "a new plan");

    let purged = pad.ok(&["rm", "plan", "--purge"]);
    assert!(
        purged.starts_with("purged plan (1 version deleted, "),
        "{purged}"
    );
    pad.ok(&["rm", "plan-restored"]);
    let purged = pad.ok(&["rm", "plan-restored", "--purge"]);
    assert!(
        purged.starts_with("purged plan-restored (3 versions deleted"),
        "{purged}"
    );
    assert!(
        pad.ok(&["ls", "--removed"])
            .starts_with("no removed entries")
    );
    let check = pad.ok(&["check"]);
    assert!(!check.contains("damaged"), "{check}");
}

#[test]
fn rm_of_an_output_frees_its_space_at_once() {
    let pad = Pad::new();
    pad.ok_stdin(&["put", "--tool", "cat"], "x".repeat(10_000).as_bytes());
    let rm = pad.ok(&["rm", "cat_1"]);
    assert!(
        rm.starts_with("removed cat_1 for good (a tool's output keeps no history: 1 version deleted, 10,000 bytes freed)"),
        "{rm}"
    );
    assert!(
        pad.ok(&["ls", "--removed"])
            .starts_with("no removed entries")
    );
}
