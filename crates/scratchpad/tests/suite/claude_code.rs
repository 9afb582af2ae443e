//! The real Claude Code CLI (pinned in `scripts/node-env`), with the scratchpad's hooks installed,
//! run with no network against a scripted Anthropic Messages API on loopback: what the model receives
//! is what the last request to that API holds.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::common::Pad;
use crate::common::clients::{bin, node_cli, path_with_scratchpad};
use crate::common::model_api::{ModelApi, Request, Response};

/// A Messages API that answers each call carrying tools with the next scripted turn (a list of
/// content blocks), and every other call (titles, topic checks) with a short text.
struct FakeApi {
    api: ModelApi,
}

impl FakeApi {
    fn start(turns: Vec<Value>) -> Self {
        let turns = Mutex::new(turns.into_iter());
        Self {
            api: ModelApi::start(move |request| answer(request, &turns)),
        }
    }

    /// The last call that carried tools: everything the model was shown.
    fn last_model_call(&self) -> Value {
        let requests = self.api.requests();
        requests
            .iter()
            .rev()
            .map(|r| &r.body)
            .find(|body| has_tools(body))
            .cloned()
            .unwrap_or_else(|| panic!("the model was never called: {requests:?}"))
    }
}

fn has_tools(body: &Value) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty())
}

fn answer(request: &Request, turns: &Mutex<std::vec::IntoIter<Value>>) -> Response {
    if request.method != "POST" {
        return Response::not_found();
    }
    if request.path.contains("count_tokens") {
        return Response::json(&json!({"input_tokens": 10}));
    }
    let body = &request.body;
    let blocks = if has_tools(body) {
        let next = turns.lock().unwrap().next();
        next.unwrap_or_else(|| json!([{"type": "text", "text": "done"}]))
    } else {
        json!([{"type": "text", "text": "ok"}])
    };
    let stream_it = body.get("stream").and_then(Value::as_bool) == Some(true);
    let blocks = blocks.as_array().cloned().unwrap_or_default();
    let stop = if blocks.iter().any(|b| b["type"] == "tool_use") {
        "tool_use"
    } else {
        "end_turn"
    };
    let mut message = json!({"id": "msg_1", "type": "message", "role": "assistant",
        "model": body.get("model").cloned().unwrap_or(json!("m")), "content": [],
        "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}});
    if !stream_it {
        message["content"] = Value::Array(blocks);
        message["stop_reason"] = json!(stop);
        return Response::json(&message);
    }
    let mut events = String::new();
    let mut event =
        |name: &str, data: Value| events.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    event(
        "message_start",
        json!({"type": "message_start", "message": message}),
    );
    for (index, block) in blocks.iter().enumerate() {
        if block["type"] == "text" {
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
            );
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": block["text"]}}),
            );
        } else {
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}),
            );
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": block["input"].to_string()}}),
            );
        }
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
    }
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 1}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    Response::event_stream(events)
}

/// Runs `claude -p PROMPT ARGS` in `project` with `home` as its home and the scratchpad on PATH;
/// returns its JSON result.
fn claude(
    pad: &Pad,
    api: &FakeApi,
    home: &Path,
    project: &Path,
    prompt: &str,
    args: &[&str],
) -> Value {
    let claude = node_cli("claude");
    let output = Command::new("timeout")
        .arg("180")
        .arg(&claude)
        .args(["-p", prompt, "--output-format", "json"])
        .args(args)
        .env_clear()
        .env("PATH", path_with_scratchpad())
        .env("HOME", home)
        .env("SCRATCHPAD_STORE", &pad.store)
        .env("ANTHROPIC_BASE_URL", api.api.url())
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .current_dir(project)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "claude failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("claude's result is not JSON ({e}):\n{stdout}"))
}

