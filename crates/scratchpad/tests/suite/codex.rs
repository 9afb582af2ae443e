//! The real Codex CLI (pinned in `scripts/node-env`), its `exec_command` output routed through the
//! scratchpad, run with no network against a scripted Responses API on loopback: what the model
//! receives is the `function_call_output` items of the last request to that API.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::common::Pad;
use crate::common::agent_shell::{BIG, FAILING, SMALL, without_lines};
use crate::common::clients::{bin, node_cli, path_with_scratchpad};
use crate::common::model_api::{ModelApi, Request, Response};

/// A Responses API whose model runs each `(id, cmd)` with `exec_command` as the call `call_ID`,
/// one a turn, then says it is done.
fn codex_api(commands: &[(&str, &str)]) -> ModelApi {
    let turns: Vec<(String, String)> = commands
        .iter()
        .map(|(id, cmd)| (format!("call_{id}"), (*cmd).to_owned()))
        .collect();
    let turns = Mutex::new(turns.into_iter());
    ModelApi::start(move |request| answer(request, &turns))
}

fn answer(request: &Request, turns: &Mutex<std::vec::IntoIter<(String, String)>>) -> Response {
    let path = request.path.split('?').next().unwrap_or_default();
    if request.method == "GET" && path.ends_with("/models") {
        // An empty list: Codex keeps its built-in model information.
        return Response::json(&json!({"object": "list", "data": [], "models": []}));
    }
    if request.method != "POST" || !path.ends_with("/responses") {
        return Response::not_found();
    }
    let item = match turns.lock().unwrap().next() {
        Some((call_id, cmd)) => json!({"type": "function_call", "id": format!("fc_{call_id}"),
            "call_id": call_id, "name": "exec_command",
            "arguments": json!({"cmd": cmd}).to_string(), "status": "completed"}),
        None => json!({"type": "message", "id": "msg_done", "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "done", "annotations": []}]}),
    };
    let usage = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 20});
    let mut events = String::new();
    let mut event = |data: Value| {
        events.push_str(&format!(
            "event: {}\ndata: {data}\n\n",
            data["type"].as_str().unwrap()
        ));
    };
    event(
        json!({"type": "response.created", "response": {"id": "resp", "object": "response",
        "status": "in_progress", "output": []}}),
    );
    event(json!({"type": "response.output_item.added", "output_index": 0, "item": item}));
    event(json!({"type": "response.output_item.done", "output_index": 0, "item": item}));
    event(
        json!({"type": "response.completed", "response": {"id": "resp", "object": "response",
        "status": "completed", "output": [item], "usage": usage}}),
    );
    Response::event_stream(events)
}

/// What each command came back with, by its id, as the model read it.
fn command_outputs(api: &ModelApi) -> BTreeMap<String, String> {
    let requests = api.requests();
    let last = requests
        .iter()
        .rev()
        .find(|r| r.method == "POST" && r.path.ends_with("/responses"))
        .unwrap_or_else(|| panic!("the model was never called: {requests:?}"));
    last.body["input"]
        .as_array()
        .unwrap_or_else(|| panic!("a request without input: {}", last.body))
        .iter()
        .filter(|item| item["type"] == "function_call_output")
        .map(|item| {
            let id = item["call_id"].as_str().unwrap();
            let output = match &item["output"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            (id.trim_start_matches("call_").to_owned(), output)
        })
        .collect()
}

/// The user's config.toml before the scratchpad: the model at `api`.
fn user_config(api: &ModelApi) -> String {
    format!(
        r#"model = "gpt-5.5"
model_provider = "scripted"
check_for_update_on_startup = false

[model_providers.scripted]
name = "scripted"
base_url = "{}/v1"
wire_api = "responses"
env_key = "SCRIPTED_MODEL_API_KEY"
"#,
        api.url()
    )
}

/// A `CODEX_HOME` whose model is `api`, with `scratchpad hooks install --client codex --command
/// PROGRAM` run in it. Codex's sandbox may not show every mount of the host (the build directory),
/// so PROGRAM is a link to the scratchpad under test in the directory of the store, which install
/// makes a writable root and the sandbox shows.
fn codex_home(pad: &Pad, api: &ModelApi) -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    std::fs::write(&config, user_config(api)).unwrap();
    let program = pad.dir.path().join("bin/scratchpad");
    std::fs::create_dir_all(program.parent().unwrap()).unwrap();
    if std::fs::hard_link(bin(), &program).is_err() {
        std::fs::copy(bin(), &program).unwrap();
    }
    let out = pad.run(&[
        "hooks",
        "install",
        "--client",
        "codex",
        "--config",
        config.to_str().unwrap(),
        "--command",
        program.to_str().unwrap(),
    ]);
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(
        out.code == 0
            && written.contains("scratchpad-bash-env.sh")
            && written.contains(&pad.dir.path().display().to_string()),
        "{out:?}\n{written}"
    );
    (home, program)
}

