//! A large log in, slices out.

use scratchpad_core::preview::thousands;

use crate::common::{Pad, log};

/// 120,000 lines, about 5 MB, with ERROR lines in the middle and at the end.
const LOG_LINES: u64 = 120_000;

#[test]
fn large_log_round_trip() {
    let pad = Pad::new();
    let input = log(LOG_LINES);
    let out = pad.ok_stdin(&["put", "--tool", "build"], input.as_bytes());

    // The reference: stored line, preview with the notable middle lines and exact counts, hint.
    let first = out.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "stored `build_1` (text, {} bytes, 120,000 lines)",
            thousands(input.len() as u64)
        )
    );
    assert!(out.contains("characters omitted: lines "), "{out}");
    assert!(out.contains("of 120,000 ...]"), "{out}");
    assert!(
        out.contains("50005: 2024-05-01T12:00:00Z ERROR step 50005 failed"),
        "{out}"
    );
    // One row for the repeated form, with its count and span; the hint names every line.
    assert!(
        out.contains("failed: disk full  [×3, lines 50,005–120,000]"),
        "{out}"
    );
    assert!(
        out.contains("finds error at lines 50,005, 60,000 and 120,000"),
        "{out}"
    );
    assert!(
        out.contains("ERROR step 120000 failed"),
        "the tail shows the last line: {out}"
    );
    assert!(out.contains("scratchpad read build_1 --grep"), "{out}");

    // Grep finds every match, with context and the exact total.
    let grep = pad.ok(&["read", "build_1", "--grep", "ERROR", "-C", "1"]);
    assert!(grep.contains("3 matching lines"), "{grep}");
    for n in [
        "50004-", "50005:", "50006-", "59999-", "60000:", "60001-", "119999-", "120000:",
    ] {
        assert!(grep.contains(n), "{n} missing from:\n{grep}");
    }

    // Lines from the middle.
    let lines = pad.ok(&["read", "build_1", "--lines", "50000-50010"]);
    assert!(
        lines.starts_with("[build_1: lines 50,000–50,010 of 120,000]\n"),
        "{lines}"
    );
    assert_eq!(lines.lines().count(), 12, "{lines}");
    assert!(
        lines.contains("50005: 2024-05-01T12:00:00Z ERROR step 50005"),
        "{lines}"
    );

    // --head and --tail count lines, like head -n and tail -n.
    let head = pad.ok(&["read", "build_1", "--head", "30", "--raw"]);
    let first_30: String = input.split_inclusive('\n').take(30).collect();
    assert_eq!(head, first_30);
    let tail = pad.ok(&["read", "build_1", "--tail", "20", "--raw"]);
    let last_20: String = input.split_inclusive('\n').skip(120_000 - 20).collect();
    assert_eq!(tail, last_20);
    let range = pad.ok(&["read", "build_1", "--range", "1000-1100"]);
    assert!(
        range.starts_with("[build_1: chars 1,000–1,100 of "),
        "{range}"
    );
    assert!(range.contains(&input[1000..1100]), "{range}");
    let bytes = pad.ok(&["read", "build_1", "--bytes", "0-6"]);
    assert!(bytes.contains("MjAyNC0w"), "base64 of `2024-0`: {bytes}");

    // A budget cut ends with the exact continuation.
    let cut = pad.ok(&["read", "build_1", "--lines", "1-1000"]);
    assert!(
        cut.contains("[cut at the reply budget; continue with: `scratchpad read build_1 --lines "),
        "{cut}"
    );

    // Whole reads: refused above the guard, streamed raw at any size.
    let refused = pad.run(&["read", "build_1"]).fails();
    assert!(
        refused
            .stderr
            .contains("scratchpad read build_1 --full --force"),
        "{}",
        refused.stderr
    );
    let raw = pad.run(&["read", "build_1", "--full", "--raw"]).ok();
    assert!(
        raw.stdout_bytes == input.as_bytes(),
        "--full --raw is byte-identical"
    );
}

