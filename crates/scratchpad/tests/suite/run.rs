//! `run -- CMD`: merged output, inline or by reference, and the command's exit code.

use crate::common::Pad;

#[test]
fn small_output_is_inline_and_the_exit_code_passes_through() {
    let pad = Pad::new();
    let run = pad
        .run(&["run", "--", "sh", "-c", "echo hi; echo err >&2; exit 3"])
        .no_panic();
    assert_eq!(run.code, 3);
    assert_eq!(run.stdout, "hi\nerr\n");
    assert_eq!(run.stderr, "[exit code 3]\n");
    let show = pad.ok(&["show", "sh_1"]);
    assert!(
        show.contains(r#"meta:    {"command":["sh","-c","echo hi; echo err >&2; exit 3"],"cwd":"#),
        "{show}"
    );
    assert!(show.contains("source:  tool sh"), "{show}");
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
        out.contains("200000\nFull output saved as `seq_1`."),
        "{out}"
    );
    assert!(pad.ok(&["ls"]).contains("seq_1"));
    assert_eq!(
        pad.ok(&["read", "seq_1", "--lines", "123456", "--raw"]),
        "123456\n"
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
    assert_eq!(run.stderr, "[exit code 137]\n");
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
