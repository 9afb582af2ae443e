//! A large input whose content is stored already costs a hash, not a write: the second copy takes
//! the stored blob and the preview of an entry that holds it, and is in every fact the entry that
//! reading it again would have made.

use std::io::{Seek, SeekFrom, Write};

use scratchpad_core::{
    Config, EntryInfo, Kind, PutOptions, ReadMode, Scratchpad, SearchHit, preview::PreviewConfig,
};

use crate::common::{Backend, log_with_errors};

/// Stores `file` from where it is, counting the progress reports: one report means the content
/// was taken from the store, several that it was read chunk by chunk.
fn put_file(pad: &Scratchpad, name: &str, file: &mut std::fs::File) -> (EntryInfo, usize) {
    let mut reports = 0;
    let mut count = |_: u64| reports += 1;
    let info = pad
        .put_file(
            file,
            PutOptions {
                name: Some(name.to_owned()),
                progress: Some(&mut count),
                ..PutOptions::default()
            },
        )
        .unwrap();
    (info, reports)
}

fn temp_file(content: &[u8]) -> std::fs::File {
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(content).unwrap();
    file.seek(SeekFrom::Start(0)).unwrap();
    file
}

/// What an entry is, whatever its name and when it was written.
fn facts(info: &EntryInfo) -> impl PartialEq + std::fmt::Debug {
    (
        info.kind,
        info.bytes,
        info.chars,
        info.lines,
        info.hash.clone(),
        info.preview.clone(),
        info.profile.clone(),
        info.mime.clone(),
    )
}

fn names(hits: &[SearchHit]) -> Vec<&str> {
    hits.iter().map(|hit| hit.entry.name.as_str()).collect()
}

