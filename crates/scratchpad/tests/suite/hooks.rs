//! `scratchpad hooks`: installing into the agents' settings, what the hooks answer, and the capture lines
//! in each agent's shell.

use std::path::Path;

use serde_json::Value;

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

/// Runs the SessionStart hook the way Claude Code does, `$CLAUDE_ENV_FILE` set; returns that file.
fn start_session(pad: &Pad, env_file: &Path, args: &[&str]) {
    let mut all = args.to_vec();
    all.extend(["hooks", "run", "session-start"]);
    let run = pad
        .command(&all)
        .env("CLAUDE_ENV_FILE", env_file)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(run.status.success());
    assert!(
        run.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// What Claude Code's Bash tool runs for `command` (its script, as 2.1.332 writes it): the env file
/// pasted in, the command evaluated, the working directory kept for the next command. Returns the
/// merged output and the exit code.
fn bash_tool(pad: &Pad, env_file: &Path, cwd: &Path, command: &str) -> (Vec<u8>, i32) {
    bash_tool_on(&pad.store, pad, env_file, cwd, command)
}

/// [`bash_tool`] with `store` in `SCRATCHPAD_STORE`.
fn bash_tool_on(
    store: &str,
    pad: &Pad,
    env_file: &Path,
    cwd: &Path,
    command: &str,
) -> (Vec<u8>, i32) {
    let quoted = command.replace('\'', r"'\''");
    let cwd_file = pad.dir.path().join("cwd");
    let script = format!(
        "true && {}\n: && eval '{quoted}' < /dev/null && pwd -P >| {}",
        std::fs::read_to_string(env_file).unwrap(),
        cwd_file.display()
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &format!("{script} 2>&1")])
        .env_clear()
        .env("PATH", path_with_scratchpad())
        .env("HOME", pad.dir.path())
        .env("XDG_CONFIG_HOME", pad.dir.path().join("config"))
        .env("SCRATCHPAD_STORE", store)
        .current_dir(cwd)
        .output()
        .unwrap();
    (out.stdout, out.status.code().unwrap_or(-1))
}

/// `PATH` with the scratchpad under test first, as `scratchpad` in the model's shell.
fn path_with_scratchpad() -> String {
    format!(
        "{}:{}",
        Path::new(env!("CARGO_BIN_EXE_scratchpad"))
            .parent()
            .unwrap()
            .display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn session_start_adds_the_capture_to_the_env_file_once() {
    let pad = Pad::new();
    let env_file = pad.dir.path().join("env.sh");
    std::fs::write(&env_file, "export FROM_ANOTHER_HOOK=1").unwrap();
    start_session(&pad, &env_file, &[]);
    let once = std::fs::read_to_string(&env_file).unwrap();
    assert!(
        once.starts_with("export FROM_ANOTHER_HOOK=1\n# >>> scratchpad:"),
        "{once}"
    );
    assert!(once.contains(env!("CARGO_BIN_EXE_scratchpad")), "{once}");
    // resume, clear, compact: the same lines are not added again.
    start_session(&pad, &env_file, &[]);
    assert_eq!(std::fs::read_to_string(&env_file).unwrap(), once);
    // Another session given at install replaces them.
    start_session(&pad, &env_file, &["--session", "web"]);
    let web = std::fs::read_to_string(&env_file).unwrap();
    assert_eq!(web.matches("# >>> scratchpad:").count(), 1, "{web}");
    assert!(web.contains(" --session web hooks capture"), "{web}");
}

#[test]
fn the_bash_tool_keeps_small_output_and_stores_long_output() {
    let pad = Pad::new();
    let env_file = pad.dir.path().join("env.sh");
    start_session(&pad, &env_file, &[]);
    let project = pad.dir.path().join("project");
    std::fs::create_dir_all(project.join("sub")).unwrap();

    // Small output: byte for byte, stderr interleaved, no final newline, exit code kept.
    let small = "printf 'ünïcode \"quoted\" $HOME\\n'; echo err >&2; cat <<'X'\nheredoc 'line'\nX\nprintf 'no newline'; exit 3";
    let (out, code) = bash_tool(&pad, &env_file, &project, small);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "ünïcode \"quoted\" $HOME\nerr\nheredoc 'line'\nno newline"
    );
    assert_eq!(code, 3);

    // `cd` still moves the shell Claude Code records the directory of.
    let (out, code) = bash_tool(&pad, &env_file, &project, "cd sub && echo in | tr a-z A-Z");
    assert_eq!(
        (String::from_utf8(out).unwrap().as_str(), code),
        ("IN\n", 0)
    );
    let cwd = std::fs::read_to_string(pad.dir.path().join("cwd")).unwrap();
    assert_eq!(
        Path::new(cwd.trim_end()),
        project.join("sub").canonicalize().unwrap()
    );

    // Long output of a failing command: stored, and the model sees the reference instead.
    let (out, code) = bash_tool(
        &pad,
        &env_file,
        &project,
        "seq 1 100000 | sed 's/^/line /'; echo 'ERROR: the end' >&2; exit 3",
    );
    let out = String::from_utf8(out).unwrap();
    assert_eq!(code, 3);
    assert!(out.len() < 4_000, "{out}");
    assert!(
        out.contains("stored it whole as `bash_1` (text, 1,088,910 bytes, 100,001 lines)")
            && out.contains("ERROR: the end")
            && out.contains("[exit code 3]")
            && out.contains("scratchpad read bash_1"),
        "{out}"
    );
    let read = pad.ok(&["read", "bash_1", "--lines", "99999-100001"]);
    assert!(
        read.contains(" 99999: line 99999\n100000: line 100000\n100001: ERROR: the end"),
        "{read}"
    );

    // The scratchpad's own commands are not captured again: their output reaches the model whole.
    let (out, _) = bash_tool(
        &pad,
        &env_file,
        &project,
        "scratchpad read bash_1 --lines 1-500",
    );
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.len() > 4_096 && out.contains("500: line 500") && !out.contains("stored it whole"),
        "{out}"
    );
    // Nor when they come later in the command line; a mere mention of the word is captured.
    let (out, _) = bash_tool(
        &pad,
        &env_file,
        &project,
        "cd sub && scratchpad read bash_1 --lines 1-500",
    );
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("500: line 500") && !out.contains("stored it whole"),
        "{out}"
    );
    let (out, _) = bash_tool(
        &pad,
        &env_file,
        &project,
        "seq 1 2000 | sed 's/$/ scratchpad/'",
    );
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("stored it whole as `bash_2`"), "{out}");
}

