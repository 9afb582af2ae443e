//! Readers: slices that concatenate to the whole, line ranges, grep, jq, bytes, budgets.

use proptest::prelude::*;
use scratchpad_core::advice::Library;
use scratchpad_core::{Kind, ReadMode};

use crate::common::{Backend, log_with_errors, put};

fn grep(pattern: &str, context: u64) -> ReadMode {
    ReadMode::Grep {
        pattern: pattern.into(),
        context,
        max_matches: None,
        ignore_case: false,
        from: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn range_slices_concatenate_to_the_whole_sqlite(
        text in "[a-z\\né€😀]{0,3000}",
        cuts in proptest::collection::vec(0u64..3200, 0..6),
    ) {
        slices_concatenate(Backend::Sqlite, text, cuts)?;
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn range_slices_concatenate_to_the_whole_postgres(
        text in "[a-z\\né€😀]{0,3000}",
        cuts in proptest::collection::vec(0u64..3200, 0..6),
    ) {
        slices_concatenate(Backend::Postgres, text, cuts)?;
    }
}

fn slices_concatenate(backend: Backend, text: String, cuts: Vec<u64>) -> Result<(), TestCaseError> {
    let (_store, pad) = backend.pad();
    let info = put(&pad, "t", text.as_bytes());
    let mut bounds: Vec<u64> = cuts.into_iter().map(|c| c.min(info.chars)).collect();
    bounds.push(0);
    bounds.push(info.chars);
    bounds.sort_unstable();
    let mut whole = String::new();
    for pair in bounds.windows(2) {
        let reply = pad
            .read(
                "t",
                &ReadMode::Range {
                    start: pair[0],
                    end: Some(pair[1]),
                },
                Some(100_000),
            )
            .unwrap();
        whole.push_str(&reply.text);
    }
    prop_assert_eq!(whole, text);
    Ok(())
}

fn budgeted_reads_continue_exactly_across_chunks(backend: Backend) {
    let (_store, pad) = backend.pad();
    // Multi-byte characters across several 256 KiB chunks.
    let text: String = (0..120_000).map(|i| format!("{i}é€😀\n")).collect();
    let info = put(&pad, "big", text.as_bytes());
    let mut next = Some(ReadMode::Range {
        start: 0,
        end: None,
    });
    let mut whole = String::new();
    let mut calls = 0;
    while let Some(mode) = next {
        let reply = pad.read("big", &mode, Some(300_000)).unwrap();
        whole.push_str(&reply.text);
        next = reply.continuation;
        calls += 1;
    }
    assert_eq!(whole, text);
    assert!(calls > 3);
    assert_eq!(info.chars, text.chars().count() as u64);
}

fn lines_from_the_middle_of_a_large_entry(backend: Backend) {
    let (_store, pad) = backend.pad();
    let log = log_with_errors(200_000, &[100_000]);
    let info = put(&pad, "log", log.as_bytes());
    assert_eq!(info.lines, 200_000);
    let reply = pad
        .read(
            "log",
            &ReadMode::Lines {
                from: 99_999,
                to: Some(100_001),
            },
            None,
        )
        .unwrap();
    assert_eq!(reply.location, "lines 99,999–100,001 of 200,000");
    let lines: Vec<&str> = reply.text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(reply.first_line, Some(99_999));
    assert!(lines[1].contains("ERROR worker 100000"), "{lines:?}");
    // A model sees them numbered, with numbers it can pass back.
    assert!(
        reply
            .numbered_text()
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("100000: "),
        "{}",
        reply.numbered_text()
    );
    // Every line of the log comes back, in order, when paged by continuation.
    let mut next = Some(ReadMode::Lines { from: 1, to: None });
    let mut count = 0;
    while let Some(mode) = next {
        let reply = pad.read("log", &mode, Some(50_000)).unwrap();
        count += reply.text.lines().count();
        next = reply.continuation;
    }
    assert_eq!(count, 200_000);
}

fn line_ranges_at_chunk_boundaries_are_exact(backend: Backend) {
    let (_store, pad) = backend.pad();
    // Lines of varying length so chunk boundaries fall inside lines and right after newlines.
    let text: String = (1..=60_000)
        .map(|i| format!("{}\n", "x".repeat(i % 17)))
        .collect();
    put(&pad, "t", text.as_bytes());
    let all: Vec<&str> = text.lines().collect();
    for from in [
        1u64, 2, 15_000, 15_420, 29_999, 30_000, 44_444, 59_999, 60_000,
    ] {
        let reply = pad
            .read(
                "t",
                &ReadMode::Lines {
                    from,
                    to: Some(from),
                },
                None,
            )
            .unwrap();
        let got = reply.text.lines().next().unwrap().to_owned();
        assert_eq!(got, all[from as usize - 1], "line {from}");
    }
}

fn grep_counts_every_match_and_shows_context(backend: Backend) {
    let (_store, pad) = backend.pad();
    let log = log_with_errors(50_000, &[10, 25_000, 49_999, 50_000]);
    put(&pad, "log", log.as_bytes());
    let reply = pad.read("log", &grep("ERROR", 1), None).unwrap();
    assert_eq!(reply.total_matches, Some(4));
    assert!(reply.text.contains("25000:"), "{}", reply.text);
    assert!(reply.text.contains("24999-"), "{}", reply.text);
    assert!(reply.text.contains("25001-"), "{}", reply.text);
    assert!(reply.text.contains("--\n"));
    assert!(reply.continuation.is_none());
    // The same lines as data: what the text shows, line for line, matches told from context.
    let shown: Vec<String> = reply
        .grep_lines
        .iter()
        .map(|l| {
            format!(
                "{}{}{}",
                l.number,
                if l.matched { ':' } else { '-' },
                l.text
            )
        })
        .collect();
    let text: Vec<&str> = reply.text.lines().filter(|l| *l != "--").collect();
    assert_eq!(shown, text);
    assert_eq!(reply.grep_lines.iter().filter(|l| l.matched).count(), 4);

    let many = pad
        .read(
            "log",
            &ReadMode::Grep {
                pattern: "INFO".into(),
                context: 0,
                max_matches: Some(5),
                ignore_case: false,
                from: None,
            },
            None,
        )
        .unwrap();
    assert_eq!(many.total_matches, Some(49_996));
    assert_eq!(many.text.lines().count(), 5);
    let next = many.continuation.clone().unwrap();
    assert!(
        matches!(next, ReadMode::Grep { from: Some(6), .. }),
        "{next:?}"
    );
    let more = pad.read("log", &next, None).unwrap();
    assert!(more.text.starts_with("6:"), "{}", more.text);

    let insensitive = pad
        .read(
            "log",
            &ReadMode::Grep {
                pattern: "error".into(),
                context: 0,
                max_matches: None,
                ignore_case: true,
                from: None,
            },
            None,
        )
        .unwrap();
    assert_eq!(insensitive.total_matches, Some(4));
}

fn json_entries_answer_jq_and_show_their_shape(backend: Backend) {
    let (_store, pad) = backend.pad();
    let items: Vec<serde_json::Value> = (0..3_000)
        .map(|i| serde_json::json!({"id": i, "name": format!("item-{i}"), "tags": ["a", "b"]}))
        .collect();
    let doc = serde_json::json!({"items": items, "total": 3_000});
    let info = put(&pad, "api", doc.to_string().as_bytes());
    assert_eq!(info.kind, Kind::Json);
    assert!(info.preview.contains("items"), "{}", info.preview);
    let reply = pad
        .read(
            "api",
            &ReadMode::Json {
                query: ".items[1234].name".into(),
            },
            None,
        )
        .unwrap();
    assert_eq!(reply.text.trim(), "\"item-1234\"");
    let reply = pad
        .read(
            "api",
            &ReadMode::Json {
                query: ".total".into(),
            },
            None,
        )
        .unwrap();
    assert_eq!(reply.text.trim(), "3000");
}

fn binary_entries_read_as_base64_bytes(backend: Backend) {
    use base64::Engine as _;
    let (_store, pad) = backend.pad();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend((0..10_000u32).map(|i| (i % 251) as u8));
    let info = put(&pad, "img", &png);
    assert_eq!(info.kind, Kind::Binary);
    assert!(info.preview.contains("type=image/png"), "{}", info.preview);
    let reply = pad
        .read(
            "img",
            &ReadMode::Bytes {
                offset: 100,
                length: Some(50),
            },
            None,
        )
        .unwrap();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(reply.text)
        .unwrap();
    assert_eq!(decoded, &png[100..150]);
}

fn full_reads_are_guarded_and_head_tail_default(backend: Backend) {
    let (_store, pad) = backend.pad();
    let log = log_with_errors(20_000, &[]);
    put(&pad, "log", log.as_bytes());
    let err = pad
        .read("log", &ReadMode::Full { force: false }, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`pad.read(\"log\", ReadMode::Full { force: true })`"),
        "{err}"
    );
    let all = pad
        .read("log", &ReadMode::Full { force: true }, None)
        .unwrap();
    assert_eq!(all.text, log);
    let head = pad.read("log", &ReadMode::Head { n: None }, None).unwrap();
    assert_eq!(head.location, "lines 1–100 of 20,000");
    assert_eq!(head.text.lines().count(), 100);
    let tail = pad
        .read("log", &ReadMode::Tail { n: Some(10) }, None)
        .unwrap();
    assert_eq!(tail.text.lines().count(), 10);
    assert!(log.ends_with(&tail.text));
}

fn head(pad: &scratchpad_core::Scratchpad, name: &str, n: u64) -> scratchpad_core::ReadReply {
    pad.read(name, &ReadMode::Head { n: Some(n) }, None)
        .unwrap()
}

fn tail(pad: &scratchpad_core::Scratchpad, name: &str, n: u64) -> scratchpad_core::ReadReply {
    pad.read(name, &ReadMode::Tail { n: Some(n) }, None)
        .unwrap()
}

/// `head` and `tail` count lines, as `head -n` and `tail -n` do: they gave 3 characters for
/// `--head 3`, which a reader of Unix tools (or a model) never means.
fn head_and_tail_count_lines(backend: Backend) {
    let (_store, pad) = backend.pad();
    let ten: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    put(&pad, "ten", ten.as_bytes());
    put(&pad, "open", ten.trim_end().as_bytes());
    let first = head(&pad, "ten", 3);
    assert_eq!(first.text, "line 1\nline 2\nline 3\n");
    assert_eq!(first.location, "lines 1–3 of 10");
    assert_eq!(first.first_line, Some(1));
    assert!(!first.truncated);
    for name in ["ten", "open"] {
        let last = tail(&pad, name, 2);
        assert_eq!(last.text, "line 9\nline 10\n", "{name}");
        assert_eq!(last.location, "lines 9–10 of 10", "{name}");
        assert_eq!(last.first_line, Some(9), "{name}");
    }
    for reply in [head(&pad, "ten", 50), tail(&pad, "ten", 50)] {
        assert_eq!(reply.text, ten);
        assert_eq!(reply.location, "lines 1–10 of 10");
        assert!(reply.notes.is_empty(), "{:?}", reply.notes);
    }
    assert_eq!(head(&pad, "open", 50).text, ten);
    for reply in [head(&pad, "ten", 0), tail(&pad, "ten", 0)] {
        assert_eq!(reply.text, "");
        assert_eq!(reply.location, "no lines (the entry has 10)");
    }
    put(&pad, "empty", b"");
    assert_eq!(head(&pad, "empty", 3).text, "");
    assert_eq!(tail(&pad, "empty", 3).text, "");
}

/// Over the budget, `head` keeps its first lines and `tail` its last ones; each continuation reads
/// exactly the lines left out.
fn head_and_tail_over_the_budget_continue_by_lines(backend: Backend) {
    let (_store, pad) = backend.pad();
    let log: String = (1..=1_000).map(|i| format!("line {i:04}\n")).collect();
    put(&pad, "log", log.as_bytes());
    let first = pad
        .read("log", &ReadMode::Head { n: Some(500) }, Some(1_000))
        .unwrap();
    let shown = first.text.lines().count() as u64;
    assert!(first.truncated && (50..500).contains(&shown), "{first:?}");
    assert!(first.text.starts_with("line 0001\n"));
    assert_eq!(
        first.continuation,
        Some(ReadMode::Lines {
            from: shown + 1,
            to: Some(500)
        })
    );
    let last = pad
        .read("log", &ReadMode::Tail { n: Some(500) }, Some(1_000))
        .unwrap();
    let shown = last.text.lines().count() as u64;
    assert!(last.truncated && (50..500).contains(&shown), "{last:?}");
    assert!(last.text.ends_with("line 1000\n"));
    assert_eq!(
        last.location,
        format!("lines {}–1,000 of 1,000", 1_001 - shown)
    );
    assert_eq!(
        last.continuation,
        Some(ReadMode::Lines {
            from: 501,
            to: Some(1_000 - shown)
        })
    );
    assert!(
        last.notes[0].contains("the last 500 lines are over the reply budget"),
        "{:?}",
        last.notes
    );
}

/// A huge line without a newline stays within the budget under `head 1` and `tail 1`, and the
/// reply says which characters it holds and continues by range.
fn one_huge_line_is_bounded_under_head_and_tail(backend: Backend) {
    let (_store, pad) = backend.pad();
    let line: String = (0..5_000_000u32)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    put(&pad, "one", line.as_bytes());
    let first = head(&pad, "one", 1);
    assert!(first.text.len() <= 8_000, "{}", first.text.len());
    assert!(line.starts_with(first.text.trim_end_matches("…\n")));
    let Some(ReadMode::Range { start, end: None }) = first.continuation else {
        panic!("{:?}", first.continuation);
    };
    assert_eq!(
        start,
        first.text.trim_end_matches("…\n").chars().count() as u64
    );
    let next = pad.read("one", &first.continuation.unwrap(), None).unwrap();
    assert!(line[start as usize..].starts_with(&next.text));
    let last = tail(&pad, "one", 1);
    assert!(last.text.len() <= 8_000, "{}", last.text.len());
    let end = last.text.trim_start_matches('…').trim_end();
    assert!(line.ends_with(end), "{}", last.text);
    assert!(
        last.notes[0].contains("line 1 has") && last.notes[0].contains("over the reply budget"),
        "{:?}",
        last.notes
    );
    let Some(ReadMode::Range {
        end: Some(before), ..
    }) = last.continuation
    else {
        panic!("{:?}", last.continuation);
    };
    assert_eq!(before as usize, line.len() - end.len());
}

fn snapshot_grep_reply(backend: Backend) {
    let (_store, pad) = backend.pad();
    put(
        &pad,
        "log",
        log_with_errors(300, &[150, 151, 290]).as_bytes(),
    );
    let reply = pad.read("log", &grep("ERROR", 1), None).unwrap();
    // Named, so both backends compare with the one snapshot.
    insta::assert_snapshot!("snapshot_grep_reply", reply.render(&Library));
}

/// A read stops at its deadline or when its caller cancels it, with an error that says so; the
/// entry reads whole again afterwards.
fn reads_stop_at_their_deadline_or_when_cancelled(backend: Backend) {
    use scratchpad_core::read::Stop;
    use std::sync::atomic::AtomicBool;
    let (_store, pad) = backend.pad();
    let log = log_with_errors(50_000, &[25_000]);
    put(&pad, "log", log.as_bytes());
    let late = pad
        .read_until(
            "log",
            &grep("ERROR", 0),
            None,
            Stop::after(std::time::Duration::ZERO),
        )
        .unwrap_err();
    assert!(
        matches!(late, scratchpad_core::Error::Stopped(_)),
        "{late:?}"
    );
    assert!(late.to_string().contains("ran longer than"), "{late}");
    let cancelled = AtomicBool::new(true);
    let stop = Stop::after(std::time::Duration::from_secs(60)).or_when(&cancelled);
    let err = pad
        .read_until("log", &grep("ERROR", 0), None, stop)
        .unwrap_err();
    assert!(err.to_string().contains("cancelled"), "{err}");
    let reply = pad.read("log", &grep("ERROR", 0), None).unwrap();
    assert_eq!(reply.total_matches, Some(1));
}

/// A few characters of pattern must not compile to megabytes or match for minutes.
fn patterns_that_would_run_away_are_refused(backend: Backend) {
    let (_store, pad) = backend.pad();
    put(&pad, "line", "a".repeat(200_000).as_bytes());
    for (pattern, want) in [
        ("a{100000}", "repeats a part 100,000 times"),
        ("(a{100}){100}", "repeats a part 10,000 times"),
        ("(\\w+\\s+){200}", "compiles to more than 8 MiB"),
    ] {
        let err = pad.read("line", &grep(pattern, 0), None).unwrap_err();
        assert!(err.to_string().contains(want), "{pattern}: {err}");
    }
    let fine = pad.read("line", &grep("a{2000}", 0), None).unwrap();
    assert_eq!(fine.total_matches, Some(1));
}

backend_tests!(
    reads_stop_at_their_deadline_or_when_cancelled,
    patterns_that_would_run_away_are_refused,
    budgeted_reads_continue_exactly_across_chunks,
    lines_from_the_middle_of_a_large_entry,
    line_ranges_at_chunk_boundaries_are_exact,
    grep_counts_every_match_and_shows_context,
    json_entries_answer_jq_and_show_their_shape,
    binary_entries_read_as_base64_bytes,
    full_reads_are_guarded_and_head_tail_default,
    head_and_tail_count_lines,
    head_and_tail_over_the_budget_continue_by_lines,
    one_huge_line_is_bounded_under_head_and_tail,
    snapshot_grep_reply,
);

/// Regression: in CRLF content `$` did not match at the end of a line (the `\r` was in the way).
#[test]
fn dollar_matches_before_crlf() {
    let (_store, pad) = crate::common::pad();
    let text: String = (1..=1_000)
        .map(|i| format!("request {i} done\r\n"))
        .collect();
    crate::common::put(&pad, "crlf", text.as_bytes());
    let hit = pad
        .read("crlf", &ReadMode::grep("^request 500 done$", 0), None)
        .unwrap();
    assert_eq!(hit.total_matches, Some(1), "{}", hit.text);
    assert_eq!(hit.text, "500:request 500 done\n");
    let ends = pad
        .read("crlf", &ReadMode::grep("0 done$", 0), None)
        .unwrap();
    assert_eq!(ends.total_matches, Some(100));
}

/// Regression: a match deep inside a very long line showed the line's first 1,000 characters,
/// without the match.
#[test]
fn grep_shows_the_part_of_a_long_line_around_its_match() {
    let (_store, pad) = crate::common::pad();
    let line = format!(
        "{}NEEDLE in the haystack{}\nshort line\n",
        "x".repeat(200_000),
        "y".repeat(200_000)
    );
    crate::common::put(&pad, "long", line.as_bytes());
    let hit = pad
        .read("long", &ReadMode::grep("NEEDLE", 0), None)
        .unwrap();
    assert!(hit.text.contains("NEEDLE in the haystack"), "{}", hit.text);
    assert!(hit.text.starts_with("1:…x"), "{}", &hit.text[..40]);
    assert!(hit.text.contains("of this line's 400,022]"), "{}", hit.text);
    assert!(hit.text.len() < 2_000);
}

/// Regression: every JSON entry's hint suggested `keys` and a search for `"id"`, whatever the
/// document: `keys` of an array lists its indices, and most documents have no `id`. Each
/// suggested query now runs without error on its document and names only keys it has.
#[test]
fn json_hints_are_valid_for_their_document() {
    let (_store, pad) = crate::common::pad();
    let rows = |with_id: bool| -> Vec<serde_json::Value> {
        (0..2_000)
            .map(|i| {
                if with_id {
                    serde_json::json!({"id": i, "name": format!("item-{i}")})
                } else {
                    serde_json::json!({"sku": format!("sku-{i}"), "qty": i})
                }
            })
            .collect()
    };
    let documents = [
        (
            "object",
            serde_json::json!({"items": rows(false), "total": 2_000}),
            &["[.items[].sku] | .[:500]"][..],
        ),
        (
            "object_with_id",
            serde_json::json!({"id": "run-7", "items": rows(false)}),
            &["[.items[].sku] | .[:500]"],
        ),
        (
            "rows",
            serde_json::json!(rows(false)),
            &["[.[].sku] | .[:500]"],
        ),
        (
            "rows_with_id",
            serde_json::json!(rows(true)),
            &["[.[].name] | .[:460]"],
        ),
        (
            "settings",
            serde_json::json!({"id": "run-7", "total": 2}),
            &["keys", ".id"],
        ),
        (
            "numbers",
            serde_json::json!((0..5_000).collect::<Vec<u32>>()),
            &["length", ".[0:5]"],
        ),
        (
            "mixed",
            serde_json::json!([rows(false), [1, 2], "x".repeat(20_000)]),
            &["length", ".[0:5]"],
        ),
    ];
    for (name, document, want) in documents {
        let info = put(&pad, name, document.to_string().as_bytes());
        assert_eq!(info.kind, Kind::Json, "{name}");
        let hint = scratchpad_core::hint(&info);
        let queries: Vec<&str> = hint
            .finds
            .iter()
            .map(|(call, _)| call)
            .chain(&hint.reads)
            .map(|call| match call {
                scratchpad_core::Call::Read {
                    mode: ReadMode::Json { query },
                    ..
                } => query.as_str(),
                other => panic!("{name}: {other:?}"),
            })
            .collect();
        assert_eq!(queries, want, "{name}");
        for query in queries {
            let mode = ReadMode::Json {
                query: query.into(),
            };
            let reply = pad
                .read(name, &mode, None)
                .unwrap_or_else(|e| panic!("{name}: {query}: {e}"));
            assert!(
                !reply.text.contains("null"),
                "{name}: {query}: {}",
                reply.text
            );
        }
    }
}

/// Regression: a jq result over the budget suggested `.[0:10]` and `keys` whatever it was (a slice
/// of an object fails, `keys` of an array lists indices). The queries it suggests now run on the
/// document, whether the result is an object, an array or several values.
#[test]
fn narrower_queries_suggested_for_a_large_result_are_valid() {
    let (_store, pad) = crate::common::pad();
    let items: Vec<serde_json::Value> = (0..3_000)
        .map(|i| serde_json::json!({"sku": format!("sku-{i}"), "qty": i}))
        .collect();
    let doc = serde_json::json!({"meta": {"items": items.clone()}, "items": items});
    put(&pad, "big", doc.to_string().as_bytes());
    for (query, want) in [
        (".meta", "`.meta | [.items[].sku] | .[:500]`"),
        (".items", "`.items | [.[].sku] | .[:500]`"),
        (".items[]", "`[.items[]] | [.[].sku] | .[:500]`"),
    ] {
        let mode = ReadMode::Json {
            query: query.into(),
        };
        let reply = pad.read("big", &mode, Some(2_000)).unwrap();
        let note = reply
            .notes
            .iter()
            .find(|n| n.contains("narrow the query"))
            .unwrap_or_else(|| panic!("{query}: {:?}", reply.notes));
        assert!(note.contains(want), "{query}: {note}");
        let suggested = note
            .split("(e.g. ")
            .nth(1)
            .unwrap()
            .split(").")
            .next()
            .unwrap();
        for narrower in suggested.split(", ") {
            let narrower = narrower.trim_matches('`');
            let mode = ReadMode::Json {
                query: narrower.into(),
            };
            pad.read("big", &mode, None)
                .unwrap_or_else(|e| panic!("{query}: `{narrower}` fails: {e}"));
        }
    }
}
