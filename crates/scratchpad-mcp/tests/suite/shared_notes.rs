//! Two clients sharing notes through one store: leases that fence off a late writer, history with
//! who wrote what, diffs and restores, all through the tools' arguments.

use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt as _};
use scratchpad_core::Scratchpad;
use scratchpad_mcp::ScratchpadServer;
use scratchpad_mcp::tools;
use serde_json::{Value, json};

use crate::common::{store_url, text};

/// An MCP client that calls itself `name`, on a server over `pad`.
struct Agent {
    client: RunningService<RoleClient, ClientConfig>,
}

impl Agent {
    async fn connect(pad: &Scratchpad, name: &str) -> Self {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        let server = ScratchpadServer::new(pad.clone());
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new(name, "1.0"),
        );
        Self {
            client: info.serve(client_end).await.unwrap(),
        }
    }

    async fn call(&self, tool: &str, args: Value) -> (bool, String, Value) {
        let Value::Object(args) = args else {
            panic!("arguments are an object")
        };
        let result = self
            .client
            .call_tool(
                rmcp::model::CallToolRequestParams::new(tool.to_owned()).with_arguments(args),
            )
            .await
            .unwrap();
        (
            result.is_error == Some(true),
            text(&result),
            result.structured_content.clone().unwrap_or(Value::Null),
        )
    }

    async fn ok(&self, tool: &str, args: Value) -> (String, Value) {
        let (failed, text, structured) = self.call(tool, args.clone()).await;
        assert!(!failed, "{tool}({args}) failed: {text}");
        (text, structured)
    }

    async fn fails(&self, tool: &str, args: Value) -> String {
        let (failed, text, _) = self.call(tool, args.clone()).await;
        assert!(failed, "{tool}({args}) should fail, said: {text}");
        text
    }
}

#[tokio::test]
async fn two_clients_share_a_plan_under_a_lease() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&store_url(&dir)).unwrap();
    let a = Agent::connect(&pad, "agent-a").await;
    let b = Agent::connect(&pad, "agent-b").await;

    // A claims the plan; the holder is the client's own name.
    let (said, lease) = a
        .ok(
            "scratchpad_lease",
            json!({"name": "plan", "action": "acquire", "ttl": "1s"}),
        )
        .await;
    assert_eq!(lease["token"], 1, "{said}");
    assert_eq!(lease["holder"], "agent-a");
    assert!(said.contains("Pass lease=1 when writing `plan`"), "{said}");
    a.ok(
        "scratchpad_write",
        json!({"name": "plan", "content": "1. profile the parser\n", "lease": 1}),
    )
    .await;

    // B is told who holds it and until when.
    let refused = b
        .fails(
            "scratchpad_lease",
            json!({"name": "plan", "action": "acquire"}),
        )
        .await;
    assert!(
        refused.contains("`plan` is leased to `agent-a` until")
            && refused.contains("scratchpad_lease(name=\"plan\", action=\"show\")"),
        "{refused}"
    );
    let (_, shown) = b.ok("scratchpad_lease", json!({"name": "plan"})).await;
    assert_eq!(shown["state"], "held");

    // A's lease lapses; B claims and writes; A's late write is refused.
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let (_, lease) = b
        .ok(
            "scratchpad_lease",
            json!({"name": "plan", "action": "acquire"}),
        )
        .await;
    assert_eq!(lease["token"], 2);
    b.ok(
        "scratchpad_edit",
        json!({"name": "plan", "old": "parser", "new": "parser and the lexer", "lease": 2}),
    )
    .await;
    let late = a
        .fails(
            "scratchpad_write",
            json!({"name": "plan", "content": "A's late plan\n", "lease": 1}),
        )
        .await;
    assert!(
        late.contains("lease token 1 on `plan` is stale, token 2 was issued since")
            && late.contains("scratchpad_read(name=\"plan\", mode=\"history\")"),
        "{late}"
    );
    let renew = a
        .fails(
            "scratchpad_lease",
            json!({"name": "plan", "action": "renew", "token": 1}),
        )
        .await;
    assert!(renew.contains("stale"), "{renew}");

    // The history names both clients and what each did.
    let (history, structured) = b
        .ok(
            "scratchpad_read",
            json!({"name": "plan", "mode": "history"}),
        )
        .await;
    assert!(history.contains("v2 (current)"), "{history}");
    assert!(
        history.contains("by agent-b") && history.contains("by agent-a"),
        "{history}"
    );
    assert!(
        history.contains("edited: 1 replacement, +1 −1 lines"),
        "{history}"
    );
    let versions = structured["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[1]["author"], "agent-a");

    // A diff alone shows what the latest change did; an old version reads with any mode.
    let (diff, _) = a
        .ok("scratchpad_read", json!({"name": "plan", "mode": "diff"}))
        .await;
    assert!(
        diff.contains("-1. profile the parser\n+1. profile the parser and the lexer\n"),
        "{diff}"
    );
    let (old, structured) = a
        .ok(
            "scratchpad_read",
            json!({"name": "plan", "version": 1, "mode": "lines", "from": 1}),
        )
        .await;
    assert!(old.contains("[plan version 1: lines 1–1 of 1]"), "{old}");
    assert_eq!(structured["version"], 1);

    // B restores A's version, under its lease.
    let (restored, entry) = b
        .ok(
            "scratchpad_edit",
            json!({"name": "plan", "restore": 1, "lease": 2}),
        )
        .await;
    assert!(
        restored.contains("Restored `plan` to the content of version 1"),
        "{restored}"
    );
    assert_eq!(entry["version"], 3);
    assert_eq!(entry["author"], "agent-b");
    let (now, _) = a.ok("scratchpad_read", json!({"name": "plan"})).await;
    assert!(now.contains("1. profile the parser\n"), "{now}");
    assert!(!now.contains("lexer"), "{now}");
}

