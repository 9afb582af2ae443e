//! Placeholder resolution over any text: `{{scratchpad:NAME#SELECTOR}}` with any name, selector
//! and escaping. Nothing panics; unknown names and bad selectors are errors, never pass-throughs.
//! Texts naming jq's unbounded generators are left out, as in the `jq` target: such a selector
//! runs to its deadline, and in a library embedding the abandoned evaluation thread is still
//! running when the fuzzer exits, which its leak check reports.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use scratchpad_core::Scratchpad;

fn pad() -> &'static Scratchpad {
    static PAD: OnceLock<(tempfile::TempDir, Scratchpad)> = OnceLock::new();
    &PAD.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let pad = Scratchpad::open(&format!("sqlite://{}/pad.db", dir.path().display())).unwrap();
        let lines: String = (1..=200).map(|i| format!("line {i}\n")).collect();
        pad.write("log", &lines, Default::default()).unwrap();
        pad.write(
            "doc",
            r#"{"items": [{"id": 1, "name": "a"}, {"id": 2}], "n": 2}"#,
            Default::default(),
        )
        .unwrap();
        (dir, pad)
    })
    .1
}

const UNBOUNDED: [&str; 7] = [
    "range", "repeat", "recurse", "while", "until", "limit", "input",
];

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if UNBOUNDED.iter().any(|word| text.contains(word)) {
        return;
    }
    if let Ok(resolved) = pad().resolve(&text) {
        // What was not a placeholder passes through; nothing is lost but what was replaced.
        if !text.contains("{{") {
            assert_eq!(resolved, text);
        }
    }
});