#[test]
fn binary_and_json_entries() {
    let pad = Pad::new();
    let mut binary: Vec<u8> = (0..300_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    binary.extend_from_slice(b"\0\0tail\0");
    let out = pad.ok_stdin(&["put", "blob"], &binary);
    assert!(
        out.starts_with("stored `blob` (binary, 300,007 bytes"),
        "{out}"
    );
    assert!(out.contains("[BINARY: 300,007 bytes"), "{out}");
    let raw = pad.run(&["read", "blob", "--raw"]).ok();
    assert!(raw.stdout_bytes == binary, "binary --raw is byte-identical");

    let json = r#"{"status": "ok", "meta": {"count": 3, "owner": "ci"}, "items": [1, 2, 3]}"#;
    pad.ok_stdin(&["put", "resp"], json.as_bytes());
    let owner = pad.ok(&["read", "resp", "--jq", ".meta.owner"]);
    assert!(owner.contains("\"ci\""), "{owner}");
}

#[test]
fn small_put_prints_one_line_and_reads_back() {
    let pad = Pad::new();
    let out = pad.ok_stdin(&["put", "greeting"], b"hello\nworld\n");
    assert_eq!(out, "stored `greeting` (text, 12 bytes, 2 lines)\n");
    let file = pad.dir.path().join("in.txt");
    std::fs::write(&file, "from a file\n").unwrap();
    let out = pad.ok(&["put", "--file", file.to_str().unwrap()]);
    assert_eq!(out, "stored `put_1` (text, 12 bytes, 1 line)\n");
    assert_eq!(
        pad.ok(&["read", "greeting"]),
        "[greeting: chars 0–12 of 12]\nhello\nworld\n"
    );
    let show = pad.ok(&["show", "greeting"]);
    assert!(
        show.contains("size:    12 bytes, 12 characters, 2 lines"),
        "{show}"
    );
    assert!(show.contains("expires: never"), "{show}");
}

#[test]
fn broken_pipe_is_not_an_error() {
    use std::io::Read as _;
    let pad = Pad::new();
    pad.ok_stdin(&["put", "big"], log(100_000).as_bytes());
    let mut child = pad
        .command(&["read", "big", "--raw"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

/// The commands a message suggests, as printed: each `scratchpad …` up to the words around it.
fn suggested_commands(message: &str) -> Vec<String> {
    message
        .match_indices("scratchpad ")
        .map(|(start, _)| {
            let rest = &message[start..];
            let end = [", ", " or ", "]", "\n", "; ", "`"]
                .iter()
                .filter_map(|stop| rest.find(stop))
                .min()
                .unwrap_or(rest.len());
            rest[..end].to_owned()
        })
        .collect()
}

/// Runs a printed command as a shell would, with the binary on PATH.
fn run_as_printed(pad: &Pad, command: &str) -> std::process::Output {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_scratchpad"))
        .parent()
        .unwrap()
        .to_owned();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("sh")
        .args(["-c", &format!("{command} > /dev/null")])
        .env_clear()
        .env("PATH", path)
        .env("HOME", pad.dir.path())
        .env("XDG_CONFIG_HOME", pad.dir.path().join("config"))
        .env("SCRATCHPAD_STORE", &pad.store)
        .current_dir(pad.dir.path())
        .output()
        .unwrap()
}

/// Regression: above the size guard `read` said "pass --force", which was refused without
/// `--full`; `--raw` promised any size yet refused an old `--version`; a read of an old version
/// suggested reads of the current one; and a raw read's continuation lost `--raw`.
#[test]
fn every_command_a_read_hint_suggests_runs_as_printed() {
    let pad = Pad::new();
    let first = log(20_000);
    let second = log(20_001);
    pad.ok_stdin(&["put", "log", "--keep-history"], first.as_bytes());
    pad.ok_stdin(&["put", "log", "--keep-history"], second.as_bytes());
    let mut messages = Vec::new();
    for args in [
        vec!["read", "log"],
        vec!["read", "log", "--full"],
        vec!["read", "log", "--version", "1"],
        vec!["read", "log", "--version", "1", "--full"],
    ] {
        let refused = pad.run(&args).fails();
        messages.push((args, refused.stderr));
    }
    let cut = pad
        .run(&["read", "log", "--head", "500", "--raw", "--budget", "100"])
        .ok();
    assert!(
        cut.stderr.contains("--raw --budget 100]"),
        "a raw read goes on raw: {}",
        cut.stderr
    );
    messages.push((vec!["read", "log", "--raw", "--budget"], cut.stderr));
    let mut ran = 0;
    for (args, message) in &messages {
        let commands = suggested_commands(message);
        assert!(!commands.is_empty(), "{args:?}: {message}");
        for command in commands {
            if args.contains(&"--version") && command.contains(" read ") {
                assert!(
                    command.contains("--version 1"),
                    "{args:?} suggests a read of another version: {command}"
                );
            }
            let output = run_as_printed(&pad, &command);
            assert!(
                output.status.success(),
                "{args:?} suggested `{command}`, which failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 10, "{ran} commands");
    // What the hints and the help say each flag does, it does.
    let forced = pad.run(&["read", "log", "--force"]).ok();
    assert!(
        forced.stdout.contains("step 20001 failed"),
        "--force alone reads it all"
    );
    let old = pad.run(&["read", "log", "--version", "1", "--raw"]).ok();
    assert_eq!(
        old.stdout_bytes,
        first.as_bytes(),
        "--raw streams an old version whole"
    );
    let refused = pad.run(&["read", "log", "--force", "--head", "10"]);
    assert_ne!(refused.code, 0, "--force reads it all, never a part");
}

/// `--head N` and `--tail N` count lines, like head -n and tail -n (they counted characters: `--head
/// 3` printed three characters); the reply says so.
#[test]
fn head_and_tail_count_lines() {
    let pad = Pad::new();
    let ten: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    pad.ok_stdin(&["put", "ten"], ten.as_bytes());
    pad.ok_stdin(&["put", "open"], ten.trim_end().as_bytes());
    assert_eq!(
        pad.ok(&["read", "ten", "--head", "3"]),
        "[ten: lines 1–3 of 10]\n1: line 1\n2: line 2\n3: line 3\n"
    );
    assert_eq!(
        pad.ok(&["read", "ten", "--head", "3", "--raw"]),
        "line 1\nline 2\nline 3\n"
    );
    for name in ["ten", "open"] {
        assert_eq!(
            pad.ok(&["read", name, "--tail", "2"]),
            format!("[{name}: lines 9–10 of 10]\n 9: line 9\n10: line 10\n")
        );
        assert_eq!(
            pad.ok(&["read", name, "--tail", "2", "--raw"]),
            "line 9\nline 10\n"
        );
    }
    for flag in ["--head", "--tail"] {
        assert_eq!(pad.ok(&["read", "ten", flag, "50", "--raw"]), ten, "{flag}");
    }
}

/// A 5 MB line without a newline under `--head 1` stays within the reply budget, and the reply ends
/// with the command that reads on from where it was cut.
#[test]
fn head_of_one_huge_line_is_bounded_and_continues_by_range() {
    let pad = Pad::new();
    let line = "abcdefghij".repeat(500_000);
    pad.ok_stdin(&["put", "one"], line.as_bytes());
    let out = pad.ok(&["read", "one", "--head", "1"]);
    assert!(out.len() < 9_000, "{}", out.len());
    assert!(
        out.starts_with("[one: lines 1–1 of 1]\n"),
        "{}",
        &out[..200]
    );
    let next = out.lines().last().unwrap();
    assert!(
        next.starts_with("[cut at the reply budget; continue with: `scratchpad read one --range "),
        "{next}"
    );
    let command = code_spans(next)[0];
    let words: Vec<&str> = command.split(' ').collect();
    let more = pad.ok(&words[1..]);
    assert!(more.starts_with("[one: chars "), "{}", &more[..100]);
    let tail = pad.ok(&["read", "one", "--tail", "1"]);
    assert!(tail.len() < 9_000, "{}", tail.len());
    assert!(
        tail.contains("hij\n"),
        "the end of the line: {}",
        &tail[tail.len() - 100..]
    );
}

/// The code spans of `text` (single backticks).
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Splits a command as a POSIX shell does for the quoting the CLI prints: words, and
/// single-quoted words with `'\''` for a quote inside.
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    let mut escaped = false;
    for c in command.chars() {
        if escaped {
            word.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\'' => {
                quoted = !quoted;
                in_word = true;
            }
            '\\' if !quoted => {
                escaped = true;
                in_word = true;
            }
            ' ' if !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Regression: the hint's calls ended a sentence (`--tail 2000.`), so a copied call failed. Every
/// call a preview's hint prints is a code span that runs as printed, and its search finds the
/// lines it says it finds.
#[test]
fn the_calls_a_hint_prints_run_as_printed() {
    let pad = Pad::new();
    for (file, promised) in [
        ("cargo_build_error.txt", &["367:", "380:", "390:"][..]),
        ("eslint_stylish.txt", &["1777:", "2963:"]),
        ("gcc_error.txt", &["212:", "276:"]),
        ("apt_upgrade_plan.txt", &["16:", "50:"]),
        ("find_headers.txt", &["/usr/include/"]),
    ] {
        let path = format!(
            "{}/../scratchpad-core/tests/real/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let name = file.trim_end_matches(".txt");
        let out = pad.ok(&["put", name, "--file", &path]);
        let hint = out
            .lines()
            .find(|l| l.starts_with("Full output saved as"))
            .unwrap_or_else(|| panic!("no hint: {out}"));
        let calls: Vec<&str> = code_spans(hint)
            .into_iter()
            .filter(|span| span.starts_with("scratchpad "))
            .collect();
        assert!(calls.len() >= 3, "{hint}");
        for call in calls {
            let words = shell_words(call);
            let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
            let reply = pad.ok(&args);
            if args.contains(&"--grep") {
                for line in promised {
                    assert!(reply.contains(line), "{call}: {line} not in\n{reply}");
                }
            }
        }
    }
}

/// Splits `command` like [`shell_words`], or says why a shell would not: a quote left open.
fn parses_as_shell_words(command: &str) -> Result<Vec<String>, String> {
    let quotes = command.matches('\'').count() - command.matches("\\'").count();
    if !quotes.is_multiple_of(2) {
        return Err(format!("a quote left open in `{command}`"));
    }
    if command.ends_with(['.', ',', ';', ':']) {
        return Err(format!("`{command}` ends with a sentence's punctuation"));
    }
    Ok(shell_words(command))
}

/// The line numbers a hint says its search finds: those after "at line(s)", up to the sentence's
/// end.
fn promised_lines(finds: &str) -> Vec<String> {
    let sentence = finds.split(". ").next().unwrap_or(finds);
    let mut out = Vec::new();
    for part in sentence.split(';') {
        let Some(at) = part.find(" at line") else {
            continue;
        };
        for word in part[at..].split(' ') {
            // `1,777,` in a list: the thousands' commas stay, the list's goes.
            let digits = word.trim_end_matches(['.', ',']).replace(',', "");
            if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                out.push(format!("{digits}:"));
            }
        }
    }
    out
}

/// Stores `content` under `name` through the CLI and runs every call its hint prints: each parses
/// as a shell would, ends where the call ends, succeeds, and reads what it says it reads.
fn hint_calls_deliver(pad: &Pad, name: &str, content: &[u8]) -> Result<usize, String> {
    let out = pad.ok_stdin(&["put", name], content);
    let Some(hint) = out.lines().find(|l| l.starts_with("Full output saved as")) else {
        return Ok(0);
    };
    let lines = content.split(|&b| b == b'\n').count() - usize::from(content.ends_with(b"\n"));
    let mut ran = 0;
    for (i, span) in hint.split('`').enumerate().skip(1).step_by(2) {
        if !span.starts_with("scratchpad ") {
            continue;
        }
        let words = parses_as_shell_words(span)?;
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let run = pad.run(&args);
        if run.code != 0 {
            return Err(format!("`{span}` failed: {}", run.stderr));
        }
        let reply = &run.stdout;
        let after = hint.split('`').nth(i + 1).unwrap_or("");
        if args.contains(&"--grep") {
            let promised = promised_lines(after);
            for line in &promised {
                if !reply
                    .lines()
                    .any(|l| l.trim_start().starts_with(line.as_str()))
                {
                    return Err(format!("`{span}`{after}: {line} not in\n{reply}"));
                }
            }
        } else if let Some(at) = args.iter().position(|&a| a == "--lines") {
            let first = args[at + 1].split(['-', '–']).next().unwrap_or("");
            if !reply
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{first}:")))
            {
                return Err(format!("`{span}`: line {first} not in\n{reply}"));
            }
        } else if args.contains(&"--tail")
            && !reply
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{lines}:")))
        {
            return Err(format!("`{span}`: the last line ({lines}) not in\n{reply}"));
        }
        ran += 1;
    }
    Ok(ran)
}

/// Every real output of the core's corpus: the calls its hint prints run and deliver.
#[test]
fn the_calls_every_real_output_s_hint_prints_deliver() {
    let pad = Pad::new();
    let dir = format!(
        "{}/../scratchpad-core/tests/real",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut ran = 0;
    for (i, path) in files.iter().enumerate() {
        let content = std::fs::read(path).unwrap();
        ran += hint_calls_deliver(&pad, &format!("real{i}"), &content)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    assert!(ran >= 3 * 10, "{ran} calls");
}

/// Lines of generated outputs: services' log lines, progress and metric lines, prose and code
/// that name levels, and the failures of compilers, linters, Python and test runners.
fn generated_line() -> impl proptest::strategy::Strategy<Value = Vec<String>> {
    use proptest::prelude::*;
    let word = "[a-z]{3,8}";
    prop_oneof![
        8 => (0u32..99_999).prop_map(|n| vec![format!("2026-11-21T10:00:01Z INFO worker {n}: processed batch ok")]),
        2 => (0u32..9_999, 0u32..9_999).prop_map(|(s, e)| vec![format!("step {s} processed, error: 0.{e:04}, errors: 0")]),
        1 => (word, word).prop_map(|(a, b)| vec![format!("    the {a} run logged ERROR and a FATAL {b}")]),
        1 => (word, 1u32..999).prop_map(|(w, n)| vec![
            "error[E0308]: mismatched types".to_owned(),
            format!("  --> src/{w}.rs:{n}:22"),
            "   |".to_owned(),
            format!("{n} |     let cents: u64 = {w} * 100.0;"),
            "   |                      ^^^^^^^^^^^ expected `u64`, found `f64`".to_owned(),
            String::new(),
        ]),
        1 => (word, 1u32..999).prop_map(|(w, n)| vec![
            String::new(),
            "Traceback (most recent call last):".to_owned(),
            format!("  File \"/home/dev/app/{w}.py\", line {n}, in main"),
            "    total = amount / scale".to_owned(),
            format!("ZeroDivisionError: division by zero in '{w}'"),
        ]),
        1 => (word, 1u32..999).prop_map(|(w, n)| vec![
            format!("/home/dev/shop/src/{w}.js"),
            format!("  {n}:7  error  '{w}' is not defined  no-undef"),
            format!("  {n}:9  warning  Unexpected console statement  no-console"),
            String::new(),
        ]),
        1 => word.prop_map(|w| vec![format!("FAILED tests/test_{w}.py::test_{w} - assert 'a' == \"b\"")]),
        1 => (0u32..99_999).prop_map(|n| vec![format!("2026-11-21T10:00:01Z WARN cache shard {n} cold")]),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// For generated outputs too, every call a hint prints parses, runs and reads what it says.
    #[test]
    fn the_calls_a_generated_output_s_hint_prints_deliver(
        lines in proptest::collection::vec(generated_line(), 60..400),
    ) {
        let text: String = lines.concat().iter().map(|l| format!("{l}\n")).collect();
        let pad = Pad::new();
        if let Err(why) = hint_calls_deliver(&pad, "out", text.as_bytes()) {
            proptest::prop_assert!(false, "{}", why);
        }
    }
}
