//! Every tool's success path, in both protocol eras.

use serde_json::json;

use crate::common::{ERAS, Harness, log_with_error, text};

#[tokio::test]
async fn tool_list_has_every_tool_with_described_arguments() {
    for era in ERAS {
        let h = Harness::new(era).await;
        let tools = h.client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "scratchpad_write",
                "scratchpad_read",
                "scratchpad_edit",
                "scratchpad_list",
                "scratchpad_delete",
                "scratchpad_search",
                "scratchpad_pin",
                "scratchpad_rename",
                "scratchpad_lease"
            ],
            "{era:?}"
        );
        // Fields whose name says all a model needs; every other field is described, or named in
        // backticks by the tool's description or another field's (e.g. read's `mode` names `n`).
        let self_explanatory = [
            "name",
            "if_version",
            "ignore_case",
            "length",
            "pinned",
            "kind",
            "turn",
            "new_name",
            // The lease token, which `scratchpad_lease` hands out and says to pass as `lease`.
            "lease",
            // A listing's page cursor: the page before says to pass its `next_cursor` as `cursor`.
            "cursor",
        ];
        for tool in &tools {
            let description = tool.description.as_deref().unwrap_or_default();
            assert!(description.len() > 40, "{}", tool.name);
            let props = tool.input_schema["properties"].as_object().unwrap();
            let said = format!("{description} {}", serde_json::to_string(props).unwrap());
            for (field, schema) in props {
                assert!(
                    schema.get("description").is_some()
                        || self_explanatory.contains(&field.as_str())
                        || said.contains(&format!("`{field}`")),
                    "{}.{field} is neither described nor named: {schema}",
                    tool.name
                );
            }
            assert!(
                tool.output_schema.is_some(),
                "{} has no output schema",
                tool.name
            );
        }
        let read = tools.iter().find(|t| t.name == "scratchpad_read").unwrap();
        let modes = serde_json::to_string(&read.input_schema).unwrap();
        for mode in [
            "head", "tail", "range", "lines", "grep", "json", "bytes", "full", "summary",
        ] {
            assert!(
                modes.contains(&format!("\"{mode}\"")),
                "read mode {mode} missing from the schema"
            );
        }
    }
}

