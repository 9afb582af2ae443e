//! Every bad argument is an `isError` result that says what to do next, and leaves entries intact.

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::common::{Era, Harness, log_with_error};

/// (tool, arguments, fragments the message must contain)
fn bad_calls() -> Vec<(&'static str, Value, Vec<&'static str>)> {
    vec![
        (
            "scratchpad_read",
            json!({"ref": "logg", "mode": "tail"}),
            vec!["no entry named `logg`", "`log`", "scratchpad_list"],
        ),
        (
            "scratchpad_read",
            json!({"mode": "tail"}),
            vec!["missing field `name`"],
        ),
        (
            "scratchpad_read",
            json!({"name": "log", "mode": "grep", "patern": "ERROR"}),
            vec!["unknown argument `patern`: did you mean `pattern`?"],
        ),
        (
            "scratchpad_write",
            json!({"nme": "plan", "content": "x"}),
            vec!["unknown argument `nme`: did you mean `name`?"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "range"}),
            vec!["mode=range needs `start`", "start=0"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "range", "start": 50, "end": 10}),
            vec!["range start 50 is after its end 10", "give start ≤ end"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "lines"}),
            vec!["mode=lines needs `from`"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "lines", "from": 0}),
            vec![
                "lines are numbered from 1",
                "scratchpad_read(name=\"log\", mode=\"lines\", from=1",
            ],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "lines", "from": 900, "to": 100}),
            vec!["line range 900-100 ends before it starts", "give from ≤ to"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "grep"}),
            vec!["mode=grep needs `pattern`"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "grep", "pattern": "(unclosed"}),
            vec!["invalid regex", "backslash"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "json", "query": ".a"}),
            vec!["not one JSON document", "mode=\"grep\""],
        ),
        (
            "scratchpad_read",
            json!({"ref": "api", "mode": "json", "query": ".items[["}),
            vec!["jq"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "api", "mode": "json"}),
            vec!["mode=json needs `query`"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "head", "n": "ten"}),
            vec!["`n`", "expected u64"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "sideways"}),
            vec!["`mode`", "unknown variant `sideways`", "grep"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "pattern": "x"}),
            vec!["`pattern` does not apply to mode=full", "set mode"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "full"}),
            vec!["force"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "tail", "max_chars": 0}),
            vec!["max_chars must be at least 1"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "../etc/passwd", "mode": "tail"}),
            vec!["invalid name", "do not contain `..`"],
        ),
        (
            "scratchpad_read",
            json!({"ref": "log", "mode": "tail", "bogus": 1}),
            vec!["unknown argument `bogus`"],
        ),
        (
            "scratchpad_write",
            json!({"name": "bad name!", "content": "x"}),
            vec!["invalid name `bad name!`"],
        ),
        (
            "scratchpad_write",
            json!({"name": "plan", "content": "x", "if_version": 7}),
            vec![
                "version conflict on `plan`",
                "current version is 1",
                "if_version=1",
            ],
        ),
        (
            "scratchpad_write",
            json!({"name": "plan", "content": "x", "ttl": "soon"}),
            vec!["invalid duration `soon`", "use a number with s, m, h or d"],
        ),
        (
            "scratchpad_write",
            json!({"name": "plan"}),
            vec!["missing field `content`"],
        ),
        (
            "scratchpad_write",
            json!({"name": "plan", "content": "x", "mode": "prepend"}),
            vec!["unknown variant `prepend`", "append"],
        ),
        (
            "scratchpad_edit",
            json!({"name": "plan", "old": "nowhere", "new": "x"}),
            vec!["does not occur", "copy the exact text"],
        ),
        (
            "scratchpad_edit",
            json!({"name": "plan", "old": "step", "new": "x"}),
            vec!["occurs 2 times", "replace_all=true"],
        ),
        (
            "scratchpad_edit",
            json!({"name": "plan", "old": "", "new": "x"}),
            vec![
                "the text to replace is empty",
                "give the exact text to change",
            ],
        ),
        (
            "scratchpad_edit",
            json!({"name": "nope", "old": "a", "new": "b"}),
            vec!["no entry named `nope`"],
        ),
        (
            "scratchpad_list",
            json!({"limit": 0}),
            vec!["limit must be between 1 and 500"],
        ),
        (
            "scratchpad_list",
            json!({"kind": "video"}),
            vec!["unknown variant `video`"],
        ),
        (
            "scratchpad_list",
            json!({"turn": "no spaces"}),
            vec!["invalid turn"],
        ),
        (
            "scratchpad_search",
            json!({"query": "  "}),
            vec!["query is empty"],
        ),
        (
            "scratchpad_search",
            json!({"query": "x", "limit": 1000}),
            vec!["limit must be between 1 and 100"],
        ),
        (
            "scratchpad_delete",
            json!({"name": "ghost"}),
            vec!["no entry named `ghost`"],
        ),
        (
            "scratchpad_delete",
            json!({"name": "plan", "if_version": 3}),
            vec!["version conflict", "current version is 1"],
        ),
        (
            "scratchpad_pin",
            json!({"name": "ghost"}),
            vec!["no entry named `ghost`"],
        ),
        (
            "scratchpad_rename",
            json!({"name": "plan", "new_name": "log"}),
            vec!["log"],
        ),
        (
            "scratchpad_rename",
            json!({"name": "plan", "new_name": ".."}),
            vec!["invalid name"],
        ),
    ]
}