#[test]
fn claude_code_starts_a_session_with_the_pinned_notes_and_reads_the_same_store() {
    let pad = Pad::new();
    pad.ok(&[
        "write",
        "plan",
        "1. reproduce the crash\n2. bisect to the commit\n",
    ]);
    pad.ok(&["pin", "plan"]);
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let install = pad
        .command(&["hooks", "install", "--client", "claude-code"])
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );

    let api = FakeApi::start(vec![
        json!([{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                "input": {"command": "scratchpad read plan", "description": "Read the plan"}}]),
        json!([{"type": "text", "text": "done"}]),
    ]);
    let result = claude(
        &pad,
        &api,
        home.path(),
        project.path(),
        "carry on with the plan",
        &["--allowedTools", "Bash"],
    );
    assert_eq!(result["is_error"], false, "{result}");

    let call = api.last_model_call();
    let shown = call["messages"].to_string();
    // The SessionStart hook's lines reach the model, pinned note included.
    assert!(
        shown.contains("keeps your notes and stored outputs across compaction")
            && shown.contains("- plan (text, 2 lines): 1. reproduce the crash"),
        "{shown}"
    );
    // The `scratchpad read` it suggests works from the model's own shell: same store, same session.
    let results: Vec<String> = tool_results(&call).into_values().collect();
    assert_eq!(results.len(), 1, "{shown}");
    assert!(
        results[0].contains("2. bisect to the commit"),
        "{}",
        results[0]
    );
}

/// What each tool call came back with, by its id, as the model read it.
fn tool_results(call: &Value) -> BTreeMap<String, String> {
    call["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let content = match &b["content"] {
                Value::String(text) => text.clone(),
                Value::Array(blocks) => blocks
                    .iter()
                    .filter_map(|block| block["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => other.to_string(),
            };
            (b["tool_use_id"].as_str().unwrap().to_owned(), content)
        })
        .collect()
}

/// One turn calling the Bash tool with `command`, as the tool use `toolu_ID`.
fn bash(id: &str, command: &str) -> Value {
    json!([{"type": "tool_use", "id": format!("toolu_{id}"), "name": "Bash",
            "input": {"command": command, "description": id}}])
}

