//! The same view on PostgreSQL: pages, the viewer's lines, a conflict, and live updates through
//! LISTEN/NOTIFY. Needs `SCRATCHPAD_TEST_PG_URL` (scripts/pg-cluster starts a throwaway server).

use std::time::Duration;

use scratchpad_core::Scratchpad;
use serde_json::json;

use crate::common::{log, note, offload, serve};
use crate::suite::live::wait_for_change;

const NO_PG: &str = "the PostgreSQL tests need a server: run ./scripts/test, which starts a throwaway \
     PostgreSQL, or set SCRATCHPAD_TEST_PG_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE";

/// A store in a schema of its own, dropped at the end.
struct Schema {
    base: String,
    name: String,
}

impl Drop for Schema {
    fn drop(&mut self) {
        if let Ok(mut admin) = postgres::Client::connect(&self.base, postgres::NoTls) {
            let _ = admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
        }
    }
}

fn pg_pad() -> (Schema, Scratchpad) {
    let base = match std::env::var("SCRATCHPAD_TEST_PG_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!("SCRATCHPAD_TEST_PG_URL is not set; {NO_PG}"),
    };
    let name = format!("sp_ui_{}_{}", std::process::id(), scratchpad_core::now_ms());
    let mut admin = postgres::Client::connect(&base, postgres::NoTls)
        .unwrap_or_else(|err| panic!("cannot reach SCRATCHPAD_TEST_PG_URL ({err}); {NO_PG}"));
    admin
        .batch_execute(&format!("CREATE SCHEMA {name}"))
        .unwrap();
    let sep = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{sep}options=-c%20search_path%3D{name}");
    let pad = Scratchpad::open(&url).unwrap();
    (Schema { base, name }, pad)
}

#[test]
fn the_view_works_the_same_on_postgresql() {
    let (_schema, pad) = pg_pad();
    let build = pad.with_session("build").unwrap();
    let name = offload(&build, "cargo_build", log(20_000, &[12_345]).as_bytes());
    note(&build, "plan", "1. reproduce\n");
    let served = serve(pad.clone(), None);
    let sessions = served.get("/api/sessions").json();
    assert_eq!(sessions["sessions"][0]["session"], "build");
    for (path, want) in [
        ("/".to_owned(), "href=\"/s/build\""),
        ("/s/build".to_owned(), "cargo_build"),
        (format!("/s/build/e/{name}"), "href=\"#L12345\""),
        (format!("/s/build/e/{name}?grep=ERROR"), "worker 12345"),
        ("/search?q=reproduce".to_owned(), "plan"),
        ("/savings".to_owned(), "cargo_build"),
    ] {
        let reply = served.get(&path);
        assert_eq!(reply.status, 200, "{path}");
        assert!(reply.text().contains(want), "{path} lacks {want}");
    }
    let lines = served
        .get(&format!("/api/s/build/e/{name}/lines?from=12344&count=3"))
        .json();
    assert!(
        lines["lines"][1]["text"]
            .as_str()
            .unwrap()
            .contains("ERROR worker 12345")
    );
    let mut events = served.events();
    build
        .append("plan", "2. bisect\n", Default::default())
        .unwrap();
    assert!(
        wait_for_change(&mut events, Duration::from_secs(15)),
        "no change event on PostgreSQL"
    );
    let stale = served.post(
        "/api/s/build/e/plan/write",
        &json!({ "text": "mine", "if_version": 1 }),
    );
    assert_eq!(stale.status, 409);
    assert_eq!(stale.json()["current_version"], 2);
}