#[tokio::test]
async fn every_bad_argument_is_an_actionable_tool_error() {
    let h = Harness::new(Era::Handshake).await;
    h.ok(
        "scratchpad_write",
        json!({"name": "plan", "content": "step one\nstep two\n"}),
    )
    .await;
    h.ok(
        "scratchpad_write",
        json!({"name": "log", "content": log_with_error(250_000, 7)}),
    )
    .await;
    h.ok(
        "scratchpad_write",
        json!({"name": "api", "content": "{\"items\": [1, 2]}"}),
    )
    .await;
    let before: Vec<(String, u64, String)> = entries(&h);

    for (tool, args, fragments) in bad_calls() {
        let message = h.fails(tool, args.clone()).await;
        for fragment in fragments {
            assert!(
                message.contains(fragment),
                "{tool}({args}): expected `{fragment}` in the message: {message}"
            );
        }
    }
    assert_eq!(entries(&h), before, "failed calls changed stored entries");
}

#[tokio::test]
async fn clamped_reads_say_so() {
    let h = Harness::new(Era::Discover).await;
    h.ok(
        "scratchpad_write",
        json!({"name": "short", "content": "one\ntwo\nthree\n"}),
    )
    .await;
    let lines = h
        .ok(
            "scratchpad_read",
            json!({"ref": "short", "mode": "lines", "from": 2, "to": 99}),
        )
        .await;
    assert!(
        lines.contains("2: two") && lines.contains("3: three"),
        "{lines}"
    );
    assert!(
        lines.contains("of 3"),
        "the reply states the real bounds: {lines}"
    );
    let past = h
        .call(
            "scratchpad_read",
            json!({"ref": "short", "mode": "lines", "from": 50}),
        )
        .await;
    let message = crate::common::text(&past);
    assert!(
        message.contains('3'),
        "says how many lines there are: {message}"
    );
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error_naming_the_tools() {
    let h = Harness::new(Era::Handshake).await;
    let err = h
        .client
        .call_tool(CallToolRequestParams::new("scratchpad_explode"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown tool `scratchpad_explode`") && err.contains("scratchpad_read"),
        "{err}"
    );
}

fn entries(h: &Harness) -> Vec<(String, u64, String)> {
    h.pad
        .list(&Default::default(), None, 100)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| (e.name, e.version, e.hash))
        .collect()
}
