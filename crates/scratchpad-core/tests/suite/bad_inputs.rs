//! Every bad input gets a clear error, never a panic, and leaves stored entries intact.

use scratchpad_core::{Error, PutOptions, ReadMode, Scratchpad};

use crate::common::{Backend, log_with_errors, put};

fn grep(pattern: &str) -> ReadMode {
    ReadMode::Grep {
        pattern: pattern.into(),
        context: 0,
        max_matches: None,
        ignore_case: false,
        from: None,
    }
}

fn bad_names_state_the_rule(backend: Backend) {
    let (_store, pad) = backend.pad();
    let long = "a".repeat(1_000);
    for bad in [
        "a/b",
        "../etc/passwd",
        "a..b",
        "nul\0byte",
        "",
        long.as_str(),
        "-dash",
        "sp ace",
        "é",
    ] {
        let err = pad.write(bad, "x", Default::default()).unwrap_err();
        assert!(matches!(err, Error::InvalidName { .. }), "{bad:?}: {err:?}");
        let msg = err.to_string();
        assert!(
            msg.contains("1 to 128 characters from A-Z a-z 0-9 . _ -"),
            "{msg}"
        );
        assert!(
            msg.len() < 400,
            "the message stays short even for long names: {msg}"
        );
        assert!(pad.get(bad).is_err());
        assert!(pad.with_session(bad).is_err());
    }
}

fn bad_reads_are_clear_errors_or_stated_clamps(backend: Backend) {
    let (_store, pad) = backend.pad();
    put(&pad, "log", log_with_errors(1_000, &[500]).as_bytes());
    put(&pad, "bin", b"\x00\x01\x02binary\xff");
    let cases: Vec<(&str, ReadMode, &str)> = vec![
        (
            "log",
            ReadMode::Range {
                start: 50,
                end: Some(10),
            },
            "start ≤ end",
        ),
        (
            "log",
            ReadMode::Lines {
                from: 0,
                to: Some(3),
            },
            "numbered from 1",
        ),
        (
            "log",
            ReadMode::Lines {
                from: 30,
                to: Some(3),
            },
            "from ≤ to",
        ),
        ("log", grep("("), "invalid regex `(`"),
        ("log", grep("[a-"), "invalid regex"),
        (
            "log",
            ReadMode::Json {
                query: ".a[".into(),
            },
            "not one JSON document",
        ),
        (
            "bin",
            ReadMode::Lines {
                from: 1,
                to: Some(2),
            },
            "binary",
        ),
        ("bin", grep("x"), "ReadMode::Bytes"),
        ("bin", ReadMode::Head { n: None }, "binary"),
        (
            "missing",
            ReadMode::Head { n: None },
            "no entry named `missing`",
        ),
    ];
    for (name, mode, expected) in cases {
        let err = pad.read(name, &mode, None).unwrap_err().to_string();
        assert!(err.contains(expected), "{mode:?}: {err}");
    }
    // Huge offsets are clamped and say so.
    let reply = pad
        .read(
            "log",
            &ReadMode::Range {
                start: u64::MAX - 1,
                end: Some(u64::MAX),
            },
            None,
        )
        .unwrap();
    assert!(reply.text.is_empty());
    assert!(
        reply.notes.iter().any(|n| n.contains("past the end")),
        "{:?}",
        reply.notes
    );
    let reply = pad
        .read(
            "log",
            &ReadMode::Lines {
                from: 990,
                to: Some(u64::MAX),
            },
            None,
        )
        .unwrap();
    assert_eq!(reply.text.lines().count(), 11);
    assert!(
        reply.notes.iter().any(|n| n.contains("clamped to 1,000")),
        "{:?}",
        reply.notes
    );
    let reply = pad
        .read(
            "bin",
            &ReadMode::Bytes {
                offset: u64::MAX,
                length: Some(10),
            },
            None,
        )
        .unwrap();
    assert!(reply.text.is_empty());
    // Nothing was lost.
    assert_eq!(pad.get("log").unwrap().lines, 1_000);
}