/// Uninstall gives the user's config.toml back byte for byte.
fn uninstall(pad: &Pad, api: &ModelApi, home: &Path) {
    let config = home.join("config.toml");
    pad.run(&[
        "hooks",
        "uninstall",
        "--client",
        "codex",
        "--config",
        config.to_str().unwrap(),
    ])
    .ok();
    assert_eq!(std::fs::read_to_string(config).unwrap(), user_config(api));
}

/// Runs `codex exec go` in a fresh workspace with `codex_home`, the scratchpad on PATH, sandboxed
/// to the workspace (and the store, a writable root); returns what it printed.
fn codex(pad: &Pad, codex_home: &Path) -> String {
    let codex = node_cli("codex");
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = Command::new("timeout")
        .arg("180")
        .arg(&codex)
        .args([
            "exec",
            "--skip-git-repo-check",
            "-s",
            "workspace-write",
            "go",
        ])
        // No SHLVL, as when an IDE starts Codex: the level install sets lets the sandboxed bash
        // read BASH_ENV (at level 1 it would take its stdin for a network connection).
        .env_clear()
        .env("PATH", path_with_scratchpad())
        .env("HOME", home.path())
        .env("CODEX_HOME", codex_home)
        .env("SCRATCHPAD_STORE", &pad.store)
        .env("SCRIPTED_MODEL_API_KEY", "test-key")
        .current_dir(project.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "codex failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Codex's framing of a result without what differs from run to run (chunk id, wall time).
fn steady(output: &str) -> String {
    without_lines(output, &["Chunk ID: ", "Wall time: "])
}

/// SMALL as Codex frames it, without the lines that differ from run to run.
const SMALL_SHOWN: &str = "Process exited with code 0\nOriginal token count: 13\nOutput:\nünïcode \"quoted\" $HOME\nit's\nwärning: on stderr";

/// One session of the real CLI, before its shell snapshot is ready and after: long outputs reach
/// the model as a reference with the error line and the way to read on, a failure with its exit
/// code and last lines, small output as Codex shows it without the scratchpad, and the model's
/// `scratchpad read` gets the stored lines from the same store and session.
#[test]
fn codex_exec_command_output_goes_through_the_scratchpad_before_and_after_the_shell_snapshot() {
    let pad = Pad::new();
    let api = codex_api(&[
        ("big", BIG),
        ("failing", FAILING),
        ("small", SMALL),
        ("read", "scratchpad read bash_1 --lines 200000-200002"),
        // Codex's shell snapshot is ready a second or two into the session.
        ("wait", "sleep 4"),
        ("big_again", BIG),
        ("small_again", SMALL),
    ]);
    let (home, _) = codex_home(&pad, &api);
    let printed = codex(&pad, home.path());
    let outputs = command_outputs(&api);
    let shown = |id: &str| {
        outputs
            .get(id)
            .unwrap_or_else(|| panic!("no output for {id}: {outputs:#?}\n{printed}"))
            .clone()
    };

    for (id, name) in [("big", "bash_1"), ("big_again", "bash_3")] {
        let big = shown(id);
        assert!(big.len() < 4_000, "{id}: {big}");
        assert!(
            big.contains(&format!("stored it whole as `{name}`"))
                && big.contains("ERROR: disk full at step 200001")
                && big.contains("200,001")
                && big.contains(&format!("scratchpad read {name}"))
                && !big.contains("truncated"),
            "{id}: {big}"
        );
    }
    let failing = shown("failing");
    assert!(failing.len() < 4_000, "{failing}");
    assert!(
        failing.contains("stored it whole as `bash_2`")
            && failing.contains("\n100000\n[exit code 3]")
            && failing.contains("Process exited with code 3"),
        "{failing}"
    );
    // As Codex frames it without the capture (the fail-open test below sees the same).
    assert_eq!(steady(&shown("small")), SMALL_SHOWN);
    assert_eq!(steady(&shown("small_again")), SMALL_SHOWN);
    let read = shown("read");
    assert!(
        read.contains("200000: ab\n200001: ERROR: disk full at step 200001\n200002: ab"),
        "{read}"
    );
    assert!(!read.contains("stored it whole"), "{read}");
    uninstall(&pad, &api, home.path());
}

/// With the scratchpad's binary gone, the capture lines do nothing: Codex's own framing and truncation.
#[test]
fn codex_exec_command_output_passes_as_it_is_when_the_scratchpad_is_missing() {
    let pad = Pad::new();
    let api = codex_api(&[("failing", FAILING), ("small", SMALL)]);
    let (home, program) = codex_home(&pad, &api);
    std::fs::remove_file(program).unwrap();
    let printed = codex(&pad, home.path());
    let outputs = command_outputs(&api);
    assert_eq!(outputs.len(), 2, "{outputs:#?}\n{printed}");
    let failing = &outputs["failing"];
    assert!(
        failing.contains("Process exited with code 3")
            && failing.contains("truncated")
            && failing.ends_with("\n99999\n100000\n")
            && !failing.contains("scratchpad"),
        "{failing}"
    );
    assert_eq!(steady(&outputs["small"]), SMALL_SHOWN);
}
