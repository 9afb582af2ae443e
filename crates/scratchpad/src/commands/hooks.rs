//! `scratchpad hooks install|uninstall|run`: the scratchpad in a coding agent's own hooks.
//!
//! Install and uninstall edit the agent's settings file with the same file handling as `mcp
//! install` (backup, lock, dry run, byte-for-byte uninstall); the edits are
//! `scratchpad::client_config::hooks`'. `run` is what the agent starts on each event: it must
//! never stop the agent, so every failure is said on stderr and answered with nothing.

use std::io::{IsTerminal as _, Read as _, Write as _};

use anyhow::Context as _;
use scratchpad::client_config::hooks::{self, Hook};
use scratchpad::client_config::{Client, Scope, Verdict};
use scratchpad_core::{DEFAULT_SESSION, EntryInfo, ListFilter, Scratchpad};
use serde_json::json;

use super::clients::{Target, scratchpad_command};
use crate::cli::{GlobalArgs, HookClient, HookEvent, HookFile, HooksArgs, HooksCommand};
use crate::speak::shell_word;

/// Pinned entries a session start lists by name; more are counted.
const LISTED_PINS: usize = 10;
/// Characters of an entry's first line shown after its name.
const FIRST_LINE_CHARS: usize = 100;

pub fn run(global: &GlobalArgs, args: &HooksArgs) -> anyhow::Result<u8> {
    match &args.command {
        HooksCommand::Install(install_args) => {
            install(global, &install_args.file, install_args.command.as_deref())
        }
        HooksCommand::Uninstall(uninstall_args) => uninstall(&uninstall_args.file),
        HooksCommand::Capture(capture_args) => super::capture::capture(global, capture_args),
        HooksCommand::Run(run_args) => {
            let event = run_args.event;
            match answer(global, event) {
                Ok(Some(answer)) => {
                    let mut out = std::io::stdout().lock();
                    serde_json::to_writer(&mut out, &answer)?;
                    writeln!(out)?;
                }
                Ok(None) => {}
                Err(err) => eprintln!("scratchpad {} hook: {err:#}; nothing added", name(event)),
            }
            Ok(0)
        }
    }
}

fn name(event: HookEvent) -> &'static str {
    match event {
        HookEvent::SessionStart => "SessionStart",
    }
}

fn target(file: &HookFile) -> anyhow::Result<Target> {
    let client = match file.client {
        HookClient::ClaudeCode => Client::ClaudeCode,
    };
    let path = match &file.config {
        Some(path) => path.clone(),
        None => {
            let project = std::env::current_dir().context("cannot read the current directory")?;
            hooks::settings_path(file.scope, &project)?
        }
    };
    Target::at(client, path, file.dry_run)
}

/// The flags that point a follow-up command at the same file.
fn same_file_flags(file: &HookFile) -> String {
    match (&file.config, file.scope) {
        (Some(path), _) => format!(" --config {}", shell_word(&path.display().to_string())),
        (None, Scope::Project) => " --scope project".to_owned(),
        (None, Scope::User) => String::new(),
    }
}

fn install(global: &GlobalArgs, file: &HookFile, command: Option<&str>) -> anyhow::Result<u8> {
    let program = scratchpad_command(command, file.scope)?;
    let mut line = shell_word(&program);
    if let Some(session) = &global.session {
        scratchpad_core::model::validate_name("session", session)
            .map_err(|err| anyhow::anyhow!("{err}; nothing was written"))?;
        line.push_str(&format!(" --session {}", shell_word(session)));
    }
    let wanted = [Hook {
        event: name(HookEvent::SessionStart),
        command: format!(
            "{line} hooks run {}",
            hooks::event_flag(name(HookEvent::SessionStart))
        ),
    }];
    let target = target(file)?;
    let _lock = target.take(true)?;
    let (old, content) = target.read()?;
    let outcome =
        hooks::install(content.as_deref(), &wanted).map_err(|refusal| target.refused(&refusal))?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} settings: {}",
        target.client.title(),
        target.shown()
    )?;
    let new = match outcome.change {
        Ok(new) => new,
        Err(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
    };
    for (event, verdict) in &outcome.servers {
        match verdict {
            Verdict::Changed(_) => {
                let command = wanted
                    .iter()
                    .find(|hook| hook.event == event)
                    .map_or("", |hook| hook.command.as_str());
                writeln!(out, "  added      {event} hook ({command})")?;
            }
            Verdict::Left(why) => writeln!(out, "  left alone {event} hook: {why}")?,
        }
    }
    target.commit(&mut out, old.as_deref(), Some(&new))?;
    if !target.dry_run {
        writeln!(
            out,
            "new {} sessions run it; `scratchpad hooks uninstall --client claude-code{}` takes it \
             out again",
            target.client.title(),
            same_file_flags(file)
        )?;
    }
    Ok(0)
}

