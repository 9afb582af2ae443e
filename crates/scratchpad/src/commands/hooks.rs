//! `scratchpad hooks install|uninstall|run`: the scratchpad in a coding agent's own hooks.
//!
//! Install and uninstall edit the agent's settings file with the same file handling as `mcp
//! install` (backup, lock, dry run, byte-for-byte uninstall); the edits are
//! `scratchpad::client_config::hooks`'. `run` is what the agent starts on each event: it must
//! never stop the agent, so every failure is said on stderr and answered with nothing.

use std::io::{IsTerminal as _, Read as _, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use scratchpad::client_config::hooks::{self, Hook};
use scratchpad::client_config::{Client, Outcome, Scope, Verdict, bash_env};
use scratchpad_core::{DEFAULT_SESSION, EntryInfo, ListFilter, Scratchpad};
use serde_json::json;

use super::capture::{Agent, env_lines};
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

/// The agent a `--client` names, and how its shell is told apart.
fn agent(file: &HookFile) -> (Client, Agent) {
    match file.client {
        HookClient::ClaudeCode => (Client::ClaudeCode, Agent::ClaudeCode),
        HookClient::Gemini => (Client::Gemini, Agent::Gemini),
        HookClient::Codex => (Client::Codex, Agent::Codex),
    }
}

/// The file install edits first: the settings file with the hooks (Claude Code, Gemini CLI) or
/// Codex's config.toml. Its directory gets the other files.
fn target(file: &HookFile) -> anyhow::Result<Target> {
    let (client, _) = agent(file);
    let path = match &file.config {
        Some(path) => path.clone(),
        None => {
            let project = std::env::current_dir().context("cannot read the current directory")?;
            hooks::settings_path(client, file.scope, &project)?
        }
    };
    Target::at(client, path, file.dry_run)
}

/// A file beside the target's.
fn beside(target: &Target, name: &str) -> PathBuf {
    target
        .file
        .shown
        .parent()
        .map_or_else(|| PathBuf::from(name), |dir| dir.join(name))
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
    let mut session_flags = String::new();
    if let Some(session) = &global.session {
        scratchpad_core::model::validate_name("session", session)
            .map_err(|err| anyhow::anyhow!("{err}; nothing was written"))?;
        session_flags = format!(" --session {}", shell_word(session));
    }
    let (_, agent) = agent(file);
    let target = target(file)?;
    let mut out = std::io::stdout().lock();
    // Each file's change is worked out before any is written: a refusal (a `BASH_ENV` of the
    // user's) leaves everything as it was.
    match agent {
        Agent::ClaudeCode => add_hooks(&target, &program, &session_flags, &mut out)?,
        Agent::Gemini => {
            let dotenv = Target::dotenv(target.client, beside(&target, ".env"), target.dry_run)?;
            let lines_file = absolute(&beside(&target, bash_env::LINES_FILE))?;
            let _lock = dotenv.take(true)?;
            let (old, _) = dotenv.read()?;
            let outcome = bash_env::install_dotenv(old.as_deref(), &lines_file)
                .map_err(|refusal| dotenv.refused(&refusal))?;
            add_hooks(&target, &program, &session_flags, &mut out)?;
            write_lines(&target, agent, &program, &session_flags, None, &mut out)?;
            commit(&dotenv, "environment", old.as_deref(), outcome, &mut out)?;
        }
        Agent::Codex => {
            let root = writable_root(global, file, target.dry_run)?;
            let lines_file = absolute(&beside(&target, bash_env::LINES_FILE))?;
            let _lock = target.take(true)?;
            let (old, content) = target.read()?;
            let wanted = bash_env::CodexEnv {
                lines_file: &lines_file,
                writable_root: root.as_deref(),
            };
            let outcome = bash_env::install_codex(content.as_deref(), wanted)
                .map_err(|refusal| target.refused(&refusal))?;
            write_lines(
                &target,
                agent,
                &program,
                &session_flags,
                root.as_deref(),
                &mut out,
            )?;
            commit(&target, "configuration", old.as_deref(), outcome, &mut out)?;
        }
    }
    if !target.dry_run {
        writeln!(
            out,
            "new {} sessions run it; `scratchpad hooks uninstall --client {}{}` takes it out again",
            target.client.title(),
            target.client.flag(),
            same_file_flags(file)
        )?;
    }
    Ok(0)
}

/// Adds the SessionStart hook to the settings file of the target.
fn add_hooks(
    target: &Target,
    program: &str,
    session_flags: &str,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let event = name(HookEvent::SessionStart);
    let wanted = [Hook {
        event,
        command: format!(
            "{}{session_flags} hooks run {}",
            shell_word(program),
            hooks::event_flag(event)
        ),
    }];
    let _lock = target.take(true)?;
    let (old, content) = target.read()?;
    let outcome = hooks::install(target.client, content.as_deref(), &wanted)
        .map_err(|refusal| target.refused(&refusal))?;
    let outcome = Outcome {
        servers: outcome
            .servers
            .into_iter()
            .map(|(event, verdict)| {
                let verdict = match verdict {
                    Verdict::Changed(_) => Verdict::Changed(format!(
                        "added      {event} hook ({})",
                        wanted[0].command.as_str()
                    )),
                    Verdict::Left(why) => Verdict::Left(format!("{event} hook: {why}")),
                };
                (event, verdict)
            })
            .collect(),
        ..outcome
    };
    commit(target, "settings", old.as_deref(), outcome, out)
}

/// Says what an edit of the target does (each change a line of its own, as the outcome words it),
/// and writes it (prints it, for a dry run).
fn commit(
    target: &Target,
    what: &str,
    old: Option<&str>,
    outcome: Outcome,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    writeln!(out, "{} {what}: {}", target.client.title(), target.shown())?;
    let new = match outcome.change {
        Ok(new) => new,
        Err(why) => {
            writeln!(out, "  nothing to change: {why}")?;
            return Ok(());
        }
    };
    for (_, verdict) in &outcome.servers {
        match verdict {
            Verdict::Changed(how) => writeln!(out, "  {how}")?,
            Verdict::Left(why) => writeln!(out, "  left alone {why}")?,
        }
    }
    // Left with only what install creates from nothing, the file goes, unless it is a link's
    // target: removing that would leave the link dangling.
    let created = new.trim().is_empty() || new == hooks::CREATED_FILE;
    let new = (!created || target.file.linked).then_some(new);
    target.commit(out, old, new.as_deref())
}

/// The SQLite store's directory, which Codex's sandbox must let commands write (made now unless
/// `dry_run`: the sandbox cannot grant a directory that is not there); `None` for a PostgreSQL
/// store.
fn writable_root(
    global: &GlobalArgs,
    file: &HookFile,
    dry_run: bool,
) -> anyhow::Result<Option<String>> {
    // `--config` after `hooks install` names the agent's file, and clap hands a global flag of the
    // same name that value too: it is not the scratchpad's configuration then.
    let own = global
        .config
        .as_deref()
        .filter(|path| file.config.as_deref() != Some(*path));
    let config = scratchpad_core::Config::load(own)?;
    let url = global
        .store()
        .map(str::to_owned)
        .or_else(|| config.store.as_ref().map(|s| s.as_str().to_owned()));
    let Some(file) = scratchpad_core::sqlite_store_file(url.as_deref())? else {
        return Ok(None);
    };
    let file = if file.is_absolute() {
        file
    } else {
        std::env::current_dir()
            .context("cannot read the current directory")?
            .join(file)
    };
    let dir = file.parent().unwrap_or(&file);
    if !dry_run {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the store's directory {}", dir.display()))?;
    }
    dir.to_str().map(|d| Some(d.to_owned())).ok_or_else(|| {
        anyhow::anyhow!(
            "the store's directory ({}) is not UTF-8; add it to Codex's writable roots by hand",
            dir.display()
        )
    })
}

/// The first lines of the capture file; uninstall reads the writable root back from them.
const LINES_HEADER: &str = "# Written by `scratchpad hooks install`, read by bash through BASH_ENV; \
                            `scratchpad hooks uninstall` removes it.";
const ROOT_LINE: &str = "# Codex sandbox writable root added: ";

/// Writes the capture lines beside the target (prints them, for a dry run).
fn write_lines(
    target: &Target,
    agent: Agent,
    program: &str,
    session_flags: &str,
    root: Option<&str>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let path = beside(target, bash_env::LINES_FILE);
    let path_text = absolute(&path)?;
    let mut text = format!("{LINES_HEADER}\n");
    if let Some(root) = root {
        text.push_str(&format!("{ROOT_LINE}{root}\n"));
    }
    text.push_str(&env_lines(agent, program, session_flags));
    if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
        writeln!(out, "capture lines: {path_text} (already written)")?;
        return Ok(());
    }
    if target.dry_run {
        writeln!(out, "capture lines: {path_text} would be written:")?;
        write!(out, "{text}")?;
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create {}; nothing was written", dir.display()))?;
    }
    std::fs::write(&path, &text)
        .with_context(|| format!("cannot write {}; nothing was written", path.display()))?;
    writeln!(out, "capture lines: wrote {path_text}")?;
    Ok(())
}

