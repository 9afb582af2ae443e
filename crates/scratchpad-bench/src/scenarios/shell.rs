//! What the scratchpad adds to each command of an agent's shell tool: the capture lines (Claude
//! Code's env file; the `BASH_ENV` file Gemini CLI and Codex read) and the capture process they
//! start.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::harness::{Row, sibling_binary, time};

/// The cost per command must stay under this (ms), whatever the command.
const TARGET_MS: f64 = 20.0;

/// A small command (`echo`) run as Claude Code 2.1.332 runs it (`bash -c` of a script with the
/// env file pasted in, `eval` of the command, the working directory written), with the capture lines in the env file
/// against the same with an empty env file.
pub(crate) fn bash_capture(dir: &Path, reps: usize) -> Result<Row> {
    let cli = sibling_binary("scratchpad")?;
    let store = format!("sqlite://{}", dir.join("pad.db").display());
    let with = dir.join("env-with-capture.sh");
    let without = dir.join("env-empty.sh");
    std::fs::write(&without, "")?;
    let status = Command::new(&cli)
        .args(["--store", &store, "hooks", "run", "session-start"])
        .env("CLAUDE_ENV_FILE", &with)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .context("running scratchpad hooks run session-start")?;
    if !status.success() || !std::fs::read_to_string(&with)?.contains("hooks capture") {
        bail!("the SessionStart hook wrote no capture lines");
    }
    let cwd = dir.join("cwd");
    let run = |env_file: &Path| -> Result<()> {
        // Claude Code pastes the env file into the script, before the command.
        let script = format!(
            "true && {}\n: && eval 'echo small output' < /dev/null && pwd -P >| {}",
            std::fs::read_to_string(env_file)?,
            cwd.display()
        );
        let mut bash = Command::new("bash");
        bash.args(["-c", &script]).env("SCRATCHPAD_STORE", &store);
        prints_small_output(bash)
    };
    compare(
        reps,
        "Claude Code Bash command (`echo`) through the capture",
        || run(&with),
        "the same bash command, empty env file",
        || run(&without),
    )
}

/// Runs `bash` (a shell running `echo small output`) and checks the output came through as it was.
fn prints_small_output(mut bash: Command) -> Result<()> {
    let out = bash
        .stderr(Stdio::null())
        .output()
        .context("running bash")?;
    if out.stdout != b"small output\n" {
        bail!(
            "the command's output changed: {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    Ok(())
}

/// `ours` and `base` in turns, `reps` times each (at least 20), with what `ours` adds per command.
fn compare(
    reps: usize,
    name: &str,
    ours_run: impl Fn() -> Result<()>,
    baseline_name: &str,
    base_run: impl Fn() -> Result<()>,
) -> Result<Row> {
    let mut ours = Vec::new();
    let mut base = Vec::new();
    for _ in 0..reps.max(20) {
        ours.push(time(&ours_run)?.0);
        base.push(time(&base_run)?.0);
    }
    let added = crate::harness::median(&ours).saturating_sub(crate::harness::median(&base));
    Ok(Row {
        name: name.into(),
        ours,
        baseline_name: baseline_name.into(),
        baseline: base,
        target: None,
        extra: format!(
            "added per command: {:.1} ms (target ≤ {TARGET_MS} ms)",
            added.as_secs_f64() * 1_000.0
        ),
    })
}

/// A small command (`echo`) run as Codex 0.171 runs it (`bash -c COMMAND` in its thread), with
/// `BASH_ENV` naming the capture lines `hooks install --client codex` writes, against the same
/// without `BASH_ENV`. Gemini CLI's shell reads the same kind of file the same way.
pub(crate) fn bash_env_capture(dir: &Path, reps: usize) -> Result<Row> {
    let cli = sibling_binary("scratchpad")?;
    let store = format!("sqlite://{}", dir.join("pad.db").display());
    let config = dir.join("codex").join("config.toml");
    let status = Command::new(&cli)
        .args([
            "--store", &store, "hooks", "install", "--client", "codex", "--config",
        ])
        .arg(&config)
        .stdout(Stdio::null())
        .status()
        .context("running scratchpad hooks install --client codex")?;
    let lines = config.with_file_name("scratchpad-bash-env.sh");
    if !status.success() || !lines.exists() {
        bail!("hooks install --client codex wrote no capture lines");
    }
    let run = |bash_env: Option<&Path>| -> Result<()> {
        let mut bash = Command::new("bash");
        bash.args(["-c", "echo small output"])
            .env("SCRATCHPAD_STORE", &store)
            .env("CODEX_THREAD_ID", "bench")
            .env_remove("BASH_ENV");
        if let Some(lines) = bash_env {
            bash.env("BASH_ENV", lines);
        }
        prints_small_output(bash)
    };
    compare(
        reps,
        "Codex shell command (`echo`) through the BASH_ENV capture lines",
        || run(Some(&lines)),
        "the same bash -c, no BASH_ENV",
        || run(None),
    )
}
