//! The real Claude Code CLI (pinned in `scripts/node-env`), with the scratchpad's hooks installed,
//! run with no network against a scripted Anthropic Messages API on loopback: what the model receives
//! is what the last request to that API holds.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::common::Pad;
use crate::common::clients::{bin, node_prefix};

/// A Messages API that answers each call carrying tools with the next scripted turn (a list of
/// content blocks), and every other call (titles, topic checks) with a short text.
struct FakeApi {
    port: u16,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl FakeApi {
    fn start(turns: Vec<Value>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let turns = Arc::new(Mutex::new(turns.into_iter()));
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (seen, turns) = (Arc::clone(&seen), Arc::clone(&turns));
                std::thread::spawn(move || {
                    let _ = serve(stream, &seen, &turns);
                });
            }
        });
        Self { port, requests }
    }

    /// The last call that carried tools: everything the model was shown.
    fn last_model_call(&self) -> Value {
        let requests = self.requests.lock().unwrap();
        requests
            .iter()
            .rev()
            .find(|r| {
                r.get("tools")
                    .is_some_and(|t| !t.as_array().unwrap().is_empty())
            })
            .cloned()
            .unwrap_or_else(|| panic!("the model was never called: {requests:?}"))
    }
}

type Turns = Mutex<std::vec::IntoIter<Value>>;

fn serve(stream: TcpStream, seen: &Mutex<Vec<Value>>, turns: &Turns) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut stream = stream;
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let mut respond = |status: &str, kind: &str, body: &[u8]| {
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        stream.flush()
    };
    if !request_line.starts_with("POST") {
        return respond("404 Not Found", "text/plain", b"");
    }
    if request_line.contains("count_tokens") {
        return respond("200 OK", "application/json", br#"{"input_tokens": 10}"#);
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    let blocks = if has_tools {
        let next = turns.lock().unwrap().next();
        next.unwrap_or_else(|| json!([{"type": "text", "text": "done"}]))
    } else {
        json!([{"type": "text", "text": "ok"}])
    };
    let stream_it = body.get("stream").and_then(Value::as_bool) == Some(true);
    seen.lock().unwrap().push(body.clone());
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
        return respond("200 OK", "application/json", message.to_string().as_bytes());
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
    respond("200 OK", "text/event-stream", events.as_bytes())
}

/// Runs `claude -p PROMPT` in `project` with `home` as its home and the scratchpad on PATH; returns
/// its JSON result.
fn claude(pad: &Pad, api: &FakeApi, home: &Path, project: &Path, prompt: &str) -> Value {
    let claude = node_prefix().join("node_modules/.bin/claude");
    assert!(
        claude.exists(),
        "{} is missing: scripts/node-env installs it",
        claude.display()
    );
    let bin_dir = Path::new(bin()).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("timeout")
        .arg("180")
        .arg(&claude)
        .args([
            "-p",
            prompt,
            "--output-format",
            "json",
            "--allowedTools",
            "Bash",
        ])
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("SCRATCHPAD_STORE", &pad.store)
        .env(
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", api.port),
        )
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
    let results: Vec<String> = call["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["content"].to_string())
        .collect();
    assert_eq!(results.len(), 1, "{shown}");
    assert!(
        results[0].contains("2. bisect to the commit"),
        "{}",
        results[0]
    );
}
