//! `run -- CMD`: merged output, inline or by reference, what came on stderr, and the command's exit
//! code. The commands pause between their streams: lines written to both at once may be stored in
//! either order.

use crate::common::Pad;

#[test]
fn small_output_is_inline_and_the_exit_code_passes_through() {
    let pad = Pad::new();
    let run = pad
        .run(&[
            "run",
            "--",
            "sh",
            "-c",
            "echo hi; sleep 0.3; echo err >&2; exit 3",
        ])
        .no_panic();
    assert_eq!(run.code, 3);
    assert_eq!(run.stdout, "hi\nerr\n");
    assert_eq!(run.stderr, "[exit code 3, stored as `sh_1`]\n");
    let show = pad.ok(&["show", "sh_1"]);
    assert!(
        show.contains(
            r#"meta:    {"command":["sh","-c","echo hi; sleep 0.3; echo err >&2; exit 3"],"cwd":"#
        ),
        "{show}"
    );
    assert!(
        show.contains(r#""exit_code":3,"stderr":{"bytes":4,"last_lines":[2],"lines":1}}"#),
        "{show}"
    );
    assert!(show.contains("source:  tool sh"), "{show}");
}

#[test]
fn a_small_run_says_where_it_was_stored_and_starts_at_version_1() {
    let pad = Pad::new();
    let run = pad.run(&["run", "--", "echo", "hello"]).ok();
    assert_eq!(run.stdout, "hello\n");
    assert_eq!(run.stderr, "[stored as `echo_1`]\n");
    let show = pad.ok(&["show", "echo_1"]);
    assert!(show.contains(r#""exit_code":0"#), "{show}");
    // The exit code joins the metadata of the first version: no "metadata replaced" second one.
    let history = pad.ok(&["history", "echo_1"]);
    assert!(!history.contains("metadata replaced"), "{history}");
    assert_eq!(pad.run(&["show", "echo_1", "--json"]).json()["version"], 1);
}

#[test]
fn an_empty_failing_run_does_not_leave_an_entry_silently() {
    let pad = Pad::new();
    let run = pad.run(&["run", "--", "false"]).no_panic();
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "[no output, exit code 1, stored as `false_1`]\n"
    );
}

#[test]
fn large_output_prints_a_reference() {
    let pad = Pad::new();
    let out = pad.ok(&["run", "--", "seq", "1", "200000"]);
    assert!(
        out.starts_with("stored `seq_1` (text, 1,288,895 bytes, 200,000 lines)\n1\n2\n"),
        "{out}"
    );
    assert!(out.contains("characters omitted"), "{out}");
    assert!(
        out.contains("200000\n[exit code 0, nothing on stderr]\nFull output saved as `seq_1`."),
        "{out}"
    );
    assert!(pad.ok(&["ls"]).contains("seq_1"));
    assert_eq!(
        pad.ok(&["read", "seq_1", "--lines", "123456", "--raw"]),
        "123456\n"
    );
}

#[test]
fn a_large_output_says_what_came_on_stderr_and_how_it_ended() {
    let pad = Pad::new();
    let script = "seq 1 50000; sleep 1; echo 'warning: slow disk' >&2; seq 50001 100000; sleep 1; \
                  echo 'error: could not compile `app`' >&2; exit 101";
    let run = pad
        .run(&["run", "--name", "build", "--", "sh", "-c", script])
        .no_panic();
    assert_eq!(run.code, 101);
    let out = run.stdout;
    // stdout and stderr are two pipes read side by side, so where a stderr line lands among the
    // stdout lines depends on the scheduler (on a loaded machine, well after the `sleep`). The
    // numbers the preview shows must be the entry's own, wherever that is.
    let stored = pad.ok(&["read", "build", "--full", "--force", "--raw"]);
    let line_of = |text: &str| {
        stored
            .lines()
            .position(|line| line == text)
            .map(|i| i as u64 + 1)
            .unwrap_or_else(|| panic!("`{text}` is not in the entry"))
    };
    let (warning, error) = (
        line_of("warning: slow disk"),
        line_of("error: could not compile `app`"),
    );
    assert_eq!(stored.lines().count(), 100_002);
    // The stderr block repeats no line the preview's tail already shows (the error usually ends
    // the output, and so the tail).
    let show = pad.ok(&["show", "build", "--json"]);
    let shown: serde_json::Value = serde_json::from_str(&show).unwrap_or_default();
    let tail_from = shown["profile"]["tail_from"]
        .as_u64()
        .unwrap_or_else(|| panic!("no tail_from in {show}"));
    assert!(tail_from > warning, "{out}");
    let block = if error >= tail_from {
        format!(
            "[stderr: 2 lines, 1 of them shown above; the others:]\n{warning:>9}: warning: slow \
             disk\n[exit code 101]\n"
        )
    } else {
        format!(
            "[stderr: 2 lines:]\n{warning:>9}: warning: slow disk\n{error:>9}: error: could not \
             compile `app`\n[exit code 101]\n"
        )
    };
    assert!(out.contains(&block), "{out}");
    assert_eq!(out.matches("error: could not compile").count(), 1, "{out}");
    // Reading the numbers shown gives the stderr lines back.
    assert_eq!(
        pad.ok(&["read", "build", "--lines", &error.to_string(), "--raw"]),
        "error: could not compile `app`\n"
    );
    assert_eq!(
        pad.ok(&["read", "build", "--lines", &warning.to_string(), "--raw"]),
        "warning: slow disk\n"
    );
    let show = pad.ok(&["show", "build"]);
    assert!(
        show.contains(&format!(
            r#""exit_code":101,"stderr":{{"bytes":50,"last_lines":[{warning},{error}],"lines":2}}"#
        )),
        "{show}"
    );
}

#[test]
fn named_run_and_signals() {
    let pad = Pad::new();
    let run = pad
        .run(&[
            "run",
            "--name",
            "killed",
            "--",
            "sh",
            "-c",
            "echo before; kill -9 $$",
        ])
        .no_panic();
    assert_eq!(run.code, 128 + 9);
    assert_eq!(run.stdout, "before\n");
    assert_eq!(run.stderr, "[exit code 137, stored as `killed`]\n");
    assert!(pad.ok(&["ls"]).contains("killed"));
}

#[test]
fn a_command_that_cannot_start() {
    let pad = Pad::new();
    let run = pad
        .run(&["run", "--", "no-such-command-xyz", "arg"])
        .no_panic();
    assert_eq!(run.code, 127);
    assert_eq!(
        run.stderr,
        "error: cannot run `no-such-command-xyz`: No such file or directory\n"
    );
    assert!(run.stdout.is_empty());
}
