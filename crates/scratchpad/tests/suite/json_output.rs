//! `--json` prints one JSON document for scripts.

use crate::common::Pad;

#[test]
fn json_everywhere() {
    let pad = Pad::new();
    let put = pad
        .run_stdin(&["--json", "put", "--tool", "t"], b"hello\n")
        .ok()
        .json();
    assert_eq!(put["name"], "t_1");
    assert_eq!(put["bytes"], 6);
    assert!(
        put["hint"]
            .as_str()
            .unwrap()
            .contains("scratchpad read t_1")
    );

    let read = pad
        .run(&["--json", "read", "t_1", "--head", "3"])
        .ok()
        .json();
    assert_eq!(read["text"], "hello\n");
    assert_eq!(read["location"], "lines 1–1 of 1");
    assert_eq!(read["truncated"], false);

    let ls = pad.run(&["--json", "ls"]).ok().json();
    assert_eq!(ls["entries"][0]["name"], "t_1");
    assert!(ls["next_cursor"].is_null());

    let stats = pad.run(&["--json", "stats"]).ok().json();
    assert_eq!(stats["entries"], 1);
    assert_eq!(stats["session"], "default");

    for args in [
        vec!["--json", "show", "t_1"],
        vec!["--json", "search", "hello"],
        vec!["--json", "write", "n", "x"],
        vec!["--json", "edit", "n", "--old", "x", "--new", "y"],
        vec!["--json", "gc"],
        vec!["--json", "rm", "n"],
        vec!["--json", "run", "--", "echo", "hi"],
    ] {
        pad.run(&args).ok().json();
    }
    let run = pad
        .run(&["--json", "run", "--", "sh", "-c", "echo out; exit 4"])
        .no_panic();
    assert_eq!(run.code, 4);
    assert_eq!(run.json()["exit_code"], 4);
    assert_eq!(run.json()["output"], "out\n");
}