/// One session of the real CLI, its Bash tool's output through the capture: long outputs come back
/// as references the model reads on with `scratchpad read`, everything else as it was, and the
/// user's permission rules decide as they did.
#[test]
fn claude_code_bash_output_goes_through_the_scratchpad_and_permissions_keep_their_meaning() {
    let pad = Pad::new();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let project_dir = project.path().canonicalize().unwrap();
    std::fs::create_dir_all(project_dir.join("sub")).unwrap();
    std::fs::write(
        project_dir.join("sub/Makefile"),
        "all:\n\t@echo built > out.txt\n\t@echo made it\n",
    )
    .unwrap();
    std::fs::write(
        project_dir.join("fail.sh"),
        "#!/bin/sh\nseq 1 100000\necho 'FAILED: the last words' >&2\nexit 3\n",
    )
    .unwrap();
    // A scratchpad of its own, so that taking it away mid-session is a step of the session.
    let copy = tempfile::tempdir().unwrap();
    let own = copy.path().join("scratchpad");
    std::fs::copy(bin(), &own).unwrap();
    std::fs::write(
        project_dir.join("unplug.sh"),
        format!("#!/bin/sh\nmv {} {}.gone\n", own.display(), own.display()),
    )
    .unwrap();
    for script in ["fail.sh", "unplug.sh"] {
        use std::os::unix::fs::PermissionsExt as _;
        let file = project_dir.join(script);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let rules = "{\n  \"permissions\": {\n    \"allow\": [\"Bash(echo:*)\", \"Bash(printf:*)\", \"Bash(seq:*)\", \"Bash(cd:*)\", \"Bash(make:*)\", \"Bash(pwd)\", \"Bash(ls:*)\", \"Bash(cat:*)\", \"Bash(scratchpad read:*)\", \"Bash(./fail.sh)\", \"Bash(./unplug.sh)\"],\n    \"deny\": [\"Bash(rm:*)\"]\n  }\n}\n";
    std::fs::write(&settings, rules).unwrap();
    let install = pad
        .command(&[
            "hooks",
            "install",
            "--client",
            "claude-code",
            "--command",
            own.to_str().unwrap(),
        ])
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );

    let big = "seq 1 200000; echo 'ERROR: disk full at step 200001'; seq 200002 200010";
    let small = "printf '%s\\n' 'ünïcode \"quoted\" $HOME' | cat; cat <<'EOF'\nheredoc 'single' \"double\"\nEOF";
    let api = FakeApi::start(vec![
        bash("big", big),
        bash("read", "scratchpad read bash_1 --lines 200000-200002"),
        bash("fail", "./fail.sh"),
        bash("small", small),
        bash("make", "cd sub && make"),
        bash("where", "pwd && ls"),
        bash("denied", "rm -rf sub"),
        bash("unasked", "touch unasked"),
        bash("unplug", "cd .. && ./unplug.sh"),
        bash("open", "seq 1 2000"),
        json!([{"type": "text", "text": "done"}]),
    ]);
    let result = claude(
        &pad,
        &api,
        home.path(),
        &project_dir,
        "go",
        &["--max-turns", "20"],
    );
    let results = tool_results(&api.last_model_call());
    let shown = |id: &str| {
        results
            .get(&format!("toolu_{id}"))
            .unwrap_or_else(|| panic!("no result for {id}: {results:#?}\n{result}"))
            .clone()
    };

    // 1.29 MB: a reference with the ERROR line and its number, and the way to read on.
    let big = shown("big");
    assert!(big.len() < 6_000, "{big}");
    assert!(
        big.contains("stored it whole as `bash_1`")
            && big.contains("200001")
            && big.contains("ERROR: disk full at step 200001")
            && big.contains("scratchpad read bash_1"),
        "{big}"
    );
    // The model's `scratchpad read` gets the lines as they are, not stored again.
    let read = shown("read");
    assert!(
        read.contains("200001: ERROR: disk full at step 200001\n200002: 200002"),
        "{read}"
    );
    assert!(!read.contains("stored it whole"), "{read}");
    // A failing command: the exit code and the end.
    let fail = shown("fail");
    assert!(
        fail.contains("Exit code 3")
            && fail.contains("[exit code 3]")
            && fail.contains("FAILED: the last words")
            && fail.contains("stored it whole as `bash_2`"),
        "{fail}"
    );
    // Small output, pipes, heredocs, quoting and non-ASCII: as the shell printed them.
    assert_eq!(
        shown("small"),
        "ünïcode \"quoted\" $HOME\nheredoc 'single' \"double\""
    );
    assert_eq!(shown("make"), "made it");
    assert_eq!(
        shown("where"),
        format!("{}\nMakefile\nout.txt", project_dir.join("sub").display())
    );
    // The deny rule still denies.
    assert!(
        result["permission_denials"]
            .to_string()
            .contains("rm -rf sub"),
        "{result}"
    );
    assert!(project_dir.join("sub").exists());
    // A command no rule allows is not allowed by the capture either.
    assert!(
        result["permission_denials"]
            .to_string()
            .contains("touch unasked"),
        "{result}"
    );
    assert!(!project_dir.join("unasked").exists());

    // With the scratchpad gone, output passes as it is.
    let expected: Vec<String> = (1..=2_000).map(|n| n.to_string()).collect();
    assert_eq!(shown("unplug"), "(Bash completed with no output)");
    assert_eq!(shown("open"), expected.join("\n"));

    // Uninstall gives the user's settings back byte for byte.
    std::fs::rename(format!("{}.gone", own.display()), &own).unwrap();
    let uninstall = pad
        .command(&["hooks", "uninstall", "--client", "claude-code"])
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(uninstall.status.success());
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), rules);
}