#[test]
fn the_bash_tool_output_is_unchanged_without_the_binary_or_the_store() {
    let pad = Pad::new();
    let env_file = pad.dir.path().join("env.sh");
    // Lines naming a scratchpad that is gone do nothing.
    std::fs::write(
        &env_file,
        std::fs::read_to_string({
            start_session(&pad, &env_file, &[]);
            &env_file
        })
        .unwrap()
        .replace(env!("CARGO_BIN_EXE_scratchpad"), "/nonexistent/scratchpad"),
    )
    .unwrap();
    let long = "seq 1 20000; exit 4";
    let expected: String = (1..=20_000).map(|n| format!("{n}\n")).collect();
    let (out, code) = bash_tool(&pad, &env_file, pad.dir.path(), long);
    assert_eq!(
        (String::from_utf8(out).unwrap(), code),
        (expected.clone(), 4)
    );

    // A capture that fails as it starts (removed between the check and its start, or broken): the
    // output passes without the exit-status line meant for it.
    std::fs::remove_file(&env_file).unwrap();
    start_session(&pad, &env_file, &[]);
    let text = std::fs::read_to_string(&env_file).unwrap();
    let bin = env!("CARGO_BIN_EXE_scratchpad");
    let broken = text.replacen(&format!("{bin} hooks capture"), "false hooks capture", 1);
    assert_ne!(broken, text);
    std::fs::write(&env_file, broken).unwrap();
    let (out, code) = bash_tool(
        &pad,
        &env_file,
        pad.dir.path(),
        "printf 'a\\0b'; seq 1 20000; exit 4",
    );
    let mut with_nul = b"a\0b".to_vec();
    with_nul.extend(expected.as_bytes());
    assert_eq!((out, code), (with_nul, 4));

    // A store that cannot be opened: the output is passed on whole, nothing added to it.
    std::fs::remove_file(&env_file).unwrap();
    start_session(&pad, &env_file, &[]);
    let unopenable = pad.dir.path().join("not-a-db");
    std::fs::create_dir_all(unopenable.join("pad.db")).unwrap();
    let broken = format!("sqlite://{}/pad.db", unopenable.display());
    let (out, code) = bash_tool_on(&broken, &pad, &env_file, pad.dir.path(), long);
    assert_eq!((String::from_utf8(out).unwrap(), code), (expected, 4));
}

