//! Stored content is verified whenever it is read: a corrupted chunk is an error that names the
//! entry, never a slice silently shifted, and `check` finds every damaged entry.

use scratchpad_core::store::CHUNK_BYTES;
use scratchpad_core::{Error, ReadMode};

use crate::common::{Backend, TestStore, log_with_errors, put};

/// Flips one byte of the first chunk of the content `hash` where the store keeps it.
fn corrupt(store: &TestStore, backend: Backend, hash: &str, in_side_file: bool) {
    corrupt_chunk(store, backend, hash, in_side_file, 0);
}

/// Flips one byte of chunk `seq` of the content `hash` where the store keeps it.
fn corrupt_chunk(store: &TestStore, backend: Backend, hash: &str, in_side_file: bool, seq: u32) {
    match (backend, in_side_file) {
        (Backend::Sqlite, true) => {
            // Chunks end where their content says, so where chunk `seq` starts is asked, not reckoned.
            let conn = rusqlite::Connection::open(store.sqlite_path()).unwrap();
            let start: i64 = conn
                .query_row(
                    "SELECT byte_start FROM chunks \
                     WHERE blob = (SELECT id FROM blobs WHERE hash = ?1) AND seq = ?2",
                    rusqlite::params![hash, seq],
                    |r| r.get(0),
                )
                .unwrap();
            let at = usize::try_from(start).unwrap() + 1_000;
            let path = store
                .dir
                .as_ref()
                .unwrap()
                .path()
                .join("pad.db-blobs")
                .join(hash);
            let mut bytes = std::fs::read(&path).unwrap();
            bytes[at] ^= 0x20;
            std::fs::write(&path, bytes).unwrap();
        }
        (Backend::Sqlite, false) => {
            let conn = rusqlite::Connection::open(store.sqlite_path()).unwrap();
            conn.execute(
                "UPDATE chunks SET data = CAST(replace(CAST(data AS TEXT), 'INFO', 'INF0') AS BLOB) \
                 WHERE blob = (SELECT id FROM blobs WHERE hash = ?1) AND seq = ?2",
                rusqlite::params![hash, seq],
            )
            .unwrap();
        }
        (Backend::Postgres, _) => {
            // The chunk's own row where it holds its data, else the piece it points at.
            #[cfg(feature = "postgres")]
            for sql in [
                "UPDATE chunks SET data = overlay(data placing '\\x58'::bytea from 100 for 1) \
                 WHERE blob = (SELECT id FROM blobs WHERE hash = $1) AND seq = $2 AND piece IS NULL",
                "UPDATE pieces SET data = overlay(data placing '\\x58'::bytea from 100 for 1) \
                 WHERE id = (SELECT piece FROM chunks \
                 WHERE blob = (SELECT id FROM blobs WHERE hash = $1) AND seq = $2)",
            ] {
                store
                    .admin()
                    .execute(sql, &[&hash, &i64::from(seq)])
                    .unwrap();
            }
        }
    }
}

/// Regression: a few bytes corrupted inside the database made a slice come back silently wrong.
fn a_corrupted_chunk_is_an_error_naming_the_entry(backend: Backend) {
    let (store, pad) = backend.pad();
    let small = put(&pad, "small", log_with_errors(2_000, &[1_000]).as_bytes());
    let large = put(&pad, "large", log_with_errors(60_000, &[30_000]).as_bytes());
    put(&pad, "intact", b"nothing wrong here\n");
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
    corrupt(&store, backend, &small.hash, false);
    corrupt(&store, backend, &large.hash, backend == Backend::Sqlite);

    for name in ["small", "large"] {
        let err = pad
            .read(name, &ReadMode::Head { n: Some(2_000) }, None)
            .unwrap_err();
        assert!(matches!(err, Error::Corrupt(_)), "{name}: {err:?}");
        let message = err.to_string();
        assert!(
            message.contains(&format!("`{name}`"))
                && message.contains("does not match its checksum"),
            "{message}"
        );
        assert!(
            message.contains("check"),
            "says how to check the store: {message}"
        );
    }
    assert_eq!(
        pad.read("intact", &ReadMode::Full { force: false }, None)
            .unwrap()
            .text,
        "nothing wrong here\n"
    );
    let report = pad.check(&mut |_| {}).unwrap();
    let mut hit: Vec<&str> = report
        .problems
        .iter()
        .flat_map(|problem| problem.entries.iter().map(|(_, name)| name.as_str()))
        .collect();
    hit.sort_unstable();
    assert_eq!(hit, ["large", "small"], "{report:?}");
    assert_eq!(report.blobs, 1, "the intact content checks out: {report:?}");
}

/// Whole scans (grep, summary) fetch chunks ahead on a thread of their own: a damaged chunk far
/// into the content is still an error naming the entry, never a shorter result.
fn a_damaged_chunk_deep_in_a_scan_fails_the_scan(backend: Backend) {
    let (store, pad) = backend.pad();
    let log = log_with_errors(60_000, &[59_000]);
    let large = put(&pad, "large", log.as_bytes());
    assert!(large.bytes as usize > 6 * CHUNK_BYTES, "{large:?}");
    let grep = ReadMode::Grep {
        pattern: "ERROR".into(),
        context: 1,
        max_matches: None,
        ignore_case: false,
        from: None,
    };
    assert_eq!(
        pad.read("large", &grep, None).unwrap().total_matches,
        Some(1)
    );
    corrupt_chunk(&store, backend, &large.hash, backend == Backend::Sqlite, 5);

    for mode in [grep, ReadMode::Summary { from: None }] {
        let err = pad.read("large", &mode, None).unwrap_err();
        assert!(matches!(err, Error::Corrupt(_)), "{mode:?}: {err:?}");
        let message = err.to_string();
        assert!(
            message.contains("`large`") && message.contains("chunk 5 "),
            "{message}"
        );
    }
    // What comes before the damage still reads.
    let head = pad.read("large", &ReadMode::Head { n: Some(20) }, None);
    let first_20: String = log.split_inclusive('\n').take(20).collect();
    assert_eq!(head.unwrap().text, first_20);
}

backend_tests!(
    a_corrupted_chunk_is_an_error_naming_the_entry,
    a_damaged_chunk_deep_in_a_scan_fails_the_scan
);