/// Regression: any client could renew or release another client's lease with the token the lease
/// shows, and a write carrying a released lease's token still landed.
#[tokio::test]
async fn only_the_holder_renews_or_releases_and_a_released_token_fences() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&store_url(&dir)).unwrap();
    let a = Agent::connect(&pad, "agent-a").await;
    let b = Agent::connect(&pad, "agent-b").await;
    a.ok(
        "scratchpad_lease",
        json!({"name": "plan", "action": "acquire", "ttl": "60s"}),
    )
    .await;
    a.ok(
        "scratchpad_write",
        json!({"name": "plan", "content": "1. profile the parser\n", "lease": 1}),
    )
    .await;
    let (_, shown) = b.ok("scratchpad_lease", json!({"name": "plan"})).await;
    assert_eq!(shown["token"], 1);
    for action in ["renew", "release"] {
        let refused = b
            .fails(
                "scratchpad_lease",
                json!({"name": "plan", "action": action, "token": 1}),
            )
            .await;
        assert!(
            refused.contains("is held by `agent-a` until")
                && refused.contains("this call came from `agent-b`"),
            "{refused}"
        );
    }
    let (_, still) = a.ok("scratchpad_lease", json!({"name": "plan"})).await;
    assert_eq!(
        (still["state"].as_str(), still["holder"].as_str()),
        (Some("held"), Some("agent-a"))
    );

    let (said, released) = a
        .ok(
            "scratchpad_lease",
            json!({"name": "plan", "action": "release", "token": 1}),
        )
        .await;
    assert_eq!(released["state"], "released");
    assert!(said.contains("released by agent-a"), "{said}");
    let late = a
        .fails(
            "scratchpad_write",
            json!({"name": "plan", "content": "a late change\n", "lease": 1}),
        )
        .await;
    assert!(
        late.contains("lease token 1 on `plan` was released at")
            && late.contains("scratchpad_lease(name=\"plan\", action=\"acquire\")"),
        "{late}"
    );
    let (now, _) = b.ok("scratchpad_read", json!({"name": "plan"})).await;
    assert!(!now.contains("late"), "{now}");
}