#[tokio::test]
async fn plan_then_large_log_then_slices() {
    for era in ERAS {
        let h = Harness::new(era).await;
        let saved = h
            .ok(
                "scratchpad_write",
                json!({"name": "plan", "content": "1. reproduce\n2. fix"}),
            )
            .await;
        assert!(saved.starts_with("Saved `plan` (version 1"), "{saved}");

        let log = log_with_error(20_000, 12_345);
        let stored = h
            .call(
                "scratchpad_write",
                json!({"name": "build-log", "content": log}),
            )
            .await;
        let reference = text(&stored);
        assert!(
            reference.contains("12345: 2026-11-22T10:00:00Z ERROR payment 12345 declined"),
            "{reference}"
        );
        assert!(
            reference.contains("characters omitted: lines"),
            "{reference}"
        );
        assert!(
            reference.len() < 4_000,
            "the reference must be short, was {} chars",
            reference.len()
        );
        assert!(
            stored.content.iter().any(|c| c
                .as_resource_link()
                .is_some_and(|r| r.uri == "scratchpad://default/build-log")),
            "a large write links its resource"
        );

        let grep = h
            .call(
                "scratchpad_read",
                json!({"name": "build-log", "mode": "grep", "pattern": "ERROR", "context": 2}),
            )
            .await;
        let grep_text = text(&grep);
        assert!(
            grep_text.contains("12345:2026-11-22T10:00:00Z ERROR payment 12345"),
            "{grep_text}"
        );
        assert!(
            grep_text.contains("12343-") && grep_text.contains("12347-"),
            "{grep_text}"
        );
        let meta = grep.structured_content.unwrap();
        assert_eq!(meta["total_matches"], 1);
        assert_eq!(meta["truncated"], false);
        assert!(
            meta.get("text").is_none(),
            "the slice is not repeated in structured content"
        );

        let lines = h
            .ok(
                "scratchpad_read",
                json!({"name": "build-log", "mode": "lines", "from": 12_344, "to": 12_346}),
            )
            .await;
        assert!(
            lines.contains("12345: 2026-11-22T10:00:00Z ERROR"),
            "{lines}"
        );
        assert!(lines.contains("lines 12,344–12,346 of 20,000"), "{lines}");

        let tail = h
            .ok(
                "scratchpad_read",
                json!({"name": "build-log", "mode": "tail", "n": 60}),
            )
            .await;
        assert!(tail.contains("request 20000 served"), "{tail}");
        assert!(tail.contains("lines 19,941–20,000 of 20,000"), "{tail}");
        let head = h
            .ok(
                "scratchpad_read",
                json!({"name": "build-log", "mode": "head", "n": 40}),
            )
            .await;
        assert!(head.contains("INFO request 1"), "{head}");
        assert!(head.contains("lines 1–40 of 20,000"), "{head}");
        let range = h
            .ok(
                "scratchpad_read",
                json!({"name": "build-log", "mode": "range", "start": 0, "end": 20}),
            )
            .await;
        assert!(range.contains("2026-11-22T10:00:00Z"), "{range}");

        // A cut reply ends with the exact call that continues it.
        let cut = h
            .call(
                "scratchpad_read",
                json!({"name": "build-log", "mode": "lines", "from": 1, "max_chars": 500}),
            )
            .await;
        let continuation = cut.structured_content.clone().unwrap()["continuation"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            continuation.starts_with("scratchpad_read(name=\"build-log\", mode=\"lines\", from="),
            "{continuation}"
        );
        assert!(text(&cut).contains(&continuation));

        let listing = h.ok("scratchpad_list", json!({})).await;
        assert!(
            listing.contains("- build-log (text, ") && listing.contains("- plan (text, "),
            "{listing}"
        );
        assert!(listing.contains("Session total: 2 entries"), "{listing}");

        let hits = h
            .ok("scratchpad_search", json!({"query": "reproduce"}))
            .await;
        assert!(
            hits.contains("plan") && hits.contains("«reproduce»"),
            "{hits}"
        );

        let gone = h
            .ok("scratchpad_delete", json!({"name": "build-log"}))
            .await;
        assert!(gone.starts_with("removed build-log "), "{gone}");
        let listing = h.ok("scratchpad_list", json!({})).await;
        assert!(!listing.contains("build-log"), "{listing}");
    }
}

#[tokio::test]
async fn notes_are_edited_appended_pinned_and_renamed() {
    let h = Harness::new(crate::common::Era::Discover).await;
    h.ok(
        "scratchpad_write",
        json!({"name": "plan", "content": "- [ ] reproduce\n- [ ] fix\n"}),
    )
    .await;
    let edited = h
        .call(
            "scratchpad_edit",
            json!({"name": "plan", "old": "- [ ] reproduce", "new": "- [x] reproduce"}),
        )
        .await;
    assert!(
        text(&edited).contains("1 replacement; now version 2"),
        "{}",
        text(&edited)
    );
    assert_eq!(edited.structured_content.unwrap()["version"], 2);

    h.ok(
        "scratchpad_write",
        json!({"name": "plan", "content": "- [ ] ship\n", "mode": "append", "if_version": 2}),
    )
    .await;
    let full = h.ok("scratchpad_read", json!({"name": "plan"})).await;
    assert!(
        full.contains("- [x] reproduce\n- [ ] fix\n- [ ] ship"),
        "{full}"
    );

    let pinned = h.ok("scratchpad_pin", json!({"name": "plan"})).await;
    assert!(pinned.contains("pinned"), "{pinned}");
    assert!(h.pad.get("plan").unwrap().pinned);
    let renamed = h
        .ok(
            "scratchpad_rename",
            json!({"name": "plan", "new_name": "plan-v1"}),
        )
        .await;
    assert!(renamed.contains("Renamed `plan` to `plan-v1`"), "{renamed}");
    assert!(h.pad.get("plan-v1").is_ok());
    let unpinned = h
        .ok(
            "scratchpad_pin",
            json!({"name": "plan-v1", "pinned": false}),
        )
        .await;
    assert!(unpinned.contains("unpinned"), "{unpinned}");
}