#[test]
fn capture_passes_small_input_through_and_stores_long_input() {
    let pad = Pad::new();
    let small = b"a\0b \xff\n\0scratchpad-exit 9 1\nno";
    let out = pad.run_stdin(&["hooks", "capture"], small).ok();
    assert_eq!(out.stdout_bytes, small);
    let out = pad
        .run_stdin(&["hooks", "capture", "--marker", "9"], small)
        .ok();
    assert_eq!(out.stdout_bytes, b"a\0b \xff\nno");

    let long = crate::common::log(10_000);
    let mut input = long.clone().into_bytes();
    input.extend(b"\0scratchpad-exit 77 2\n");
    let out = pad
        .run_stdin(
            &["--session", "web", "hooks", "capture", "--marker", "77"],
            &input,
        )
        .ok()
        .stdout;
    assert!(
        out.contains("stored it whole as `bash_1`")
            && out.contains("[exit code 2]")
            && out.contains("scratchpad --session web read bash_1"),
        "{out}"
    );
    let stored = pad.ok(&["--session", "web", "read", "bash_1", "--full", "--raw"]);
    assert_eq!(stored, long);

    // More than the store's quota would take is not spooled on: it is passed on whole.
    let config = pad.dir.path().join("config/scratchpad");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "quota_bytes = 100000\n").unwrap();
    let out = pad
        .run_stdin(&["hooks", "capture", "--marker", "77"], &input)
        .ok();
    assert_eq!(out.stdout, long);
}

/// Installs the hooks for `client` with `--config FILE` in a home of the pad's; returns the
/// capture lines' file install wrote beside it.
fn install_for(pad: &Pad, client: &str, config: &Path) -> std::path::PathBuf {
    let out = pad.ok(&[
        "hooks",
        "install",
        "--client",
        client,
        "--config",
        config.to_str().unwrap(),
    ]);
    let lines = config.with_file_name("scratchpad-bash-env.sh");
    assert!(out.contains("capture lines: wrote"), "{out}");
    assert!(lines.exists(), "{out}");
    lines
}

