//! The JSON API: reads with the CLI's modes, the viewer's lines and bytes, downloads, changes that
//! honour `if_version`, and the limits every cost has.

use scratchpad_core::{ReadMode, UsageKind};
use serde_json::json;

use crate::common::{log, note, offload, serve, sqlite_pad};

#[test]
fn the_viewer_gets_any_line_range_and_long_lines_say_they_are_cut() {
    let (dir, pad) = sqlite_pad();
    let mut content = log(100_000, &[54_321]);
    content.push_str(&"x".repeat(30_000));
    content.push('\n');
    let name = offload(&pad, "cat", content.as_bytes());
    let served = serve(pad, Some(dir));
    let reply = served
        .get(&format!("/api/s/default/e/{name}/lines?from=54320&count=3"))
        .json();
    assert_eq!(reply["from"], 54_320);
    let lines = reply["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 3);
    assert!(
        lines[1]["text"]
            .as_str()
            .unwrap()
            .contains("ERROR worker 54321")
    );
    assert_eq!(lines[1]["cut"], false);
    let last = served
        .get(&format!(
            "/api/s/default/e/{name}/lines?from=100001&count=5"
        ))
        .json();
    let lines = last["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["cut"], true);
    assert_eq!(lines[0]["text"].as_str().unwrap().len(), 10_000);
    // A count past the limit is held to it.
    let many = served
        .get(&format!(
            "/api/s/default/e/{name}/lines?from=1&count=1000000"
        ))
        .json();
    assert_eq!(many["lines"].as_array().unwrap().len(), 2_000);
}

#[test]
fn reads_take_the_clis_modes_and_continue() {
    let (dir, pad) = sqlite_pad();
    let name = offload(&pad, "cat", log(3_000, &[10, 2_000]).as_bytes());
    let served = serve(pad, Some(dir));
    let grep = served
        .get(&format!(
            "/api/s/default/e/{name}/read?grep=ERROR&context=1&max=1"
        ))
        .json();
    assert_eq!(grep["total_matches"], 2);
    assert_eq!(grep["grep_lines"].as_array().unwrap().len(), 3);
    let continuation = grep["continue"].as_str().unwrap();
    assert!(
        continuation.starts_with("?grep=ERROR&context=1&max=1&from="),
        "{continuation}"
    );
    let next = served
        .get(&format!("/api/s/default/e/{name}/read{continuation}"))
        .json();
    assert!(next["text"].as_str().unwrap().contains("worker 2000"));
    let cut = served
        .get(&format!("/api/s/default/e/{name}/read?lines=1-&budget=500"))
        .json();
    assert_eq!(cut["truncated"], true);
    assert!(cut["continue"].as_str().unwrap().starts_with("?lines="));
    for bad in [
        "read",
        "read?grep=(",
        "read?grep=x&context=101",
        "read?lines=0-1",
        "read?lines=1&range=1-2",
    ] {
        let reply = served.get(&format!("/api/s/default/e/{name}/{bad}"));
        assert_eq!(reply.status, 400, "{bad}: {}", reply.text());
        assert!(reply.json()["error"].as_str().is_some());
    }
}

/// `?head=N` and `?tail=N` take lines, as the CLI's `--head` and `--tail` do; a huge line stays
/// within the budget and continues by characters.
#[test]
fn head_and_tail_take_lines() {
    let (dir, pad) = sqlite_pad();
    let ten: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    note(&pad, "ten", &ten);
    note(&pad, "open", ten.trim_end());
    note(&pad, "one", &"abcdefghij".repeat(500_000));
    let served = serve(pad, Some(dir));
    let read = |query: &str| served.get(&format!("/api/s/default/e/{query}")).json();
    let head = read("ten/read?head=3");
    assert_eq!(head["text"], "line 1\nline 2\nline 3\n");
    assert_eq!(head["location"], "lines 1–3 of 10");
    for name in ["ten", "open"] {
        let tail = read(&format!("{name}/read?tail=2"));
        assert_eq!(tail["text"], "line 9\nline 10\n", "{name}");
        assert_eq!(tail["location"], "lines 9–10 of 10", "{name}");
    }
    assert_eq!(read("ten/read?tail=50")["text"], ten.as_str());
    for mode in ["head", "tail"] {
        let one = read(&format!("one/read?{mode}=1"));
        // The page's budget (64,000 characters), not the line's 5 MB.
        assert!(one["text"].as_str().unwrap().len() < 70_000, "{mode}");
        let next = one["continue"].as_str().unwrap();
        assert!(next.starts_with("?range="), "{mode}: {next}");
    }
}

#[test]
fn binary_content_is_read_as_bytes_and_downloaded_whole() {
    let (dir, pad) = sqlite_pad();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend((0..200_000u32).map(|i| (i % 251) as u8));
    let name = offload(&pad, "screenshot", &png);
    let served = serve(pad, Some(dir));
    let hex = served
        .get(&format!("/api/s/default/e/{name}/bytes?offset=0&length=16"))
        .json();
    use base64::Engine as _;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(hex["base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(decoded, png[..16]);
    let download = served.get(&format!("/api/s/default/e/{name}/raw"));
    assert_eq!(download.status, 200);
    assert_eq!(download.body, png);
    assert_eq!(
        download.header("content-type"),
        Some("application/octet-stream")
    );
    assert!(
        download
            .header("content-disposition")
            .unwrap()
            .starts_with("attachment")
    );
    assert!(
        download
            .header("content-disposition")
            .unwrap()
            .contains(".png")
    );
    assert!(
        download
            .header("content-security-policy")
            .unwrap()
            .contains("sandbox")
    );
    let text = served.get(&format!("/api/s/default/e/{name}/read?lines=1-2"));
    assert_eq!(text.status, 422, "{}", text.text());
}

#[test]
fn a_stale_write_is_a_conflict_that_names_the_current_version() {
    let (dir, pad) = sqlite_pad();
    note(&pad, "plan", "1. reproduce\n");
    let served = serve(pad.clone(), Some(dir));
    // An agent writes while a person edits version 1.
    pad.with_author("agent-b")
        .unwrap()
        .append("plan", "2. bisect\n", Default::default())
        .unwrap();
    let stale = served.post(
        "/api/s/default/e/plan/write",
        &json!({ "text": "1. reproduce (mine)\n", "if_version": 1 }),
    );
    assert_eq!(stale.status, 409, "{}", stale.text());
    assert_eq!(stale.json()["current_version"], 2);
    let text = pad
        .read("plan", &ReadMode::Full { force: false }, None)
        .unwrap()
        .text;
    assert_eq!(text, "1. reproduce\n2. bisect\n");
    let diff = served.get("/api/s/default/e/plan/diff?from=1&to=2").json();
    assert!(diff["text"].as_str().unwrap().contains("+2. bisect"));
    let taken = served.post(
        "/api/s/default/e/plan/write",
        &json!({ "text": "mine\n", "if_version": 2 }),
    );
    assert_eq!(taken.status, 200);
    let info = pad.get("plan").unwrap();
    assert_eq!(info.version, 3);
    assert_eq!(info.author.as_deref(), Some("scratchpad ui"));
}

#[test]
fn notes_are_created_renamed_pinned_timed_restored_and_deleted() {
    let (dir, pad) = sqlite_pad();
    let served = serve(pad.clone(), Some(dir));
    let created = served.post(
        "/api/s/team/notes",
        &json!({ "name": "plan", "text": "one\n" }),
    );
    assert_eq!(created.status, 200, "{}", created.text());
    let again = served.post(
        "/api/s/team/notes",
        &json!({ "name": "plan", "text": "two\n" }),
    );
    assert_eq!(again.status, 409);
    let bad = served.post(
        "/api/s/team/notes",
        &json!({ "name": "no/slash", "text": "" }),
    );
    assert_eq!(bad.status, 400);
    let unknown = served.post(
        "/api/s/team/notes",
        &json!({ "name": "x", "colour": "red" }),
    );
    assert!(
        unknown.status == 422 || unknown.status == 400,
        "{}",
        unknown.status
    );
    assert_eq!(
        served
            .post(
                "/api/s/team/e/plan/write",
                &json!({ "text": "two\n", "if_version": 1 })
            )
            .status,
        200
    );
    assert_eq!(
        served
            .post(
                "/api/s/team/e/plan/rename",
                &json!({ "to": "plan-b", "if_version": 2 })
            )
            .status,
        200
    );
    assert_eq!(
        served
            .post(
                "/api/s/team/e/plan-b/pin",
                &json!({ "pinned": true, "if_version": 3 })
            )
            .status,
        200
    );
    let ttl = served
        .post(
            "/api/s/team/e/plan-b/ttl",
            &json!({ "ttl": "7d", "if_version": 4 }),
        )
        .json();
    assert!(ttl["entry"]["expires_at"].is_i64());
    let restored = served.post(
        "/api/s/team/e/plan-b/restore",
        &json!({ "version": 1, "if_version": 5 }),
    );
    assert_eq!(restored.status, 200, "{}", restored.text());
    let team = pad.with_session("team").unwrap();
    assert_eq!(
        team.read("plan-b", &ReadMode::Full { force: false }, None)
            .unwrap()
            .text,
        "one\n"
    );
    let history = served.get("/api/s/team/e/plan-b/history").json();
    assert_eq!(history["versions"].as_array().unwrap().len(), 6);
    let stale_delete = served.post("/api/s/team/e/plan-b/delete", &json!({ "if_version": 1 }));
    assert_eq!(stale_delete.status, 409);
    assert_eq!(
        served
            .post("/api/s/team/e/plan-b/delete", &json!({ "if_version": 6 }))
            .status,
        200
    );
    assert!(team.get("plan-b").is_err());
}

#[test]
fn savings_count_what_models_read_not_what_the_view_reads() {
    let (dir, pad) = sqlite_pad();
    let name = offload(&pad, "cargo_test", log(5_000, &[4_000]).as_bytes());
    pad.read(&name, &ReadMode::grep("ERROR", 2), None).unwrap();
    let served = serve(pad.clone(), Some(dir));
    let before = served.get("/api/usage").json();
    assert_eq!(before["reads"], 1);
    assert_eq!(before["outputs_stored"], 1);
    assert!(before["tokens_kept_out"].as_u64().unwrap() > 40_000);
    assert!(before["tokens_read_back"].as_u64().unwrap() > 0);
    assert_eq!(before["tools"][0]["tool"], "cargo_test");
    // Reading in the view is a person's read, not a model's.
    served.get(&format!("/api/s/default/e/{name}/read?lines=1-1000"));
    served.get(&format!("/s/default/e/{name}?grep=ERROR"));
    let after = served.get("/api/usage").json();
    assert_eq!(after["reads"], 1);
    let usage = pad.usage(None, None).unwrap();
    assert_eq!(
        usage
            .buckets
            .iter()
            .filter(|b| b.event == UsageKind::Read)
            .count(),
        1
    );
}

#[test]
fn search_crosses_sessions() {
    let (dir, pad) = sqlite_pad();
    note(
        &pad.with_session("a").unwrap(),
        "alpha",
        "the capacitor is loose",
    );
    note(
        &pad.with_session("b").unwrap(),
        "beta",
        "capacitor replaced",
    );
    let served = serve(pad, Some(dir));
    let hits = served.get("/api/search?q=capacitor").json();
    let mut sessions: Vec<&str> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["entry"]["session"].as_str().unwrap())
        .collect();
    sessions.sort_unstable();
    assert_eq!(sessions, ["a", "b"]);
    assert_eq!(served.get("/api/search?q=%21%21").status, 400);
    assert_eq!(served.get("/api/search?q=x&limit=1000").status, 400);
}