#[tokio::test]
async fn diffs_between_entries_go_on_with_their_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&store_url(&dir)).unwrap();
    let agent = Agent::connect(&pad, "tester").await;
    let before: String = (1..=3_000)
        .map(|i| format!("test case_{i} ... ok\n"))
        .collect();
    let after = before
        .replace("case_500 ... ok", "case_500 ... FAILED")
        .replace("case_2500 ... ok", "case_2500 ... FAILED");
    for (name, content) in [("run_1", &before), ("run_2", &after)] {
        agent
            .ok(
                "scratchpad_write",
                json!({"name": name, "content": content}),
            )
            .await;
    }
    let (first, structured) = agent
        .ok(
            "scratchpad_read",
            json!({"name": "run_1", "mode": "diff", "against": "run_2", "max_chars": 400}),
        )
        .await;
    assert!(first.contains("+test case_500 ... FAILED"), "{first}");
    assert!(!first.contains("case_2500 ... FAILED"), "{first}");
    assert_eq!(structured["truncated"], true);
    let next = structured["continuation_arguments"].clone();
    assert_eq!(next["mode"], "diff");
    assert_eq!(next["against"], "run_2");
    let (second, _) = agent.ok("scratchpad_read", next).await;
    assert!(second.contains("+test case_2500 ... FAILED"), "{second}");
    assert!(!second.contains("case_500 ... FAILED"), "{second}");

    // Arguments the mode does not take are named.
    let wrong = agent
        .fails(
            "scratchpad_read",
            json!({"name": "run_1", "mode": "history", "pattern": "x"}),
        )
        .await;
    assert!(
        wrong.contains("`pattern` does not apply to mode=history"),
        "{wrong}"
    );
    let wrong = agent
        .fails(
            "scratchpad_read",
            json!({"name": "run_1", "mode": "grep", "pattern": "x", "against": "run_2"}),
        )
        .await;
    assert!(
        wrong.contains("`against` does not apply to mode=grep"),
        "{wrong}"
    );
    let nothing = agent
        .fails("scratchpad_read", json!({"name": "run_1", "mode": "diff"}))
        .await;
    assert!(nothing.contains("keeps no older version"), "{nothing}");
}

#[test]
fn continuations_of_version_reads_and_diffs_validate_against_the_schema() {
    use scratchpad_core::diff::DiffCall;
    use scratchpad_core::{Call, DiffCursor, ReadMode, Target};
    let read_tool = tools::definitions()
        .into_iter()
        .find(|tool| tool.name == tools::READ)
        .unwrap();
    let schema = Value::Object((*read_tool.input_schema).clone());
    let validator = jsonschema::validator_for(&schema).unwrap();
    let calls = [
        Call::ReadVersion {
            name: "plan".into(),
            version: 4,
            mode: ReadMode::grep("TODO", 1),
        },
        Call::Diff(DiffCall {
            a: Target::at("run_1", 1),
            b: Target::at("run_2", 3),
            cursor: Some(DiffCursor {
                a_line: 40,
                b_line: 42,
            }),
            plain: false,
        }),
    ];
    for call in calls {
        let arguments = tools::speak::call_arguments(&call).unwrap();
        let value = Value::Object(arguments);
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{value}: {errors:?}");
    }
}

#[tokio::test]
async fn a_long_history_is_listed_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&store_url(&dir)).unwrap();
    for i in 1..=60 {
        pad.write(
            "plan",
            &format!("step {i}\n"),
            scratchpad_core::WriteOptions::default(),
        )
        .unwrap();
    }
    let agent = Agent::connect(&pad, "reader").await;
    let (listed, structured) = agent
        .ok(
            "scratchpad_read",
            json!({"name": "plan", "mode": "history", "max_chars": 600}),
        )
        .await;
    assert!(listed.len() < 900, "{} chars: {listed}", listed.len());
    assert!(
        listed.starts_with("`plan` is at version 60; 59 older versions kept."),
        "{listed}"
    );
    assert!(
        listed.contains("v60 (current)") && listed.contains("older not listed"),
        "{listed}"
    );
    assert_eq!(structured["versions"].as_array().unwrap().len(), 60);
}

