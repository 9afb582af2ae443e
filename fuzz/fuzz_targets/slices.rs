//! Reads of any kind over any stored content: the content is stored once, then every read the
//! input describes runs against it. Nothing panics, every reply is within its budget (plus its
//! gutter and notes), and ranges read in pieces concatenate to the whole.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use scratchpad_core::{PutOptions, ReadMode, Scratchpad};

fn pad() -> &'static Scratchpad {
    static PAD: OnceLock<(tempfile::TempDir, Scratchpad)> = OnceLock::new();
    &PAD.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let pad = Scratchpad::open(&format!("sqlite://{}/pad.db", dir.path().display())).unwrap();
        (dir, pad)
    })
    .1
}

fn number(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 4];
    for (i, slot) in word.iter_mut().enumerate() {
        *slot = bytes.get(at + i).copied().unwrap_or(0);
    }
    u64::from(u32::from_le_bytes(word))
}

const PATTERNS: [&str; 6] = ["ERROR", "^a", "b$", "[0-9]+", "(?i)warn", "é|ü"];

fuzz_target!(|data: &[u8]| {
    if data.len() < 16 {
        return;
    }
    let (reads, content) = data.split_at(16);
    let pad = pad();
    let Ok(info) = pad.put(
        &mut &content[..],
        PutOptions {
            name: Some("entry".into()),
            ..PutOptions::default()
        },
    ) else {
        return;
    };
    let budget = (number(reads, 12) % 5_000 + 1) as usize;
    let a = number(reads, 0) % (info.chars + 10);
    let b = number(reads, 4) % (info.chars + 10);
    let modes = [
        ReadMode::Head { n: Some(a) },
        ReadMode::Tail { n: Some(b) },
        ReadMode::Range {
            start: a.min(b),
            end: Some(a.max(b)),
        },
        ReadMode::Lines {
            from: a % (info.lines + 3) + 1,
            to: Some(b % (info.lines + 3) + 1),
        },
        ReadMode::Bytes {
            offset: a,
            length: Some(b),
        },
        ReadMode::Grep {
            pattern: PATTERNS[(reads[8] % 6) as usize].into(),
            context: u64::from(reads[9] % 4),
            max_matches: Some(u64::from(reads[10] % 20) + 1),
            ignore_case: reads[11] % 2 == 0,
            from: None,
        },
        ReadMode::Summary { from: None },
        ReadMode::Full { force: true },
    ];
    for mode in &modes {
        if let Ok(reply) = pad.read("entry", mode, Some(budget)) {
            let shown = reply.text.chars().count();
            assert!(
                shown <= budget.max(8_000) * 4 + 2_000,
                "{mode:?}: {shown} chars"
            );
        }
    }
    if info.kind == scratchpad_core::Kind::Text {
        // Ranges read in pieces of `budget` concatenate to the whole.
        let mut whole = String::new();
        let mut start = 0;
        while start < info.chars {
            let end = (start + budget as u64).min(info.chars);
            let reply = pad
                .read(
                    "entry",
                    &ReadMode::Range {
                        start,
                        end: Some(end),
                    },
                    Some(budget),
                )
                .unwrap();
            whole.push_str(&reply.text);
            start = end;
        }
        assert_eq!(whole.chars().count() as u64, info.chars);
    }
});
