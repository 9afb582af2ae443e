//! jq programs and documents from the input (split at the first NUL), evaluated with the limits a
//! model's query runs under. A query may fail, with a message; it must never take the process down
//! (a stack overflow is a crash here). Generators that are unbounded on purpose (`range`,
//! `repeat`, `recurse`, `while`, `until`, `limit`) are left out: they run to the deadline, which
//! is the production worker's business, and would only slow the search for crashes.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use scratchpad_core::read::jq::{JqLimits, run_jq_within};

const UNBOUNDED: [&str; 7] = [
    "range", "repeat", "recurse", "while", "until", "limit", "input",
];

fuzz_target!(|data: &[u8]| {
    let (program, document) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (
            data,
            &b"{\"a\": [1, 2, {\"b\": null}], \"c\": \"text\"}"[..],
        ),
    };
    let program = String::from_utf8_lossy(program);
    if UNBOUNDED.iter().any(|word| program.contains(word)) {
        return;
    }
    let limits = JqLimits {
        timeout: Duration::from_millis(500),
        memory_bytes: Some(1 << 30),
        ..JqLimits::default()
    };
    let _ = run_jq_within(document, &program, limits);
});