fn jq_errors_say_what_to_do(backend: Backend) {
    let (_store, pad) = backend.pad();
    put(&pad, "doc", br#"{"a": "text", "items": [1, 2]}"#);
    let err = pad
        .read(
            "doc",
            &ReadMode::Json {
                query: ".items[".into(),
            },
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(err.to_lowercase().contains("syntax"), "{err}");
    let err = pad
        .read(
            "doc",
            &ReadMode::Json {
                query: ".a + 1".into(),
            },
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(!err.is_empty());
}

fn empty_input_is_an_empty_entry(backend: Backend) {
    let (_store, pad) = backend.pad();
    let info = pad
        .put(
            &mut &b""[..],
            PutOptions {
                name: Some("empty".into()),
                ..PutOptions::default()
            },
        )
        .unwrap();
    assert_eq!((info.bytes, info.chars, info.lines), (0, 0, 0));
    assert_eq!(
        pad.read("empty", &ReadMode::Full { force: false }, None)
            .unwrap()
            .text,
        ""
    );
    assert_eq!(
        pad.read("empty", &ReadMode::Lines { from: 1, to: None }, None)
            .unwrap()
            .text,
        ""
    );
    assert_eq!(
        pad.read("empty", &grep("x"), None).unwrap().total_matches,
        Some(0)
    );
}

#[test]
fn bad_store_urls_are_refused_without_leaking_secrets() {
    // Nothing listens on port 1: with the backend built in, the error names the store (never the
    // password); without it, the build says so.
    let err = Scratchpad::open("postgres://agent:hunter2@127.0.0.1:1/pad")
        .unwrap_err()
        .to_string();
    if cfg!(feature = "postgres") {
        assert!(
            err.contains("cannot connect to PostgreSQL at agent@127.0.0.1:1/pad"),
            "{err}"
        );
    } else {
        assert!(err.contains("postgres support is not enabled"), "{err}");
    }
    assert!(!err.contains("hunter2"), "{err}");
    let err = Scratchpad::open("mysql://x").unwrap_err().to_string();
    assert!(err.contains("unknown store scheme"), "{err}");
    let err = Scratchpad::open("sqlite://").unwrap_err().to_string();
    assert!(err.contains("empty SQLite path"), "{err}");
    // Regression: an empty URL used to open a throwaway temporary database and lose every write.
    let err = Scratchpad::open("").unwrap_err().to_string();
    assert!(err.contains("store URL is empty"), "{err}");
    // Regression: a mistyped directory used to be created, starting an empty store somewhere new.
    let err = Scratchpad::open("sqlite:///no/such/dir/pad.db")
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not exist"), "{err}");
    assert!(!std::path::Path::new("/no/such/dir").exists());
}

#[test]
fn a_newer_schema_is_refused_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pad.db");
    drop(Scratchpad::open(path.to_str().unwrap()).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "INSERT INTO schema_migrations (version, applied_at) VALUES (99990101000000, 0)",
        [],
    )
    .unwrap();
    drop(conn);
    let err = Scratchpad::open(path.to_str().unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("newer scratchpad") && err.contains("upgrade"),
        "{err}"
    );
}

/// Regression: one invalid UTF-8 byte made a whole log binary, with 0 lines and no grep.
fn text_with_a_few_bad_bytes_stays_text_and_keeps_them(backend: Backend) {
    let (_store, pad) = backend.pad();
    let mut log = log_with_errors(20_000, &[]).into_bytes();
    let at = log.len() / 2;
    let line_start = log[..at].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let bad_line = b"2026-11-21T10:00:00Z ERROR caf\xe9 au lait: order rejected\n";
    log.splice(line_start..line_start, bad_line.iter().copied());
    let info = put(&pad, "latin1", &log);
    assert_eq!(info.kind, scratchpad_core::Kind::Text, "{info:?}");
    assert_eq!(info.lines, 20_001);
    assert_eq!(info.bytes, log.len() as u64, "stored as it came");
    assert!(
        info.preview.contains("1 byte is not valid UTF-8"),
        "{}",
        info.preview
    );
    let hit = pad.read("latin1", &grep("ERROR caf"), None).unwrap();
    assert_eq!(hit.total_matches, Some(1));
    assert!(
        hit.text.contains("ERROR caf\u{FFFD} au lait"),
        "{}",
        hit.text
    );
    assert!(
        hit.notes
            .iter()
            .any(|n| n.contains("mode=bytes reads it exactly")),
        "{:?}",
        hit.notes
    );
    // Slices around the bad byte agree with the counts: the whole, read in ranges, is the lossy text.
    let whole = String::from_utf8_lossy(&log).into_owned();
    assert_eq!(info.chars, whole.chars().count() as u64);
    let mut read = String::new();
    let mut start = 0;
    while start < info.chars {
        let reply = pad
            .read(
                "latin1",
                &ReadMode::Range {
                    start,
                    end: Some(start + 100_000),
                },
                Some(100_000),
            )
            .unwrap();
        read.push_str(&reply.text);
        start += 100_000;
    }
    assert_eq!(read, whole);
    // The exact bytes are still there.
    let (_, mut reader) = pad.open_content("latin1").unwrap();
    let mut stored = Vec::new();
    std::io::Read::read_to_end(&mut reader, &mut stored).unwrap();
    assert_eq!(stored, log);
    // Mostly invalid, or with NULs, it is binary.
    let noise: Vec<u8> = (0..4_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 | 0x80)
        .collect();
    assert_eq!(
        put(&pad, "noise", &noise).kind,
        scratchpad_core::Kind::Binary
    );
}

/// Regression: UTF-16 with a byte-order mark was binary with 0 lines and no grep.
fn utf16_with_a_bom_is_text(backend: Backend) {
    let (_store, pad) = backend.pad();
    let text = log_with_errors(3_000, &[1_500]);
    for (name, bom, unit) in [
        ("le", [0xFF, 0xFE], u16::to_le_bytes as fn(u16) -> [u8; 2]),
        ("be", [0xFE, 0xFF], u16::to_be_bytes),
    ] {
        let mut bytes = bom.to_vec();
        for code in text.encode_utf16() {
            bytes.extend(unit(code));
        }
        let info = put(&pad, name, &bytes);
        assert_eq!(info.kind, scratchpad_core::Kind::Text, "{name}");
        assert_eq!(info.lines, 3_000, "{name}");
        assert!(
            info.preview.contains("decoded from UTF-16"),
            "{}",
            info.preview
        );
        let hit = pad.read(name, &grep("ERROR"), None).unwrap();
        assert!(hit.text.starts_with("1500:"), "{name}: {}", hit.text);
        let lines = pad
            .read(
                name,
                &ReadMode::Lines {
                    from: 1,
                    to: Some(3),
                },
                None,
            )
            .unwrap();
        assert_eq!(
            lines.text,
            text.lines().take(3).collect::<Vec<_>>().join("\n") + "\n"
        );
    }
}

/// Regression: a note named with another entry's id shadowed that entry when read by its id.
fn an_id_shaped_name_never_shadows_an_entry_id(backend: Backend) {
    let (_store, pad) = backend.pad();
    let target = pad
        .write("target", "the real entry", Default::default())
        .unwrap();
    let err = pad
        .write(&target.id, "an impostor", Default::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("is the id of the entry `target`"), "{err}");
    pad.write("other", "x", Default::default()).unwrap();
    assert!(pad.rename("other", &target.id, None).is_err());
    let by_id = pad
        .read(&target.id, &ReadMode::Full { force: false }, None)
        .unwrap();
    assert_eq!(by_id.text, "the real entry");
}

backend_tests!(
    text_with_a_few_bad_bytes_stays_text_and_keeps_them,
    utf16_with_a_bom_is_text,
    an_id_shaped_name_never_shadows_an_entry_id,
    bad_names_state_the_rule,
    bad_reads_are_clear_errors_or_stated_clamps,
    jq_errors_say_what_to_do,
    empty_input_is_an_empty_entry,
);