#[tokio::test]
async fn json_and_binary_entries_are_read_by_query_and_bytes() {
    let h = Harness::new(crate::common::Era::Handshake).await;
    let doc = json!({"items": (0..500).map(|i| json!({"id": i, "status": if i == 321 { "failed" } else { "ok" }})).collect::<Vec<_>>()});
    let stored = h
        .ok(
            "scratchpad_write",
            json!({"name": "api", "content": doc.to_string()}),
        )
        .await;
    assert!(stored.contains("json"), "{stored}");
    let failed = h
        .ok("scratchpad_read", json!({"name": "api", "mode": "json", "query": ".items[] | select(.status == \"failed\") | .id"}))
        .await;
    assert!(failed.contains("321"), "{failed}");

    let png: Vec<u8> = [
        &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a][..],
        &[7u8; 5000][..],
    ]
    .concat();
    h.pad
        .put(
            &mut png.as_slice(),
            scratchpad_core::PutOptions {
                name: Some("shot".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let bytes = h
        .ok(
            "scratchpad_read",
            json!({"name": "shot", "mode": "bytes", "offset": 0, "length": 8}),
        )
        .await;
    assert!(
        bytes.contains("iVBORw0KGgo="),
        "base64 of the PNG magic: {bytes}"
    );
}

#[tokio::test]
async fn list_pages_with_a_cursor() {
    let h = Harness::new(crate::common::Era::Discover).await;
    for i in 0..7 {
        h.ok(
            "scratchpad_write",
            json!({"name": format!("note-{i}"), "content": "x"}),
        )
        .await;
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"limit": 3});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = h
            .call("scratchpad_list", args)
            .await
            .structured_content
            .unwrap();
        for entry in page["entries"].as_array().unwrap() {
            seen.push(entry["name"].as_str().unwrap().to_owned());
        }
        match page.get("next_cursor").and_then(|c| c.as_str()) {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    let expected: Vec<String> = (0..7).rev().map(|i| format!("note-{i}")).collect();
    assert_eq!(seen, expected, "newest first, every entry exactly once");
}

/// Regression: `mode=full force=true` on a large entry answered with one message of its whole size,
/// which clients refuse (16 MiB is the usual cap) or hang on. Now it is cut where one message
/// still fits, and continues like every budgeted read.
#[tokio::test]
async fn a_forced_full_read_is_cut_where_one_message_still_fits() {
    let h = Harness::new(crate::common::Era::Handshake).await;
    let content: String = (0..600_000).map(|i| format!("line {i:07}\n")).collect();
    h.pad
        .write("big", &content, scratchpad_core::WriteOptions::default())
        .unwrap();
    let result = h
        .call(
            "scratchpad_read",
            json!({"name": "big", "mode": "full", "force": true}),
        )
        .await;
    let shown = text(&result);
    assert!(
        shown.len() <= scratchpad_mcp::tools::MAX_REPLY_CHARS + 1_000,
        "{}",
        shown.len()
    );
    let structured = result.structured_content.unwrap();
    assert_eq!(structured["truncated"], true, "{structured}");
    let next = &structured["continuation_arguments"];
    assert_eq!(next["mode"], "range", "{structured}");
    assert_eq!(
        next["start"],
        scratchpad_mcp::tools::MAX_REPLY_CHARS,
        "{structured}"
    );
    // A budget asked for above the cap is held to it too.
    let asked = h
        .call(
            "scratchpad_read",
            json!({"name": "big", "mode": "range", "start": 0, "max_chars": 100_000_000u64}),
        )
        .await;
    assert!(text(&asked).len() <= scratchpad_mcp::tools::MAX_REPLY_CHARS + 1_000);
}

/// `head` and `tail` take `n` lines, as `head -n` and `tail -n` count them (they took characters).
#[tokio::test]
async fn head_and_tail_count_lines() {
    for era in ERAS {
        let h = Harness::new(era).await;
        let ten: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        for (name, content) in [("ten", ten.as_str()), ("open", ten.trim_end())] {
            h.ok(
                "scratchpad_write",
                json!({"name": name, "content": content}),
            )
            .await;
        }
        let read = |name: &'static str, mode: &'static str, n: u64| {
            h.ok(
                "scratchpad_read",
                json!({"name": name, "mode": mode, "n": n}),
            )
        };
        let head = read("ten", "head", 3).await;
        assert!(head.contains("lines 1–3 of 10"), "{era:?}: {head}");
        assert!(head.contains("3: line 3\n"), "{era:?}: {head}");
        assert_eq!(head.matches("line ").count(), 3, "{era:?}: {head}");
        for name in ["ten", "open"] {
            let tail = read(name, "tail", 2).await;
            assert!(tail.contains("lines 9–10 of 10"), "{era:?}: {tail}");
            assert!(tail.contains(" 9: line 9\n10: line 10"), "{era:?}: {tail}");
            assert_eq!(tail.matches("line ").count(), 2, "{era:?}: {tail}");
        }
        for mode in ["head", "tail"] {
            let all = read("ten", mode, 50).await;
            assert!(all.contains("lines 1–10 of 10"), "{era:?}: {all}");
            assert_eq!(all.matches("line ").count(), 10, "{era:?}: {all}");
        }
        // One 5 MB line without a newline: the reply stays within the budget and says how to go on.
        h.ok(
            "scratchpad_write",
            json!({"name": "one", "content": "abcdefghij".repeat(500_000)}),
        )
        .await;
        for mode in ["head", "tail"] {
            let one = read("one", mode, 1).await;
            assert!(one.len() < 10_000, "{era:?} {mode}: {}", one.len());
            assert!(
                one.contains(
                    "continue with: `scratchpad_read(name=\"one\", mode=\"range\", start="
                ),
                "{era:?} {mode}: {}",
                &one[one.len() - 300..]
            );
        }
    }
}

#[tokio::test]
async fn a_deleted_note_is_listed_undone_and_purged_and_the_replies_say_so() {
    let h = Harness::new(crate::common::Era::Discover).await;
    h.ok(
        "scratchpad_write",
        json!({"name": "plan", "content": "one"}),
    )
    .await;
    h.ok(
        "scratchpad_write",
        json!({"name": "plan", "content": "two"}),
    )
    .await;
    let gone = h.ok("scratchpad_delete", json!({"name": "plan"})).await;
    assert!(
        gone.starts_with("removed plan (2 versions kept until "),
        "{gone}"
    );
    assert!(
        gone.contains("scratchpad_delete(name=\"plan\", undo=true)")
            && gone.contains("scratchpad_delete(name=\"plan\", purge=true)"),
        "{gone}"
    );
    let removed = h.ok("scratchpad_list", json!({"removed": true})).await;
    assert!(removed.contains("- plan (id "), "{removed}");
    let history = h
        .ok(
            "scratchpad_read",
            json!({"name": "plan", "mode": "history"}),
        )
        .await;
    assert!(
        history.contains("was removed") && history.contains("v1 "),
        "{history}"
    );

    h.ok(
        "scratchpad_write",
        json!({"name": "plan", "content": "new"}),
    )
    .await;
    let refused = h
        .fails("scratchpad_delete", json!({"name": "plan", "undo": true}))
        .await;
    assert!(refused.contains("new_name=\"plan-restored\""), "{refused}");
    let back = h
        .ok(
            "scratchpad_delete",
            json!({"name": "plan", "undo": true, "new_name": "plan-old"}),
        )
        .await;
    assert!(
        back.starts_with("Restored `plan-old` with its history"),
        "{back}"
    );
    let read = h
        .ok("scratchpad_read", json!({"name": "plan-old", "version": 1}))
        .await;
    assert!(read.contains("one"), "{read}");

    let purged = h
        .ok(
            "scratchpad_delete",
            json!({"name": "plan-old", "purge": true}),
        )
        .await;
    assert!(
        purged.starts_with("purged plan-old (3 versions deleted"),
        "{purged}"
    );
}
