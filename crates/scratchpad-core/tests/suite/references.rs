//! Pass by reference: `{{scratchpad:NAME}}` with selectors.

use crate::common::{Backend, put};

/// Regression: 64 placeholders of a 16 MB entry in a 1,280-character argument built a 1 GB value.
/// The expansion of one call is capped, with an error that says how to ask for less.
fn placeholder_expansion_is_capped_per_call(backend: Backend) {
    let (_store, pad) = backend.pad_with(scratchpad_core::Config {
        resolve_max_bytes: 1_000_000,
        ..Default::default()
    });
    put(&pad, "big", "x".repeat(300_000).as_bytes());
    let three = "{{scratchpad:big}}".repeat(3);
    assert_eq!(pad.resolve(&three).unwrap().len(), 900_000);
    let err = pad
        .resolve(&"{{scratchpad:big}}".repeat(64))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("more than 1,000,000 bytes") && err.contains("#lines=A-B"),
        "{err}"
    );
    // A part of it is fine.
    assert_eq!(
        pad.resolve(&"{{scratchpad:big#range=0-10}}".repeat(64))
            .unwrap()
            .len(),
        640
    );
}

fn placeholders_expand_whole_values_and_parts(backend: Backend) {
    let (_store, pad) = backend.pad();
    put(&pad, "lines", b"one\ntwo\nthree\nfour\n");
    put(
        &pad,
        "data",
        br#"{"items": [{"id": "a1"}, {"id": "b2"}], "n": 2}"#,
    );
    assert_eq!(
        pad.resolve("all: {{scratchpad:lines}}").unwrap(),
        "all: one\ntwo\nthree\nfour\n"
    );
    assert_eq!(
        pad.resolve("{{scratchpad:lines#lines=2-3}}").unwrap(),
        "two\nthree"
    );
    assert_eq!(
        pad.resolve("{{scratchpad:lines#range=4-7}}").unwrap(),
        "two"
    );
    assert_eq!(
        pad.resolve("id={{scratchpad:data#json=.items[1].id}}")
            .unwrap(),
        "id=b2"
    );
    assert_eq!(pad.resolve("n={{scratchpad:data#json=.n}}").unwrap(), "n=2");
    assert_eq!(
        pad.resolve(r"literal \{{scratchpad:lines}} stays").unwrap(),
        "literal {{scratchpad:lines}} stays"
    );
    assert_eq!(
        pad.resolve("other {{braces}} pass").unwrap(),
        "other {{braces}} pass"
    );
    let args = serde_json::json!({"path": "/x", "content": "{{scratchpad:lines#lines=1-1}}", "list": ["{{scratchpad:data#json=.n}}"]});
    assert_eq!(
        pad.resolve_json(&args).unwrap(),
        serde_json::json!({"path": "/x", "content": "one", "list": ["2"]})
    );
}

fn unknown_names_and_bad_selectors_are_errors(backend: Backend) {
    let (_store, pad) = backend.pad();
    put(&pad, "lines", b"one\n");
    let err = pad
        .resolve("{{scratchpad:missing}}")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("no entry named `missing`") && err.contains("`lines`"),
        "{err}"
    );
    let err = pad
        .resolve("{{scratchpad:lines#cols=1-2}}")
        .unwrap_err()
        .to_string();
    assert!(err.contains("#lines=10-20"), "{err}");
    // A selection past the end is an error, never an empty string in the tool's arguments.
    let err = pad
        .resolve("{{scratchpad:lines#lines=10-20}}")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("past the end") && err.contains("1 lines"),
        "{err}"
    );
    let err = pad
        .resolve("{{scratchpad:lines#range=1000-2000}}")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("past the end") && err.contains("4 characters"),
        "{err}"
    );
    let err = pad
        .resolve("{{scratchpad:lines#lines=x-2}}")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a span"), "{err}");
    // A single line, and a span that runs past the end (clamped), still resolve.
    assert_eq!(pad.resolve("{{scratchpad:lines#lines=1}}").unwrap(), "one");
    assert_eq!(
        pad.resolve("{{scratchpad:lines#lines=1-9}}").unwrap(),
        "one"
    );
    let err = pad.resolve("{{scratchpad:lines").unwrap_err().to_string();
    assert!(err.contains("unterminated"), "{err}");
    let other = pad.with_session("other").unwrap();
    assert!(
        other.resolve("{{scratchpad:lines}}").is_err(),
        "never crosses sessions"
    );
}

backend_tests!(
    placeholder_expansion_is_capped_per_call,
    placeholders_expand_whole_values_and_parts,
    unknown_names_and_bad_selectors_are_errors,
);