/// Regression: a client calling itself `evil\u{202e}name` (a right-to-left override) had its name
/// recorded as it was, and the history table showed its later columns reversed; a name with a
/// control character recorded no author at all.
#[tokio::test]
async fn a_client_name_that_would_distort_a_table_is_recorded_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&store_url(&dir)).unwrap();
    for (name, recorded) in [
        ("evil\u{202e}gnp.exe", "evil\\u{202e}gnp.exe"),
        (
            "zero\u{200b}width\u{2028}line",
            "zero\\u{200b}width\\u{2028}line",
        ),
        ("bell\u{7}", "bell\\u{7}"),
    ] {
        let agent = Agent::connect(&pad, name).await;
        let (_, entry) = agent
            .ok(
                "scratchpad_write",
                json!({"name": "plan", "content": format!("by {recorded}")}),
            )
            .await;
        assert_eq!(
            entry["author"], recorded,
            "the client is served, its name escaped"
        );
        // A holder the model types is its own input: refused, naming the character.
        let refused = agent
            .fails(
                "scratchpad_lease",
                json!({"name": "plan", "action": "acquire", "holder": "a\u{202e}b"}),
            )
            .await;
        assert!(
            refused.contains("U+202E") && refused.contains("character 2"),
            "{refused}"
        );
    }
}

/// Regression: `ttl: "0s"` for a lease suggested `never`, which a lease refuses; and
/// `scratchpad_pin` and `scratchpad_rename` took no `lease` while the other changes did.
#[tokio::test]
async fn lease_lengths_suggest_what_a_lease_takes_and_pin_and_rename_carry_a_lease() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&store_url(&dir)).unwrap();
    let a = Agent::connect(&pad, "agent-a").await;
    for ttl in ["0s", "never", "-1m", "soon"] {
        let refused = a
            .fails(
                "scratchpad_lease",
                json!({"name": "plan", "action": "acquire", "ttl": ttl}),
            )
            .await;
        assert!(
            !refused.contains("`never`") && refused.contains("60s"),
            "{ttl}: {refused}"
        );
    }
    a.ok("scratchpad_write", json!({"name": "plan", "content": "1."}))
        .await;
    let (_, lease) = a
        .ok(
            "scratchpad_lease",
            json!({"name": "plan", "action": "acquire", "ttl": "60s"}),
        )
        .await;
    let token = lease["token"].as_u64().unwrap();
    a.ok("scratchpad_pin", json!({"name": "plan", "lease": token}))
        .await;
    a.ok(
        "scratchpad_lease",
        json!({"name": "plan", "action": "release", "token": token}),
    )
    .await;
    let b = Agent::connect(&pad, "agent-b").await;
    b.ok(
        "scratchpad_lease",
        json!({"name": "plan", "action": "acquire", "ttl": "60s"}),
    )
    .await;
    for (tool, args) in [
        (
            "scratchpad_pin",
            json!({"name": "plan", "pinned": false, "lease": token}),
        ),
        (
            "scratchpad_rename",
            json!({"name": "plan", "new_name": "old_plan", "lease": token}),
        ),
    ] {
        let fenced = a.fails(tool, args).await;
        assert!(fenced.contains("stale"), "{tool}: {fenced}");
    }
}

#[tokio::test]
async fn edit_inserts_lines_after_a_line_on_the_version_read() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::open(&store_url(&dir)).unwrap();
    let agent = Agent::connect(&pad, "planner").await;
    agent
        .ok(
            "scratchpad_write",
            json!({"name": "plan", "content": "1. parse\n3. ship\n"}),
        )
        .await;
    let (text, _) = agent
        .ok(
            "scratchpad_edit",
            json!({"name": "plan", "after_line": 1, "new": "2. test", "if_version": 1}),
        )
        .await;
    assert!(
        text.contains("Inserted 1 line after line 1 of `plan`; now version 2 (3 lines)"),
        "{text}"
    );
    let stale = agent
        .fails(
            "scratchpad_edit",
            json!({"name": "plan", "after_line": 0, "new": "# plan", "if_version": 1}),
        )
        .await;
    assert!(stale.contains("version"), "{stale}");
    let past = agent
        .fails(
            "scratchpad_edit",
            json!({"name": "plan", "after_line": 9, "new": "x"}),
        )
        .await;
    assert!(past.contains("has 3 lines"), "{past}");
    let mixed = agent
        .fails(
            "scratchpad_edit",
            json!({"name": "plan", "after_line": 0, "old": "x", "new": "y"}),
        )
        .await;
    assert!(mixed.contains("`after_line` inserts `new`"), "{mixed}");
    let content = pad
        .read(
            "plan",
            &scratchpad_core::ReadMode::Full { force: true },
            None,
        )
        .unwrap()
        .text;
    assert_eq!(content, "1. parse\n2. test\n3. ship\n");
}
