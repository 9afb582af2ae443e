//! Every page, at its address, with what it must show; stored markup stays text.

use scratchpad_core::{ListFilter, WriteOptions};

use crate::common::{HOSTILE, log, note, offload, serve, sqlite_pad};

/// A store with a log (errors at lines 1,500 and 2,900), a JSON output, a note with three versions,
/// and hostile text in every place a page shows stored text.
fn fixture() -> (
    tempfile::TempDir,
    scratchpad_core::Scratchpad,
    String,
    String,
) {
    let (dir, pad) = sqlite_pad();
    let build = pad.with_session("build").unwrap();
    let log_name = offload(
        &build,
        "cargo_build",
        log(3_000, &[1_500, 2_900]).as_bytes(),
    );
    let json_name = offload(
        &build,
        "fetch_orders",
        br#"{"items":[{"id":1,"name":"first"},{"id":2,"name":"second"}],"total":2}"#,
    );
    let author = build.with_author("agent-a").unwrap();
    note(&author, "plan", "1. reproduce\n2. bisect\n");
    author
        .append("plan", "3. fix\n", WriteOptions::default())
        .unwrap();
    author
        .edit("plan", "2. bisect", "2. bisect (found a1b2c3)", false, None)
        .unwrap();
    let hostile = build.with_author(HOSTILE).unwrap();
    note(&hostile, "hostile", &format!("{HOSTILE}\n{}", log(50, &[])));
    offload(
        &hostile,
        HOSTILE,
        format!("{HOSTILE}\n").repeat(2_000).as_bytes(),
    );
    (dir, pad, log_name, json_name)
}

