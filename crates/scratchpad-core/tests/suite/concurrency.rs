//! Several processes updating one note never lose an update: read-modify-write with `if_version`,
//! and plain appends that give no version at all.

use scratchpad_core::{Error, ReadMode, Scratchpad, WriteOptions};

use crate::common::{Backend, spawn_child};

const WRITERS: usize = 3;
const INCREMENTS: usize = 30;

/// Runs in each child: read-modify-write with if_version, retrying on conflict.
#[test]
#[ignore = "runs only as the child of processes_updating_one_note_lose_nothing"]
fn concurrent_child_increments() {
    let url = std::env::var("SCRATCHPAD_TEST_STORE").unwrap();
    let me = std::env::var("SCRATCHPAD_TEST_WRITER").unwrap();
    let pad = Scratchpad::open(&url).unwrap();
    let mut done = 0;
    while done < INCREMENTS {
        let info = pad.get("counter").unwrap();
        let text = whole(&pad, "counter");
        let value: u64 = text.lines().next().unwrap().parse().unwrap();
        let body = format!(
            "{}\n{}{me}\n",
            value + 1,
            text.lines()
                .skip(1)
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        );
        match pad.write(
            "counter",
            &body,
            WriteOptions {
                if_version: Some(info.version),
                ..WriteOptions::default()
            },
        ) {
            Ok(_) => done += 1,
            Err(Error::Conflict(_)) => continue,
            Err(e) => panic!("{e}"),
        }
    }
}

/// Runs in each child: appends its own lines to a note that may not exist yet, giving no version.
#[test]
#[ignore = "runs only as the child of processes_appending_to_one_note_lose_nothing"]
fn concurrent_child_appends() {
    let url = std::env::var("SCRATCHPAD_TEST_STORE").unwrap();
    let me = std::env::var("SCRATCHPAD_TEST_WRITER").unwrap();
    let pad = Scratchpad::open(&url).unwrap();
    for i in 0..INCREMENTS {
        pad.append("findings", &format!("{me} {i}\n"), WriteOptions::default())
            .unwrap();
    }
}

fn processes_appending_to_one_note_lose_nothing(backend: Backend) {
    let store = backend.store();
    let pad = Scratchpad::open(&store.url).unwrap();
    run_writers("suite::concurrency::concurrent_child_appends", &store.url);
    let text = whole(&pad, "findings");
    for w in 0..WRITERS {
        let mine: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with(&format!("w{w} ")))
            .collect();
        let expected: Vec<String> = (0..INCREMENTS).map(|i| format!("w{w} {i}")).collect();
        assert_eq!(
            mine, expected,
            "writer {w}'s appends, all there and in order"
        );
    }
    assert_eq!(text.lines().count(), WRITERS * INCREMENTS);
    assert_eq!(
        pad.get("findings").unwrap().version,
        (WRITERS * INCREMENTS) as u64
    );
}

fn processes_updating_one_note_lose_nothing(backend: Backend) {
    let store = backend.store();
    let url = store.url.clone();
    let pad = Scratchpad::open(&url).unwrap();
    pad.write("counter", "0\n", WriteOptions::default())
        .unwrap();
    run_writers("suite::concurrency::concurrent_child_increments", &url);
    let text = whole(&pad, "counter");
    let total = WRITERS * INCREMENTS;
    assert_eq!(text.lines().next().unwrap(), total.to_string());
    assert_eq!(
        text.lines().count(),
        total + 1,
        "every writer's line is there"
    );
    for i in 0..WRITERS {
        assert_eq!(
            text.lines().filter(|l| *l == format!("w{i}")).count(),
            INCREMENTS
        );
    }
    assert_eq!(pad.get("counter").unwrap().version, total as u64 + 1);
}

/// Runs WRITERS copies of the child test `child` on the store at `url`; each must succeed.
fn run_writers(child: &str, url: &str) {
    let children: Vec<_> = (0..WRITERS)
        .map(|i| {
            spawn_child(
                child,
                &[
                    ("SCRATCHPAD_TEST_STORE", url.to_owned()),
                    ("SCRATCHPAD_TEST_WRITER", format!("w{i}")),
                ],
            )
        })
        .collect();
    for mut child in children {
        assert!(
            child.0.wait().unwrap().success(),
            "a writer failed; its panic is above"
        );
    }
}

fn whole(pad: &Scratchpad, name: &str) -> String {
    pad.read(name, &ReadMode::Full { force: true }, None)
        .unwrap()
        .text
}

/// What a forked child does with a handle it inherited: lets go of the parent's connections, then
/// goes on with its own. Here in one process: the handle works on, and so does another handle on
/// the same store (whose connections went too), with every entry still there.
fn a_handle_goes_on_after_letting_go_of_inherited_connections(backend: Backend) {
    let (_store, pad) = backend.pad();
    let other = pad.with_session("other").unwrap();
    pad.write("plan", "1. reproduce", WriteOptions::default())
        .unwrap();
    other
        .write("notes", "seen", WriteOptions::default())
        .unwrap();
    pad.after_fork();
    pad.after_fork();
    pad.append("plan", "\n2. fix", WriteOptions::default())
        .unwrap();
    let full = ReadMode::Full { force: false };
    assert_eq!(
        pad.read("plan", &full, None).unwrap().text,
        "1. reproduce\n2. fix"
    );
    assert_eq!(other.read("notes", &full, None).unwrap().text, "seen");
}

backend_tests!(
    processes_updating_one_note_lose_nothing,
    processes_appending_to_one_note_lose_nothing,
    a_handle_goes_on_after_letting_go_of_inherited_connections,
);