fn absolute(path: &Path) -> anyhow::Result<String> {
    let path = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .context("cannot read the current directory")?
            .join(path)
    };
    path.to_str().map(str::to_owned).ok_or_else(|| {
        anyhow::anyhow!(
            "the path {} is not UTF-8; give another --config",
            path.display()
        )
    })
}

fn uninstall(file: &HookFile) -> anyhow::Result<u8> {
    let (_, agent) = agent(file);
    let target = target(file)?;
    let mut out = std::io::stdout().lock();
    let lines = beside(&target, bash_env::LINES_FILE);
    match agent {
        Agent::ClaudeCode => remove_hooks(&target, &mut out)?,
        Agent::Gemini => {
            remove_hooks(&target, &mut out)?;
            let dotenv = Target::dotenv(target.client, beside(&target, ".env"), target.dry_run)?;
            let _lock = dotenv.take(false)?;
            if let (old, Some(text)) = dotenv.read()? {
                let outcome = bash_env::uninstall_dotenv(&text).map_err(|r| dotenv.refused(&r))?;
                commit(&dotenv, "environment", old.as_deref(), outcome, &mut out)?;
            }
        }
        Agent::Codex => {
            let root = std::fs::read_to_string(&lines).ok().and_then(|text| {
                text.lines()
                    .find_map(|line| line.strip_prefix(ROOT_LINE).map(str::to_owned))
            });
            let _lock = target.take(false)?;
            match target.read()? {
                (old, Some(text)) => {
                    let outcome = bash_env::uninstall_codex(&text, root.as_deref())
                        .map_err(|r| target.refused(&r))?;
                    commit(&target, "configuration", old.as_deref(), outcome, &mut out)?;
                }
                (_, None) => writeln!(
                    out,
                    "nothing to change: {} does not exist or is empty",
                    target.shown()
                )?,
            }
        }
    }
    if agent != Agent::ClaudeCode && lines.exists() {
        if target.dry_run {
            writeln!(out, "capture lines: {} would be removed", lines.display())?;
        } else {
            std::fs::remove_file(&lines)
                .with_context(|| format!("cannot remove {}", lines.display()))?;
            writeln!(out, "capture lines: removed {}", lines.display())?;
        }
    }
    Ok(0)
}

