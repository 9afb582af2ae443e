//! Session isolation: another session's names and ids are not found.

use scratchpad_core::{Error, ListFilter, ReadMode};

use crate::common::{Backend, put};

fn sessions_do_not_see_each_other(backend: Backend) {
    let (_store, pad) = backend.pad();
    let a = pad.with_session("agent-a").unwrap();
    let b = pad.with_session("agent-b").unwrap();
    let secret = put(&a, "secret", b"a's plan");
    put(&b, "secret", b"b's plan");
    assert_eq!(
        a.read("secret", &ReadMode::Full { force: false }, None)
            .unwrap()
            .text,
        "a's plan"
    );
    assert_eq!(
        b.read("secret", &ReadMode::Full { force: false }, None)
            .unwrap()
            .text,
        "b's plan"
    );
    // A's id is not found from B, for reads and for writes.
    assert!(matches!(b.get(&secret.id), Err(Error::NotFound { .. })));
    assert!(matches!(
        b.delete(&secret.id, None),
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        b.rename(&secret.id, "stolen", None),
        Err(Error::NotFound { .. })
    ));
    assert!(
        b.resolve(&format!("{{{{scratchpad:{}}}}}", secret.id))
            .is_err()
    );
    let listed = b.list(&ListFilter::default(), None, 100).unwrap();
    assert_eq!(listed.entries.len(), 1);
    assert!(
        b.search("plan", 10)
            .unwrap()
            .iter()
            .all(|h| h.entry.session == "agent-b")
    );
    assert_eq!(b.stats().unwrap().figures.entries, 1);
    // A's entry is intact.
    assert_eq!(a.get("secret").unwrap().version, 1);
}

backend_tests!(sessions_do_not_see_each_other,);