fn uninstall(file: &HookFile) -> anyhow::Result<u8> {
    let target = target(file)?;
    let _lock = target.take(false)?;
    let mut out = std::io::stdout().lock();
    let Some(text) = target.read()?.1 else {
        writeln!(
            out,
            "nothing to change: {} does not exist or is empty",
            target.shown()
        )?;
        return Ok(0);
    };
    let outcome = hooks::uninstall(&text).map_err(|refusal| target.refused(&refusal))?;
    writeln!(
        out,
        "{} settings: {}",
        target.client.title(),
        target.shown()
    )?;
    let new = match outcome.change {
        Ok(new) => new,
        Err(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
    };
    for (event, _) in &outcome.servers {
        writeln!(out, "  removed    {event} hook")?;
    }
    // Left with only what install creates from nothing, the file goes, unless it is a link's
    // target: removing that would leave the link dangling.
    let new = (new != hooks::CREATED_FILE || target.file.linked).then_some(new);
    target.commit(&mut out, Some(&text), new.as_deref())?;
    Ok(0)
}

/// What the hook tells the agent, or `None` for nothing.
fn answer(global: &GlobalArgs, event: HookEvent) -> anyhow::Result<Option<serde_json::Value>> {
    // The event's JSON is read whole so the agent never blocks writing it; what the hook says does
    // not depend on it (every source of a session start gets the same reminder).
    let mut stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut input = Vec::new();
        stdin
            .read_to_end(&mut input)
            .context("cannot read the event")?;
    }
    match event {
        HookEvent::SessionStart => {
            // The Bash tool's output goes through the scratchpad even when the store cannot be
            // opened now: each command's capture opens it again, and passes the output on whole
            // if it still cannot.
            if let Err(err) = add_capture_to_env_file(global) {
                eprintln!("scratchpad SessionStart hook: {err:#}; Bash output is not captured");
            }
            let pad = super::open_for_hook(global)?;
            Ok(Some(json!({
                "hookSpecificOutput": {
                    "hookEventName": name(event),
                    "additionalContext": session_start_context(&pad)?,
                }
            })))
        }
    }
}

/// Adds the lines that send each Bash command's output through `hooks capture` to the file Claude
/// Code names in `$CLAUDE_ENV_FILE` (set for SessionStart hooks only), naming this executable by
/// its absolute path and passing on `--session` when the hook has one.
fn add_capture_to_env_file(global: &GlobalArgs) -> anyhow::Result<()> {
    let Some(path) = std::env::var_os("CLAUDE_ENV_FILE").filter(|path| !path.is_empty()) else {
        return Ok(());
    };
    let exe = std::env::current_exe().context("cannot tell where this scratchpad executable is")?;
    let exe = exe.to_str().ok_or_else(|| {
        anyhow::anyhow!("this executable's path ({}) is not UTF-8", exe.display())
    })?;
    let flags = match &global.session {
        Some(session) => format!(" --session {}", shell_word(session)),
        None => String::new(),
    };
    super::capture::add_env_lines(
        std::path::Path::new(&path),
        &super::capture::env_lines(exe, &flags),
    )
}

/// A few lines: where notes and outputs are kept, how to reach them, and the pinned entries.
fn session_start_context(pad: &Scratchpad) -> anyhow::Result<String> {
    let filter = ListFilter {
        pinned: Some(true),
        ..ListFilter::default()
    };
    let page = pad.list(&filter, None, LISTED_PINS)?;
    let session = pad.session();
    let flag = if session == DEFAULT_SESSION {
        String::new()
    } else {
        format!(" --session {}", shell_word(session))
    };
    let mut text = format!(
        "The scratchpad (the `scratchpad{flag}` command in your shell) keeps your notes and \
         stored outputs across compaction and restarts: `scratchpad{flag} ls` lists them, \
         `scratchpad{flag} read NAME` reads one, `scratchpad{flag} write NAME TEXT` keeps a note \
         and `scratchpad{flag} pin NAME` keeps it listed here.\n"
    );
    if page.entries.is_empty() {
        text.push_str("No pinned notes.");
        return Ok(text);
    }
    text.push_str("Pinned:\n");
    for entry in &page.entries {
        text.push_str(&pin_line(entry));
        text.push('\n');
    }
    if page.next_cursor.is_some() {
        text.push_str(&format!("… and more: `scratchpad{flag} ls --pinned`\n"));
    }
    Ok(text.trim_end().to_owned())
}

/// `- NAME (KIND, N lines): first line`
fn pin_line(entry: &EntryInfo) -> String {
    let first = entry
        .preview
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("");
    let mut shown: String = first.chars().take(FIRST_LINE_CHARS).collect();
    if shown.len() < first.len() {
        shown.push('…');
    }
    let lines = if entry.lines == 1 { "line" } else { "lines" };
    format!(
        "- {} ({}, {} {lines}): {shown}",
        entry.name, entry.kind, entry.lines
    )
}