/// A large log, a JSON document and binary bytes, each written twice from a file and once from
/// memory.
fn a_second_copy_is_the_first_in_every_fact(backend: Backend) {
    let (_store, pad) = backend.pad();
    let mut log = log_with_errors(40_000, &[7, 39_990]);
    log.push_str("the last line names zanzibar\n");
    let json = format!(
        "[{}]",
        (0..30_000)
            .map(|i| format!(r#"{{"id": {i}, "status": "ok", "tags": ["a", "b"]}}"#))
            .collect::<Vec<_>>()
            .join(",")
    );
    let binary: Vec<u8> = (0..2_000_000u32).map(|i| (i % 251) as u8).collect();
    for (label, content, kind) in [
        ("log", log.as_bytes(), Kind::Text),
        ("json", json.as_bytes(), Kind::Json),
        ("bin", &binary[..], Kind::Binary),
    ] {
        assert!(content.len() > 1_048_576, "{label} must be large");
        let mut file = temp_file(content);
        let (first, reports) = put_file(&pad, &format!("{label}_first"), &mut file);
        assert!(
            reports > 1,
            "{label}: the first copy is read chunk by chunk"
        );
        assert_eq!(first.kind, kind);
        let mut file = temp_file(content);
        let (second, reports) = put_file(&pad, &format!("{label}_second"), &mut file);
        assert_eq!(
            reports, 1,
            "{label}: the second copy is taken from the store"
        );
        assert_eq!(facts(&second), facts(&first), "{label}");
        let third = pad
            .put_bytes(
                content,
                PutOptions {
                    name: Some(format!("{label}_third")),
                    ..PutOptions::default()
                },
            )
            .unwrap();
        assert_eq!(facts(&third), facts(&first), "{label} from memory");
        // The copies read as the first does.
        let mode = match kind {
            Kind::Text => ReadMode::grep("ERROR", 1),
            Kind::Json => ReadMode::Json {
                query: ".[29999].id".into(),
            },
            Kind::Binary => ReadMode::Bytes {
                offset: 1_999_000,
                length: Some(100),
            },
        };
        let want = pad.read(&first.name, &mode, None).unwrap().text;
        for copy in [&second.name, &third.name] {
            assert_eq!(pad.read(copy, &mode, None).unwrap().text, want, "{copy}");
        }
    }
    // Search sees the copies' starts and ends as it sees the first's.
    let hits = pad.search("zanzibar", 10).unwrap();
    let mut found = names(&hits);
    found.sort_unstable();
    assert_eq!(found, ["log_first", "log_second", "log_third"]);
    // Deleting the first leaves the copies whole.
    pad.delete("log_first", None).unwrap();
    let hit = pad
        .read("log_second", &ReadMode::grep("ERROR", 0), None)
        .unwrap();
    assert!(hit.text.contains("39990:"), "{}", hit.text);
}

/// Content stored under other preview settings (another release's rules are the same case) is
/// read again, so the copy's preview is the one its own settings make.
fn other_preview_settings_read_the_content_again(backend: Backend) {
    let store = backend.store();
    let log = log_with_errors(40_000, &[20_000]);
    let pad = Scratchpad::open_with(Some(&store.url), Config::default()).unwrap();
    let (first, _) = put_file(&pad, "first", &mut temp_file(log.as_bytes()));
    let terse = Config {
        preview: PreviewConfig {
            head_chars: 100,
            tail_chars: 100,
            ..PreviewConfig::default()
        },
        ..Config::default()
    };
    let pad = Scratchpad::open_with(Some(&store.url), terse.clone()).unwrap();
    let (second, reports) = put_file(&pad, "second", &mut temp_file(log.as_bytes()));
    assert!(reports > 1, "read again under other settings");
    assert_eq!(second.hash, first.hash);
    assert!(
        second.preview.len() < first.preview.len(),
        "the copy's preview follows its own settings"
    );
    // Under those settings, the next copy takes the second's preview.
    let (third, reports) = put_file(&pad, "third", &mut temp_file(log.as_bytes()));
    assert_eq!(reports, 1);
    assert_eq!(third.preview, second.preview);
}

/// A file is stored from where it is read next; a UTF-16 file is stored as UTF-8 (under another
/// hash) and is read again each time.
fn a_file_is_stored_from_where_it_stands(backend: Backend) {
    let (_store, pad) = backend.pad();
    let log = log_with_errors(40_000, &[30_000]);
    let mut prefixed = b"a header line that is not stored\n".to_vec();
    prefixed.extend_from_slice(log.as_bytes());
    let (first, _) = put_file(&pad, "whole", &mut temp_file(log.as_bytes()));
    // Content of the same size but another hash is hashed, then read again from where it was.
    let other = log.replacen("ERROR", "error", 1);
    assert_eq!(other.len(), log.len());
    let mut file = temp_file(other.as_bytes());
    let (different, reports) = put_file(&pad, "other", &mut file);
    assert!(reports > 1, "stored from the input");
    assert_ne!(different.hash, first.hash);
    assert_eq!(different.bytes, first.bytes);
    let read = pad
        .read("other", &ReadMode::grep("error worker", 0), None)
        .unwrap();
    assert!(read.text.starts_with("30000:"), "{}", read.text);
    let mut file = temp_file(&prefixed);
    file.seek(SeekFrom::Start(33)).unwrap();
    let (rest, reports) = put_file(&pad, "rest", &mut file);
    assert_eq!(reports, 1);
    assert_eq!(facts(&rest), facts(&first));

    let mut utf16 = vec![0xFF, 0xFE];
    for unit in log.encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    let (a, _) = put_file(&pad, "utf16_a", &mut temp_file(&utf16));
    let (b, reports) = put_file(&pad, "utf16_b", &mut temp_file(&utf16));
    assert!(reports > 1, "UTF-16 is transcoded each time");
    assert_eq!(facts(&a), facts(&b));
    assert_eq!(a.hash, first.hash, "stored as its UTF-8 form");
}

backend_tests!(
    a_second_copy_is_the_first_in_every_fact,
    other_preview_settings_read_the_content_again,
    a_file_is_stored_from_where_it_stands,
);
