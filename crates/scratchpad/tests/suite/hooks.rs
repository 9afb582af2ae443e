//! `scratchpad hooks`: installing into Claude Code's settings file, and what the hooks answer.

use std::path::Path;

use crate::common::Pad;

const USER_SETTINGS: &str =
    "{\n    // not valid JSON for Claude Code, so never written this way\n}\n";

fn settings(pad: &Pad) -> std::path::PathBuf {
    Path::new(&pad.path()).join(".claude").join("settings.json")
}

#[test]
fn install_then_uninstall_gives_the_settings_back_byte_for_byte() {
    let pad = Pad::new();
    let file = settings(&pad);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let text = "{\n\t\"model\": \"opus\",\n\t\"permissions\": {\"allow\": [\"Bash(npm test:*)\"]},\n\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]\n\t}\n}\n";
    std::fs::write(&file, text).unwrap();

    let dry = pad.ok(&[
        "hooks",
        "install",
        "--client",
        "claude-code",
        "--scope",
        "project",
        "--dry-run",
    ]);
    assert!(
        dry.contains("+\t\t\"SessionStart\": [") && dry.contains("dry run: nothing was written"),
        "{dry}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);

    let out = pad.ok(&[
        "hooks",
        "install",
        "--client",
        "claude-code",
        "--scope",
        "project",
    ]);
    assert!(
        out.contains("added      SessionStart hook (scratchpad hooks run session-start)"),
        "{out}"
    );
    assert!(out.contains("backup: "), "{out}");
    let installed = std::fs::read_to_string(&file).unwrap();
    // The user's layout (tabs, order, their own hooks) is kept; ours follows theirs.
    assert_eq!(
        installed,
        "{\n\t\"model\": \"opus\",\n\t\"permissions\": {\"allow\": [\"Bash(npm test:*)\"]},\n\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}],\n\t\t\"SessionStart\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"scratchpad hooks run session-start\"}]}\n\t\t]\n\t}\n}\n"
    );
    let again = pad.ok(&[
        "hooks",
        "install",
        "--client",
        "claude-code",
        "--scope",
        "project",
    ]);
    assert!(
        again.contains("nothing to change: the hooks are already installed"),
        "{again}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), installed);

    pad.ok(&[
        "hooks",
        "uninstall",
        "--client",
        "claude-code",
        "--scope",
        "project",
    ]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    let nothing = pad.ok(&[
        "hooks",
        "uninstall",
        "--client",
        "claude-code",
        "--scope",
        "project",
    ]);
    assert!(
        nothing.contains("nothing to change: there is no scratchpad hook"),
        "{nothing}"
    );
}

#[test]
fn a_settings_file_install_created_is_removed_by_uninstall() {
    let pad = Pad::new();
    let file = Path::new(&pad.path()).join("elsewhere.json");
    let path = file.to_str().unwrap();
    let out = pad.ok(&[
        "--session",
        "web",
        "hooks",
        "install",
        "--client",
        "claude",
        "--config",
        path,
        "--command",
        "/opt/bin/scratchpad",
    ]);
    assert!(out.contains(&format!("created {path}")), "{out}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("\"command\": \"/opt/bin/scratchpad --session web hooks run session-start\""),
        "{text}"
    );
    pad.ok(&[
        "hooks",
        "uninstall",
        "--client",
        "claude-code",
        "--config",
        path,
    ]);
    assert!(!file.exists());
}

#[test]
fn settings_that_are_not_json_are_refused_and_left_alone() {
    let pad = Pad::new();
    let file = settings(&pad);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, USER_SETTINGS).unwrap();
    let run = pad
        .run(&[
            "hooks",
            "install",
            "--client",
            "claude-code",
            "--scope",
            "project",
        ])
        .fails();
    assert!(
        run.stderr.contains("is not valid JSON") && run.stderr.contains("nothing was changed"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), USER_SETTINGS);
}

#[test]
fn session_start_lists_the_pinned_notes() {
    let pad = Pad::new();
    pad.ok(&["write", "plan", "1. reproduce the crash\n2. bisect\n"]);
    pad.ok(&["pin", "plan"]);
    pad.ok(&["write", "scratch", "not pinned"]);
    let out = pad.ok_stdin(
        &["hooks", "run", "session-start"],
        br#"{"session_id": "abc", "hook_event_name": "SessionStart", "source": "compact"}"#,
    );
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.starts_with(
            "The scratchpad (the `scratchpad` command in your shell) keeps your notes"
        ),
        "{context}"
    );
    assert!(
        context.ends_with("Pinned:\n- plan (text, 2 lines): 1. reproduce the crash"),
        "{context}"
    );
    assert!(!context.contains("scratch ("), "{context}");
    assert!(context.lines().count() <= 3, "{context}");
}

#[test]
fn session_start_fails_open_when_the_store_cannot_be_opened() {
    let pad = Pad::new();
    let run = pad
        .command(&[
            "--store",
            "postgres://nobody@127.0.0.1:1/none",
            "hooks",
            "run",
            "session-start",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(run.status.success());
    assert!(run.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("scratchpad SessionStart hook:") && stderr.contains("nothing added"),
        "{stderr}"
    );
}
