//! What the scratchpad adds to each command of Claude Code's Bash tool: the env-file lines the
//! SessionStart hook writes, and the capture process they start.

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
        let out = Command::new("bash")
            .args(["-c", &script])
            .env("SCRATCHPAD_STORE", &store)
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
    };
    let mut ours = Vec::new();
    let mut base = Vec::new();
    for _ in 0..reps.max(20) {
        ours.push(time(|| run(&with))?.0);
        base.push(time(|| run(&without))?.0);
    }
    let added = crate::harness::median(&ours).saturating_sub(crate::harness::median(&base));
    Ok(Row {
        name: "Claude Code Bash command (`echo`) through the capture".into(),
        ours,
        baseline_name: "the same bash command, empty env file".into(),
        baseline: base,
        target: None,
        extra: format!(
            "added per command: {:.1} ms (target ≤ {TARGET_MS} ms)",
            added.as_secs_f64() * 1_000.0
        ),
    })
}