/// Takes the scratchpad's hooks out of the target's settings file.
fn remove_hooks(target: &Target, out: &mut impl Write) -> anyhow::Result<()> {
    let _lock = target.take(false)?;
    let (old, Some(text)) = target.read()? else {
        writeln!(
            out,
            "nothing to change: {} does not exist or is empty",
            target.shown()
        )?;
        return Ok(());
    };
    let outcome = hooks::uninstall(target.client, &text).map_err(|r| target.refused(&r))?;
    let outcome = Outcome {
        servers: outcome
            .servers
            .into_iter()
            .map(|(event, _)| {
                let how = format!("removed    {event} hook");
                (event, Verdict::Changed(how))
            })
            .collect(),
        ..outcome
    };
    commit(target, "settings", old.as_deref(), outcome, out)
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
            let warning = gemini_capture_warning();
            let context = super::open_for_hook(global).and_then(|pad| session_start_context(&pad));
            let mut answer = serde_json::Map::new();
            match context {
                Ok(context) => {
                    answer.insert(
                        "hookSpecificOutput".to_owned(),
                        json!({"hookEventName": name(event), "additionalContext": context}),
                    );
                }
                Err(err) if warning.is_none() => return Err(err),
                Err(err) => eprintln!("scratchpad SessionStart hook: {err:#}; nothing added"),
            }
            if let Some(warning) = warning {
                // Shown to the user, not the model: only the user can fix where it comes from.
                answer.insert("systemMessage".to_owned(), json!(warning));
            }
            Ok(Some(serde_json::Value::Object(answer)))
        }
    }
}

