//! The real Gemini CLI (pinned in `scripts/node-env`), its `run_shell_command` output routed through
//! the scratchpad, run with no network against a scripted Gemini API on loopback: what the model
//! receives is the `functionResponse` parts of the last request to that API.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::Pad;
use crate::common::agent_shell::{BIG, FAILING, SMALL, without_lines};
use crate::common::clients::{bin, node_cli, node_prefix, path_with_scratchpad};
use crate::common::model_api::{ModelApi, Request, Response};

/// A Gemini API whose model runs `commands` with `run_shell_command`, one a turn, then says it is
/// done. The turn to play is the number of model turns the request already holds, so the CLI's
/// retries and side calls (next-speaker checks, routing) never shift the script.
fn gemini_api(commands: &[&str]) -> ModelApi {
    let commands: Vec<String> = commands.iter().map(|c| (*c).to_owned()).collect();
    ModelApi::start(move |request| answer(request, &commands))
}

fn answer(request: &Request, commands: &[String]) -> Response {
    let usage =
        json!({"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110});
    if request.path.contains(":streamGenerateContent") {
        let turn = request.body["contents"]
            .as_array()
            .map_or(0, |c| c.iter().filter(|c| c["role"] == "model").count());
        let parts = match commands.get(turn) {
            Some(command) => json!([{"functionCall": {"name": "run_shell_command",
                "args": {"command": command, "description": "scripted"}}}]),
            None => json!([{"text": "done"}]),
        };
        let chunk = json!({"candidates": [{"content": {"role": "model", "parts": parts},
            "finishReason": "STOP", "index": 0}], "usageMetadata": usage, "modelVersion": "scripted"});
        return Response::event_stream(format!("data: {chunk}\r\n\r\n"));
    }
    if request.path.contains(":generateContent") {
        // Side questions ask for JSON of a known shape; one text satisfies all of them.
        let text = json!({"next_speaker": "user", "reasoning": "scripted", "model_choice": "flash",
            "complexity_reasoning": "scripted", "complexity_score": 1});
        return Response::json(&json!({"candidates": [{"content": {"role": "model",
            "parts": [{"text": text.to_string()}]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage}));
    }
    if request.path.contains(":countTokens") {
        return Response::json(&json!({"totalTokens": 100}));
    }
    Response::json(&json!({}))
}

/// The last call of the main conversation: everything the model was shown.
fn last_model_call(api: &ModelApi) -> Value {
    let requests = api.requests();
    requests
        .iter()
        .rev()
        .find(|r| r.path.contains(":streamGenerateContent"))
        .map(|r| r.body.clone())
        .unwrap_or_else(|| panic!("the model was never called: {requests:?}"))
}

/// What each shell command came back with, in order, as the model read it.
fn shell_outputs(api: &ModelApi) -> Vec<String> {
    last_model_call(api)["contents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["parts"].as_array())
        .flatten()
        .filter_map(|p| p.get("functionResponse"))
        .map(|r| {
            r["response"]["output"]
                .as_str()
                .unwrap_or_else(|| panic!("a function response without output: {r}"))
                .to_owned()
        })
        .collect()
}

/// The settings a user of an API key has, before the scratchpad.
const SETTINGS: &str = "{\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}\n}\n";
/// A `.env` of the user's own, beside the settings.
const DOTENV: &str = "# the user's own\nGEMINI_MODEL=gemini-2.5-flash\n";

/// A home with Gemini set up for an API key, and `scratchpad hooks install --client gemini` run
/// in it with `args`.
fn home_with_hooks(pad: &Pad, args: &[&str]) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".gemini");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("settings.json"), SETTINGS).unwrap();
    std::fs::write(dir.join(".env"), DOTENV).unwrap();
    let mut install = vec!["hooks", "install", "--client", "gemini"];
    install.extend(args);
    let out = pad
        .command(&install)
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(
        out.status.success() && dir.join("scratchpad-bash-env.sh").exists(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    home
}

/// Uninstall gives the user's settings and `.env` back byte for byte.
fn uninstall(pad: &Pad, home: &Path) {
    let out = pad
        .command(&["hooks", "uninstall", "--client", "gemini"])
        .env("HOME", home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = home.join(".gemini");
    assert_eq!(
        std::fs::read_to_string(dir.join("settings.json")).unwrap(),
        SETTINGS
    );
    assert_eq!(std::fs::read_to_string(dir.join(".env")).unwrap(), DOTENV);
}

/// Runs `gemini -p go --yolo -o json` in a fresh workspace with `home` as its home, the scratchpad
/// on PATH and the model at `api`; returns the JSON result.
fn gemini(pad: &Pad, api: &ModelApi, home: &Path) -> Value {
    let gemini = node_cli("gemini");
    let project = tempfile::tempdir().unwrap();
    // Gemini CLI needs Node 20 or later: the one of the prefix comes first.
    let path = format!(
        "{}:{}",
        node_prefix().join("node_modules/node/bin").display(),
        path_with_scratchpad()
    );
    let output = Command::new("timeout")
        .arg("180")
        .arg(&gemini)
        .args(["-p", "go", "--yolo", "-o", "json"])
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("TERM", "xterm-256color")
        .env("SCRATCHPAD_STORE", &pad.store)
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
        .env("GOOGLE_GEMINI_BASE_URL", api.url())
        .env("GEMINI_API_KEY", "test-key")
        .current_dir(project.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "gemini failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("gemini's result is not JSON ({e}):\n{stdout}"))
}

/// Gemini's framing of a result without the process group id, which differs from run to run.
fn without_process_group(output: &str) -> String {
    without_lines(output, &["Process Group PGID: "])
}

/// One session of the real CLI: long outputs reach the model as a reference with the error line
/// and the way to read on, a failure with its exit code and last lines, small output as Gemini
/// shows it without the scratchpad, and the model's `scratchpad read` gets the stored lines.
#[test]
fn gemini_shell_output_goes_through_the_scratchpad() {
    let pad = Pad::new();
    pad.ok(&["write", "plan", "1. find the failing step\n2. fix it\n"]);
    pad.ok(&["pin", "plan"]);
    let home = home_with_hooks(&pad, &[]);
    let api = gemini_api(&[
        BIG,
        FAILING,
        SMALL,
        "scratchpad read bash_1 --lines 200000-200002",
    ]);
    let result = gemini(&pad, &api, home.path());
    let outputs = shell_outputs(&api);
    assert_eq!(outputs.len(), 4, "{outputs:#?}\n{result}");
    // The SessionStart hook's lines reach the model, pinned note included.
    let shown = last_model_call(&api).to_string();
    assert!(
        shown.contains("keeps your notes and stored outputs")
            && shown.contains("- plan (text, 2 lines): 1. find the failing step"),
        "{shown}"
    );

    let big = &outputs[0];
    assert!(big.len() < 4_000, "{big}");
    assert!(
        big.contains("stored it whole as `bash_1`")
            && big.contains("ERROR: disk full at step 200001")
            && big.contains("200,001")
            && big.contains("scratchpad read bash_1")
            && !big.contains("Output too large"),
        "{big}"
    );
    let failing = &outputs[1];
    assert!(failing.len() < 4_000, "{failing}");
    assert!(
        failing.contains("stored it whole as `bash_2`")
            && failing.contains("\n100000\n[exit code 3]")
            && failing.contains("Exit Code: 3"),
        "{failing}"
    );
    // As Gemini frames it without the capture (the fail-open test below sees the same).
    assert_eq!(
        without_process_group(&outputs[2]),
        "<untrusted_context>\nOutput: ünïcode \"quoted\" $HOME\nit's\nwärning: on stderr\n</untrusted_context>"
    );
    let read = &outputs[3];
    assert!(
        read.contains("200000: ab\n200001: ERROR: disk full at step 200001\n200002: ab"),
        "{read}"
    );
    assert!(!read.contains("stored it whole"), "{read}");
    uninstall(&pad, home.path());
}

/// With the scratchpad's binary gone, the capture lines do nothing: Gemini's own framing and truncation.
#[test]
fn gemini_shell_output_passes_as_it_is_when_the_scratchpad_is_missing() {
    let pad = Pad::new();
    let copy = tempfile::tempdir().unwrap();
    let own = copy.path().join("scratchpad");
    std::fs::copy(bin(), &own).unwrap();
    let home = home_with_hooks(&pad, &["--command", own.to_str().unwrap()]);
    std::fs::remove_file(&own).unwrap();
    let api = gemini_api(&[FAILING, SMALL]);
    let result = gemini(&pad, &api, home.path());
    let outputs = shell_outputs(&api);
    assert_eq!(outputs.len(), 2, "{outputs:#?}\n{result}");
    let failing = &outputs[0];
    assert!(
        failing.starts_with("Output too large. Showing first 8,000 and last 32,000 characters.")
            && failing.contains("\n99999\n100000\nExit Code: 3")
            && !failing.contains("scratchpad"),
        "{failing}"
    );
    assert_eq!(
        without_process_group(&outputs[1]),
        "<untrusted_context>\nOutput: ünïcode \"quoted\" $HOME\nit's\nwärning: on stderr\n</untrusted_context>"
    );
}
