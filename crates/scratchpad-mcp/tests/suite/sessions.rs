//! Notes written in one run are there in the next run of the same session, and invisible to others.

use scratchpad_core::Scratchpad;
use serde_json::json;

use crate::common::{Era, Harness, store_url};

#[tokio::test]
async fn notes_survive_a_restart_and_stay_in_their_session() {
    let dir = tempfile::tempdir().unwrap();
    let url = store_url(&dir);
    {
        let pad = Scratchpad::open(&url)
            .unwrap()
            .with_session("project-a")
            .unwrap();
        let first = Harness::connect(pad, tempfile::tempdir().unwrap(), Era::Handshake).await;
        first
            .ok(
                "scratchpad_write",
                json!({"name": "plan", "content": "migrate the db"}),
            )
            .await;
        first.client.cancel().await.unwrap();
    }
    let again = Scratchpad::open(&url)
        .unwrap()
        .with_session("project-a")
        .unwrap();
    let second = Harness::connect(again, tempfile::tempdir().unwrap(), Era::Discover).await;
    let plan = second.ok("scratchpad_read", json!({"ref": "plan"})).await;
    assert!(plan.contains("migrate the db"), "{plan}");

    let other = Scratchpad::open(&url)
        .unwrap()
        .with_session("project-b")
        .unwrap();
    let third = Harness::connect(other, dir, Era::Handshake).await;
    let listing = third.ok("scratchpad_list", json!({})).await;
    assert!(listing.contains("has no entries"), "{listing}");
    let missing = third.fails("scratchpad_read", json!({"ref": "plan"})).await;
    assert!(
        missing.contains("no entry named `plan` in session `project-b`"),
        "{missing}"
    );
    // An id from another session is no key either.
    let id = second.pad.get("plan").unwrap().id;
    third.fails("scratchpad_read", json!({"ref": id})).await;
}
