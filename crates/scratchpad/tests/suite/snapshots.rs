//! What a person sees: help, a preview, a listing, a grep reply.

use crate::common::{Pad, log};

/// Masks what changes between runs: ids, times and the temporary directory.
fn settings(pad: &Pad) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&pad.path()), "[TMP]");
    settings.add_filter(r"\be[a-km-np-z2-9]{10}\b", "[ID]");
    settings
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

#[test]
fn help_texts() {
    let pad = Pad::new();
    insta::assert_snapshot!("help", pad.ok(&["--help"]));
    insta::assert_snapshot!("read_help", pad.ok(&["read", "--help"]));
    insta::assert_snapshot!("rm_help", pad.ok(&["rm", "--help"]));
    insta::assert_snapshot!("restore_help", pad.ok(&["restore", "--help"]));
}

#[test]
fn put_of_a_mid_size_log_shows_a_preview() {
    let pad = Pad::new();
    // Over the threshold, with the notable line from the middle.
    let mut input = log(400);
    input = input.replace(
        "step 200 ok",
        "step 200 FAILED: assertion `left == right` failed",
    );
    let out = pad.ok_stdin(&["put", "--tool", "cargo_test"], input.as_bytes());
    settings(&pad).bind(|| insta::assert_snapshot!("put_preview", out));
}

#[test]
fn ls_table() {
    let pad = Pad::new();
    pad.ok_stdin(&["put", "--tool", "cargo_test"], log(60_001).as_bytes());
    pad.ok_stdin(
        &["put", "response", "--ttl", "7d"],
        br#"{"items": [1, 2, 3]}"#,
    );
    pad.ok(&["write", "plan", "1. reproduce\n2. bisect\n"]);
    pad.ok(&["pin", "cargo_test_1"]);
    let out = pad.ok(&["ls"]);
    settings(&pad).bind(|| insta::assert_snapshot!("ls", out));
    let out = pad.ok(&["ls", "--limit", "2"]);
    let mut settings = settings(&pad);
    settings.add_filter(r"--cursor \S+", "--cursor [CURSOR]");
    settings.bind(|| insta::assert_snapshot!("ls_paged", out));
}

#[test]
fn grep_reply() {
    let pad = Pad::new();
    pad.ok_stdin(&["put", "build"], log(60_001).as_bytes());
    let out = pad.ok(&[
        "read", "build", "--grep", "error", "-i", "-C", "2", "--max", "2",
    ]);
    settings(&pad).bind(|| insta::assert_snapshot!("grep", out));
}