/// Under Gemini CLI, when the capture lines `hooks install --client gemini` wrote are not what
/// its shell reads: Gemini CLI loads only the first `.env` it finds (from the project up, then
/// `~/.gemini/.env`), and only in trusted folders, so a project's own `.env` hides the one install
/// edited. What to do about it, or `None` when the lines are read (or none were written).
fn gemini_capture_warning() -> Option<String> {
    std::env::var_os("GEMINI_SESSION_ID")?;
    let project = std::env::var_os("GEMINI_PROJECT_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())?;
    let home = dirs::home_dir();
    let lines = [
        Some(project.join(".gemini")),
        home.map(|h| h.join(".gemini")),
    ]
    .into_iter()
    .flatten()
    .map(|dir| dir.join(bash_env::LINES_FILE))
    .find(|path| path.is_file())?;
    let bash_env = std::env::var("BASH_ENV").unwrap_or_default();
    if Path::new(&bash_env) == lines {
        return None;
    }
    let now = if bash_env.is_empty() {
        "BASH_ENV is not set".to_owned()
    } else {
        format!("BASH_ENV is {bash_env}")
    };
    let fix = match gemini_env_file(&project) {
        Some(file) => format!(
            "Gemini CLI read {} (only the first .env found from the project up is read); add \
             BASH_ENV=\"{}\" to it",
            file.display(),
            lines.display()
        ),
        None => format!(
            "Gemini CLI read no .env (it reads them in trusted folders only); trust this folder, \
             or export BASH_ENV=\"{}\" before starting gemini",
            lines.display()
        ),
    };
    Some(format!(
        "scratchpad: shell output is not captured in this session ({now}). {fix}."
    ))
}

/// The `.env` file Gemini CLI reads for `project` in a trusted folder: `.gemini/.env`, then `.env`,
/// in the project and each directory above it, then `~/.gemini/.env` and `~/.env`.
fn gemini_env_file(project: &Path) -> Option<PathBuf> {
    let in_tree = project.ancestors().find_map(|dir| {
        [dir.join(".gemini").join(".env"), dir.join(".env")]
            .into_iter()
            .find(|path| path.is_file())
    });
    in_tree.or_else(|| {
        let home = dirs::home_dir()?;
        [home.join(".gemini").join(".env"), home.join(".env")]
            .into_iter()
            .find(|path| path.is_file())
    })
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
        &env_lines(Agent::ClaudeCode, exe, &flags),
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
