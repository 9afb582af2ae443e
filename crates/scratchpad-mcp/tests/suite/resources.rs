//! Every entry is a `scratchpad://SESSION/NAME` resource: listed with pagination, read as text or blob,
//! described by a template, and never readable from another session.

use rmcp::model::{PaginatedRequestParams, ReadResourceRequestParams, ResourceContents};
use scratchpad_core::{PutOptions, Scratchpad};

use crate::common::{Era, Harness, store_url};

#[tokio::test]
async fn resources_are_listed_page_by_page() {
    let h = Harness::new(Era::Handshake).await;
    for i in 0..130 {
        h.pad
            .write(&format!("note-{i:03}"), "x", Default::default())
            .unwrap();
    }
    let first = h.client.list_resources(None).await.unwrap();
    assert_eq!(first.resources.len(), 100);
    assert_eq!(first.resources[0].uri, "scratchpad://default/note-129");
    let cursor = first.next_cursor.clone().expect("a second page");
    let second = h
        .client
        .list_resources(Some(
            PaginatedRequestParams::default().with_cursor(Some(cursor)),
        ))
        .await
        .unwrap();
    assert_eq!(second.resources.len(), 30);
    assert!(second.next_cursor.is_none());
    assert_eq!(
        second.resources.last().unwrap().uri,
        "scratchpad://default/note-000"
    );
    // The SDK's own pager walks every page.
    assert_eq!(h.client.list_all_resources().await.unwrap().len(), 130);
}

#[tokio::test]
async fn text_json_and_binary_entries_read_back_whole() {
    for era in crate::common::ERAS {
        let h = Harness::new(era).await;
        h.pad
            .write("plan", "1. reproduce\n", Default::default())
            .unwrap();
        h.pad
            .write("api", "{\"ok\": true}", Default::default())
            .unwrap();
        let png: Vec<u8> = [
            &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a][..],
            &[0u8, 255, 3][..],
        ]
        .concat();
        h.pad
            .put(
                &mut png.as_slice(),
                PutOptions {
                    name: Some("shot".into()),
                    ..Default::default()
                },
            )
            .unwrap();

        let plan = read(&h, "scratchpad://default/plan").await;
        assert!(
            matches!(&plan, ResourceContents::TextResourceContents { text, mime_type, .. }
            if text == "1. reproduce\n" && mime_type.as_deref() == Some("text/plain")),
            "{plan:?}"
        );
        let api = read(&h, "scratchpad://default/api").await;
        assert!(
            matches!(&api, ResourceContents::TextResourceContents { mime_type, .. }
            if mime_type.as_deref() == Some("application/json")),
            "{api:?}"
        );
        let shot = read(&h, "scratchpad://default/shot").await;
        assert!(
            matches!(&shot, ResourceContents::BlobResourceContents { blob, mime_type, .. }
            if blob == "iVBORw0KGgoA/wM=" && mime_type.as_deref() == Some("image/png")),
            "{shot:?}"
        );
    }
}

#[tokio::test]
async fn the_template_names_the_session() {
    let h = Harness::new(Era::Discover).await;
    let templates = h.client.list_resource_templates(None).await.unwrap();
    assert_eq!(templates.resource_templates.len(), 1);
    assert_eq!(
        templates.resource_templates[0].uri_template,
        "scratchpad://default/{name}"
    );
}

#[tokio::test]
async fn other_sessions_and_missing_entries_are_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let store = Scratchpad::open(&store_url(&dir)).unwrap();
    store
        .with_session("alice")
        .unwrap()
        .write("secret", "alice's", Default::default())
        .unwrap();
    let bob = store.with_session("bob").unwrap();
    let h = Harness::connect(bob, dir, Era::Handshake).await;

    for (uri, fragment) in [
        ("scratchpad://alice/secret", "not readable"),
        ("scratchpad://bob/secret", "no entry named `secret`"),
        ("file:///etc/passwd", "not a scratchpad resource"),
        ("scratchpad://bob/", "names no entry"),
    ] {
        let err = h
            .client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains(fragment), "{uri}: {err}");
    }
    assert!(h.client.list_all_resources().await.unwrap().is_empty());
}

async fn read(h: &Harness, uri: &str) -> ResourceContents {
    let mut result = h
        .client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    assert_eq!(result.contents.len(), 1);
    result.contents.remove(0)
}