#[test]
fn every_page_is_served_at_its_address() {
    let (dir, pad, log_name, json_name) = fixture();
    let served = serve(pad, Some(dir));
    let entry = format!("/s/build/e/{log_name}");
    let json = format!("/s/build/e/{json_name}");
    let pages: Vec<(String, Vec<&str>)> = vec![
        (
            "/".into(),
            vec!["Sessions", "href=\"/s/build\"", "tokens kept out"],
        ),
        (
            "/s/build".into(),
            vec![&log_name, "plan", "agent-a", "cargo_build"],
        ),
        (
            entry.clone(),
            vec![
                "Preview",
                "href=\"#L1500\"",
                "id=\"viewer\"",
                "data-lines=\"3000\"",
            ],
        ),
        (
            format!("{entry}?lines=1500-1502"),
            vec!["lines 1,500–1,502 of 3,000", "worker 1501"],
        ),
        (
            format!("{entry}?grep=ERROR&context=1"),
            vec!["ln-row match", "worker 2900", "worker 1499"],
        ),
        (format!("{entry}?range=0-40"), vec!["chars 0–40 of"]),
        (format!("{json}?jq=.items%5B1%5D.name"), vec!["second"]),
        (
            "/s/build/e/plan?version=1".into(),
            vec!["version 1", "Restore this version", "What changed since"],
        ),
        (
            "/s/build/e/plan/history".into(),
            vec!["History of", "appended", "edited", "agent-a"],
        ),
        (
            "/s/build/e/plan/diff?from=1".into(),
            vec!["dl add", "found a1b2c3", "3. fix"],
        ),
        (
            "/search?q=bisect".into(),
            vec!["plan", "<mark>bisect</mark>"],
        ),
        (
            "/savings".into(),
            vec![
                "tools-chart",
                "time-chart",
                "cargo_build",
                "tokens kept out",
            ],
        ),
        ("/s/build/new".into(), vec!["New note", "id=\"new-note\""]),
    ];
    for (path, wanted) in pages {
        let reply = served.get(&path);
        let text = reply.text();
        assert_eq!(reply.status, 200, "{path}: {text}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
        for want in wanted {
            assert!(text.contains(want), "{path} lacks {want:?}");
        }
    }
}

#[test]
fn stored_markup_is_text_on_every_page() {
    let (dir, pad, _, _) = fixture();
    let served = serve(pad, Some(dir));
    let hostile_tool = served
        .pad
        .with_session("build")
        .unwrap()
        .list(&ListFilter::default(), None, 100)
        .unwrap()
        .entries
        .into_iter()
        .find(|e| e.source.tool.as_deref() == Some(HOSTILE))
        .unwrap()
        .name;
    for path in [
        "/s/build".to_owned(),
        "/s/build/e/hostile".to_owned(),
        "/s/build/e/hostile?lines=1-3".to_owned(),
        "/s/build/e/hostile?grep=script".to_owned(),
        "/s/build/e/hostile/history".to_owned(),
        format!("/s/build/e/{hostile_tool}"),
        "/search?q=pwned".to_owned(),
        "/savings".to_owned(),
    ] {
        let text = served.get(&path).text();
        assert!(
            !text.contains("<script>window"),
            "{path} holds a live <script>"
        );
        assert!(!text.contains("<img src=x"), "{path} holds a live <img>");
        assert!(
            text.contains("&lt;script&gt;window.pwned=1&lt;/script&gt;")
                || text.contains("&lt;script&gt;"),
            "{path} does not show the markup as text"
        );
    }
}

#[test]
fn paging_walks_every_entry_once() {
    let (dir, pad) = sqlite_pad();
    for i in 0..250 {
        note(&pad, &format!("note-{i:03}"), "x");
    }
    let served = serve(pad, Some(dir));
    let mut seen = std::collections::HashSet::new();
    let mut path = "/s/default".to_owned();
    let mut pages = 0;
    loop {
        let text = served.get(&path).text();
        pages += 1;
        for part in text.split("<tr data-name=\"").skip(1) {
            let name = part.split('"').next().unwrap().to_owned();
            assert!(seen.insert(name), "listed twice");
        }
        let Some(next) = link(&text, "next") else {
            break;
        };
        path = next;
    }
    assert_eq!(seen.len(), 250);
    assert_eq!(pages, 3);
    let filtered = served.get("/s/default?name=note-24").text();
    assert_eq!(filtered.matches("<tr data-name=").count(), 10);
}

/// The address of the page's link with this `rel`, as a browser would follow it.
fn link(page: &str, rel: &str) -> Option<String> {
    let at = page.find(&format!("\" rel=\"{rel}\""))?;
    let href = &page[..at];
    Some(href[href.rfind("href=\"")? + 6..].replace("&amp;", "&"))
}

fn rows(page: &str) -> Vec<String> {
    page.split("<tr data-name=\"")
        .skip(1)
        .map(|part| part.split('"').next().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn previous_page_links_walk_back_to_the_first() {
    let (dir, pad) = sqlite_pad();
    for i in 0..45 {
        note(&pad, &format!("note-{i:03}"), "x");
    }
    let served = serve(pad, Some(dir));
    let mut forward = vec![served.get("/s/default?name=note&limit=10").text()];
    assert_eq!(
        link(&forward[0], "prev"),
        None,
        "nothing before the first page"
    );
    while let Some(next) = link(forward.last().unwrap(), "next") {
        forward.push(served.get(&next).text());
    }
    assert_eq!(forward.len(), 5);
    assert!(forward[3].contains("page 4"), "pages are numbered");
    let mut page = forward[4].clone();
    for expected in forward[..4].iter().rev() {
        let prev = link(&page, "prev").unwrap();
        assert!(
            prev.contains("name=note") && prev.contains("limit=10"),
            "{prev}"
        );
        page = served.get(&prev).text();
        assert_eq!(rows(&page), rows(expected));
    }
    assert_eq!(link(&page, "prev"), None);
    // A shared link without its page number still leads back and forward.
    let third = link(&forward[1], "next").unwrap();
    let unnumbered = third.split("&page=").next().unwrap().to_owned();
    let shared = served.get(&unnumbered).text();
    assert_eq!(rows(&shared), rows(&forward[2]));
    let back = served.get(&link(&shared, "prev").unwrap()).text();
    assert_eq!(rows(&back), rows(&forward[1]));
}

#[test]
fn a_missing_entry_is_a_page_that_says_what_exists() {
    let (dir, pad) = sqlite_pad();
    note(&pad, "plan", "x");
    let served = serve(pad, Some(dir));
    let reply = served.get("/s/default/e/plna");
    assert_eq!(reply.status, 404);
    let text = reply.text();
    assert!(text.contains("no entry named `plna`"), "{text}");
    assert!(text.contains("`plan`"), "{text}");
    let reply = served.get("/s/default/e/plan?lines=9-3");
    assert_eq!(reply.status, 400);
    let reply = served.get("/s/bad..session");
    assert_eq!(reply.status, 400);
}

#[test]
fn a_failed_read_is_shown_in_place() {
    let (dir, pad) = sqlite_pad();
    note(&pad, "plan", "x\n");
    let served = serve(pad, Some(dir));
    let reply = served.get("/s/default/e/plan?grep=(unclosed");
    assert_eq!(reply.status, 200);
    assert!(reply.text().contains("reply failed"), "{}", reply.text());
}

#[test]
fn a_missing_entry_in_another_session_links_to_that_session() {
    let (dir, pad) = sqlite_pad();
    note(&pad.with_session("build").unwrap(), "plan", "x");
    let served = serve(pad, Some(dir));
    let reply = served.get("/s/build/e/plna");
    assert_eq!(reply.status, 404);
    let text = reply.text();
    assert!(text.contains("in session `build`"), "{text}");
    assert!(text.contains("/s/build"), "{text}");
    assert!(!text.contains("/s/default"), "{text}");
}