/// Runs `script` as `bash -c` the way an agent that sets `BASH_ENV` does, with `env` added.
fn agent_shell(pad: &Pad, lines: &Path, env: &[(&str, &str)], script: &str) -> (String, i32) {
    let mut command = std::process::Command::new("bash");
    command
        .args(["-c", script])
        .env_clear()
        .env("PATH", path_with_scratchpad())
        .env("HOME", pad.dir.path())
        .env("XDG_CONFIG_HOME", pad.dir.path().join("config"))
        .env("SCRATCHPAD_STORE", &pad.store)
        .env("BASH_ENV", lines)
        .current_dir(pad.dir.path());
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// Gemini CLI 0.61's script around a command (its run_shell_command, as the tests of the real
/// CLI see it).
fn gemini_script(command: &str) -> String {
    format!(
        "shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=/tmp/scratchpad-test-bgpids\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\n{command}\n)\n__code=$?\nexit $__code"
    )
}

#[test]
fn gemini_cli_shell_output_goes_through_the_capture_and_nothing_else_does() {
    let pad = Pad::new();
    let dir = pad.dir.path().join("gemini");
    std::fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.json");
    let env = dir.join(".env");
    std::fs::write(&settings, "{\n  // mine\n  \"general\": {}\n}\n").unwrap();
    std::fs::write(&env, "GEMINI_API_KEY=k\n").unwrap();
    let lines = install_for(&pad, "gemini", &settings);
    let dotenv = std::fs::read_to_string(&env).unwrap();
    assert!(
        dotenv.contains(&format!("BASH_ENV=\"{}\"", lines.display())),
        "{dotenv}"
    );
    assert!(
        std::fs::read_to_string(&settings)
            .unwrap()
            .contains("hooks run session-start")
    );
    let gemini = [("GEMINI_CLI", "1")];

    let (out, code) = agent_shell(
        &pad,
        &lines,
        &gemini,
        &gemini_script("seq 1 100000 | sed 's/^/line /'; echo 'ERROR: the end' >&2; exit 3"),
    );
    assert_eq!(code, 3);
    assert!(
        out.len() < 4_000
            && out.contains("stored it whole as `bash_1`")
            && out.contains("ERROR: the end")
            && out.contains("[exit code 3]"),
        "{out}"
    );
    // Small output as it was; a nested bash is not captured again; an EXIT trap of the command's
    // own leaves the capture's alone.
    let (out, code) = agent_shell(
        &pad,
        &lines,
        &gemini,
        &gemini_script(
            "trap 'echo bye' EXIT; printf 'ünï \"q\"\\n'; bash -c 'seq 1 100000' | wc -l; exit 2",
        ),
    );
    assert_eq!((out.as_str(), code), ("ünï \"q\"\n100000\nbye\n", 2));
    // The model's read, and a bash that is not Gemini CLI's, reach it as they are.
    let (out, _) = agent_shell(
        &pad,
        &lines,
        &gemini,
        &gemini_script("scratchpad read bash_1 --lines 1-500"),
    );
    assert!(
        out.contains("500: line 500") && !out.contains("stored it whole"),
        "{out}"
    );
    let (out, _) = agent_shell(&pad, &lines, &[], "seq 1 100000");
    assert!(
        out.ends_with("99999\n100000\n"),
        "{}",
        &out[out.len() - 50..]
    );

    pad.ok(&[
        "hooks",
        "uninstall",
        "--client",
        "gemini",
        "--config",
        settings.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read_to_string(&env).unwrap(), "GEMINI_API_KEY=k\n");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\n  // mine\n  \"general\": {}\n}\n"
    );
    assert!(!lines.exists());
}

#[test]
fn codex_shell_output_goes_through_the_capture_before_and_after_its_snapshot() {
    let pad = Pad::new();
    let dir = pad.dir.path().join("codex");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.toml");
    let original = "model = \"o3\"\n\n[shell_environment_policy]\ninherit = \"all\"\n";
    std::fs::write(&config, original).unwrap();
    let lines = install_for(&pad, "codex", &config);
    let text = std::fs::read_to_string(&config).unwrap();
    let store_dir = pad.dir.path().display().to_string();
    assert_eq!(pad.store, format!("sqlite://{store_dir}/pad.db"));
    assert!(
        text.contains(&format!("BASH_ENV = \"{}\"", lines.display()))
            && text.contains(&format!("writable_roots = [\"{store_dir}\"]")),
        "{text}"
    );
    let codex = [("CODEX_THREAD_ID", "0190-thread")];
    let long = "seq 1 100000 | sed 's/^/line /'; echo 'ERROR: the end'; exit 3";

    // Before the snapshot: `bash -lc COMMAND`.
    let (out, code) = agent_shell(&pad, &lines, &codex, long);
    assert_eq!(code, 3);
    assert!(
        out.contains("stored it whole as `bash_1`") && out.contains("[exit code 3]"),
        "{out}"
    );
    // After it: a wrapper that keeps BASH_ENV for the bash it execs.
    let quoted = long.replace('\'', r"'\''");
    let wrapper = format!(
        "__CODEX_SNAPSHOT_OVERRIDE_SET_0=\"${{BASH_ENV+x}}\"; export BASH_ENV; exec bash -c '{quoted}'"
    );
    let (out, code) = agent_shell(&pad, &lines, &codex, &wrapper);
    assert_eq!(code, 3);
    assert!(
        out.contains("stored it whole as `bash_2`") && out.contains("[exit code 3]"),
        "{out}"
    );
    let (out, code) = agent_shell(&pad, &lines, &codex, "echo hi; echo err >&2; exit 1");
    assert_eq!((out.as_str(), code), ("hi\nerr\n", 1));
    let (out, _) = agent_shell(
        &pad,
        &lines,
        &codex,
        "cd / && scratchpad read bash_2 --lines 1-500",
    );
    assert!(
        out.contains("500: line 500") && !out.contains("stored it whole"),
        "{out}"
    );

    pad.ok(&[
        "hooks",
        "uninstall",
        "--client",
        "codex",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    assert!(!lines.exists());
}

#[test]
fn a_command_with_its_own_exit_trap_keeps_its_output_and_exit_code() {
    let pad = Pad::new();
    let env_file = pad.dir.path().join("env.sh");
    start_session(&pad, &env_file, &[]);
    let cwd = pad.dir.path();
    // Its handler runs, with the command's `$?`, then the capture's: stored, with the exit code.
    let (out, code) = bash_tool(
        &pad,
        &env_file,
        cwd,
        "trap 'echo \"bye $?\"' EXIT; seq 1 100000; exit 4",
    );
    let out = String::from_utf8(out).unwrap();
    assert_eq!(code, 4);
    assert!(
        out.contains("stored it whole as `bash_1`") && out.contains("[exit code 4]"),
        "{out}"
    );
    assert_eq!(
        pad.ok(&["read", "bash_1", "--tail", "2", "--raw"]),
        "100000\nbye 4\n"
    );
    // A subshell's EXIT trap is its own; resetting or ignoring EXIT leaves the capture's.
    for (command, expected) in [
        ("(trap 'echo sub' EXIT; echo in); seq 1 100000; exit 5", 5),
        ("trap - EXIT; seq 1 100000; exit 6", 6),
        ("trap '' EXIT INT; seq 1 100000; exit 7", 7),
    ] {
        let (out, code) = bash_tool(&pad, &env_file, cwd, command);
        let out = String::from_utf8(out).unwrap();
        assert_eq!(code, expected, "{command}");
        assert!(
            out.contains("stored it whole") && out.contains(&format!("[exit code {expected}]")),
            "{command}: {out}"
        );
    }
    // Small output with a trap: as it was.
    let (out, code) = bash_tool(&pad, &env_file, cwd, "trap 'echo b' EXIT; echo a; exit 2");
    assert_eq!(
        (String::from_utf8(out).unwrap().as_str(), code),
        ("a\nb\n", 2)
    );
}

#[test]
fn interactive_and_background_commands_behave_as_without_the_capture() {
    let pad = Pad::new();
    let with = pad.dir.path().join("env.sh");
    start_session(&pad, &with, &[]);
    let without = pad.dir.path().join("empty-env.sh");
    std::fs::write(&without, "").unwrap();
    let cwd = pad.dir.path();
    for command in [
        // A prompt gets the end of its input (Claude Code gives commands /dev/null).
        "read -r -p 'name? ' line; echo \"read:$line:$?\"",
        "cat; echo after-cat",
        // Neither side is a terminal, with or without the capture.
        "[ -t 0 ] && echo tty-in || echo no-tty-in; [ -t 1 ] && echo tty-out || echo no-tty-out",
        // What a background child writes after the command ended still arrives.
        "echo early; (sleep 0.3; echo late) &",
        "seq 1 3 | while read -r n; do echo \"n=$n\"; done; (cd / && pwd); exit 9",
    ] {
        let expected = bash_tool(&pad, &without, cwd, command);
        let got = bash_tool(&pad, &with, cwd, command);
        assert_eq!(
            (String::from_utf8_lossy(&got.0), got.1),
            (String::from_utf8_lossy(&expected.0), expected.1),
            "{command}"
        );
        if command.contains("late") {
            assert_eq!(got.0, b"early\nlate\n");
        }
    }
}

#[test]
fn a_bash_env_of_the_users_refuses_the_whole_install_and_changes_nothing() {
    let pad = Pad::new();
    let dir = pad.dir.path().join("gemini");
    std::fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.json");
    std::fs::write(&settings, "{}\n").unwrap();
    std::fs::write(dir.join(".env"), "BASH_ENV=/home/me/.bash_env\n").unwrap();
    let run = pad
        .run(&[
            "hooks",
            "install",
            "--client",
            "gemini",
            "--config",
            settings.to_str().unwrap(),
        ])
        .fails();
    assert!(run.stderr.contains("/home/me/.bash_env"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{}\n");
    assert!(!dir.join("scratchpad-bash-env.sh").exists());

    let config = pad.dir.path().join("codex.toml");
    let text = "[shell_environment_policy.set]\nBASH_ENV = \"/home/me/.bash_env\"\n";
    std::fs::write(&config, text).unwrap();
    let run = pad
        .run(&[
            "hooks",
            "install",
            "--client",
            "codex",
            "--config",
            config.to_str().unwrap(),
        ])
        .fails();
    assert!(run.stderr.contains("/home/me/.bash_env"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
    assert!(!pad.dir.path().join("scratchpad-bash-env.sh").exists());
}

#[test]
fn gemini_session_start_tells_the_user_when_another_env_file_hides_the_capture() {
    let pad = Pad::new();
    // HOME is the pad's directory: install into ~/.gemini.
    std::fs::create_dir_all(pad.dir.path().join(".gemini")).unwrap();
    pad.ok(&["hooks", "install", "--client", "gemini"]);
    let lines = pad.dir.path().join(".gemini/scratchpad-bash-env.sh");
    assert!(lines.is_file());
    let project = pad.dir.path().join("work/app");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(pad.dir.path().join("work/.env"), "API=1\n").unwrap();
    let session_start = |env: &[(&str, &Path)]| -> Value {
        let mut command = pad.command(&["hooks", "run", "session-start"]);
        command
            .env("GEMINI_PROJECT_DIR", &project)
            .stdin(std::process::Stdio::null());
        for (name, value) in env {
            command.env(name, value);
        }
        let out = command.output().unwrap();
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap()
    };

    // The project's parent has a .env: Gemini CLI reads that one, not ~/.gemini/.env.
    let answer = session_start(&[("GEMINI_SESSION_ID", Path::new("s1"))]);
    let message = answer["systemMessage"].as_str().unwrap();
    assert!(
        message.contains("shell output is not captured")
            && message.contains(&pad.dir.path().join("work/.env").display().to_string())
            && message.contains(&format!("BASH_ENV=\"{}\"", lines.display())),
        "{message}"
    );
    assert!(answer["hookSpecificOutput"]["additionalContext"].is_string());
    // Read as installed: nothing to say; nor outside Gemini CLI.
    let answer = session_start(&[("GEMINI_SESSION_ID", Path::new("s1")), ("BASH_ENV", &lines)]);
    assert!(answer.get("systemMessage").is_none(), "{answer}");
    let answer = session_start(&[]);
    assert!(answer.get("systemMessage").is_none(), "{answer}");
}
