//! `scratchpad mcp install|uninstall|wrap|unwrap`: put the scratchpad into an MCP client's own
//! configuration file, and take it out again, byte for byte.
//!
//! The edits themselves are `scratchpad::client_config`'s; this is the file around them. Before a
//! file is written its old text is copied next to it; `--dry-run` prints the diff instead, with
//! secrets (env and header values, URL passwords) masked.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use scratchpad::client_config::{self, Client, Outcome, Refusal, Scope, ServerEntry, Verdict};

use crate::cli::{
    ClientFile, GlobalArgs, InstallArgs, McpCommand, UninstallArgs, UnwrapArgs, WrapArgs,
};

mod file;

use file::{ConfigFile, Lock};

/// The configuration file one command works on.
pub(super) struct Target {
    pub(super) client: Client,
    pub(super) file: ConfigFile,
    pub(super) dry_run: bool,
    /// A `.env` file of the client's rather than its configuration: a dry run masks its values.
    dotenv: bool,
}

impl Target {
    fn new(file: &ClientFile) -> anyhow::Result<Self> {
        let shown = match &file.config {
            Some(path) => path.clone(),
            None => {
                let project =
                    std::env::current_dir().context("cannot read the current directory")?;
                file.client.path(file.scope, &project)?
            }
        };
        Self::at(file.client, shown, file.dry_run)
    }

    /// The file at `shown`, edited by `client`'s rules.
    pub(super) fn at(client: Client, shown: PathBuf, dry_run: bool) -> anyhow::Result<Self> {
        Ok(Self {
            client,
            file: ConfigFile::locate(shown)?,
            dry_run,
            dotenv: false,
        })
    }

    /// The `.env` file at `shown`, which `client` reads its environment from.
    pub(super) fn dotenv(client: Client, shown: PathBuf, dry_run: bool) -> anyhow::Result<Self> {
        Ok(Self {
            dotenv: true,
            ..Self::at(client, shown, dry_run)?
        })
    }

    pub(super) fn shown(&self) -> std::path::Display<'_> {
        self.file.shown.display()
    }

    /// Takes the file for a read-modify-write: refused when read-only, locked against other
    /// scratchpad commands until the guard is dropped. A dry run only reads, and takes neither.
    pub(super) fn take(&self, creates: bool) -> anyhow::Result<Option<Lock>> {
        if self.dry_run {
            return Ok(None);
        }
        self.file.check_writable()?;
        self.file.lock(creates)
    }

    /// The file's text, and the text to edit: none when the file is missing, empty or blank (an
    /// editor or `touch` made it), which is a configuration with nothing in it.
    pub(super) fn read(&self) -> anyhow::Result<(Option<String>, Option<String>)> {
        let text = self.file.read()?;
        let content = text.clone().filter(|t| !t.trim().is_empty());
        Ok((text, content))
    }

    pub(super) fn refused(&self, refusal: &Refusal) -> anyhow::Error {
        anyhow::anyhow!("{}", refusal.message(&self.shown().to_string()))
    }

    /// Writes `new` (or removes the file when `None`) after backing up `old`; with --dry-run prints
    /// the diff instead.
    pub(super) fn commit(
        &self,
        out: &mut impl std::io::Write,
        old: Option<&str>,
        new: Option<&str>,
    ) -> anyhow::Result<()> {
        if self.dry_run {
            let show = |text: Option<&str>| {
                text.map_or_else(String::new, |t| {
                    if self.dotenv {
                        client_config::bash_env::shown_dotenv(t)
                    } else {
                        client_config::shown(self.client, t)
                    }
                })
            };
            let (old_shown, new_shown) = (show(old), show(new));
            let diff = similar::TextDiff::from_lines(&old_shown, &new_shown);
            let label = self.shown().to_string();
            let text = diff
                .unified_diff()
                .context_radius(3)
                .header(&label, &label)
                .to_string();
            write!(out, "{text}")?;
            if !text.ends_with('\n') {
                writeln!(out)?;
            }
            writeln!(out, "dry run: nothing was written")?;
            return Ok(());
        }
        if let Some(old) = old {
            let backup = self.file.backup(old)?;
            writeln!(out, "backup: {}", backup.display())?;
        }
        match new {
            Some(new) => {
                self.file.replace(old, new)?;
                let verb = if old.is_some() { "wrote" } else { "created" };
                writeln!(out, "{verb} {}", self.shown())?;
            }
            None => {
                self.file.remove()?;
                writeln!(
                    out,
                    "removed {} (nothing but what install added was in it)",
                    self.shown()
                )?;
            }
        }
        Ok(())
    }

    fn missing(&self) -> anyhow::Error {
        anyhow::anyhow!(
            "{} does not exist; that is where {} keeps its servers{}. Give another file with \
             --config PATH",
            self.shown(),
            self.client.title(),
            if self.client.path(Scope::Project, Path::new(".")).is_ok() {
                " (--scope project for the current project's)"
            } else {
                ""
            }
        )
    }
}

/// Runs an `mcp` command that edits a client's file; `None` for the ones that serve.
pub fn run(global: &GlobalArgs, command: &McpCommand) -> anyhow::Result<Option<u8>> {
    Ok(Some(match command {
        McpCommand::Install(args) => install(global, args)?,
        McpCommand::Uninstall(args) => uninstall(args)?,
        McpCommand::Wrap(args) => wrap(args)?,
        McpCommand::Unwrap(args) => unwrap(args)?,
        McpCommand::Serve(_) | McpCommand::Proxy(_) | McpCommand::Gateway(_) => return Ok(None),
    }))
}

pub fn install(global: &GlobalArgs, args: &InstallArgs) -> anyhow::Result<u8> {
    let entry_args = served_args(global.session.as_deref())?;
    let env = store_env(global.store())?;
    let target = Target::new(&args.file)?;
    let entry = ServerEntry {
        command: scratchpad_command(args.command.as_deref(), args.file.scope)?,
        args: entry_args,
        env,
        stdio_type: target.client.shape().stdio_type,
    };
    let _lock = target.take(true)?;
    let (old, content) = target.read()?;
    let outcome = client_config::install(target.client, content.as_deref(), &args.name, &entry)
        .map_err(|refusal| target.refused(&refusal))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {}", target.client.title(), target.shown())?;
    let new = match outcome.change {
        Ok(new) => new,
        Err(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
    };
    writeln!(
        out,
        "  added      {} ({} mcp serve{})",
        args.name,
        entry.command,
        describe_settings(global)
    )?;
    target.commit(&mut out, old.as_deref(), Some(&new))?;
    if !target.dry_run {
        writeln!(
            out,
            "restart {} to load it; `scratchpad mcp uninstall --client {}{}` takes it out again",
            target.client.title(),
            target.client.flag(),
            same_file_flags(&args.file)
        )?;
    }
    Ok(0)
}

pub fn uninstall(args: &UninstallArgs) -> anyhow::Result<u8> {
    let target = Target::new(&args.file)?;
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
    let outcome = client_config::uninstall(target.client, &text, &args.name)
        .map_err(|refusal| target.refused(&refusal))?;
    writeln!(out, "{}: {}", target.client.title(), target.shown())?;
    let new = match outcome.change {
        Ok(new) => new,
        Err(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
    };
    writeln!(out, "  removed    {}", args.name)?;
    // Left with only what install creates from nothing, the file goes, unless it is a link's
    // target: removing that would leave the link dangling.
    let new =
        (new != client_config::created_file(target.client) || target.file.linked).then_some(new);
    target.commit(&mut out, Some(&text), new.as_deref())?;
    Ok(0)
}

pub fn wrap(args: &WrapArgs) -> anyhow::Result<u8> {
    let target = Target::new(&args.file)?;
    let _lock = target.take(false)?;
    let (text, content) = target.read()?;
    if text.is_none() {
        return Err(target.missing());
    }
    let Some(text) = content else {
        writeln!(
            std::io::stdout().lock(),
            "nothing to change: {} is empty",
            target.shown()
        )?;
        return Ok(0);
    };
    let command = scratchpad_command(args.command.as_deref(), args.file.scope)?;
    let outcome = client_config::wrap(target.client, &text, &args.servers, &command)
        .map_err(|refusal| target.refused(&refusal))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {}", target.client.title(), target.shown())?;
    report(&mut out, &outcome, "wrapped")?;
    let new = match outcome.change {
        Ok(new) => new,
        Err(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
    };
    target.commit(&mut out, Some(&text), Some(&new))?;
    if !target.dry_run {
        writeln!(
            out,
            "restart {} to load it; `scratchpad mcp unwrap --client {}{}` gives the servers back",
            target.client.title(),
            target.client.flag(),
            same_file_flags(&args.file)
        )?;
    }
    Ok(0)
}

pub fn unwrap(args: &UnwrapArgs) -> anyhow::Result<u8> {
    let target = Target::new(&args.file)?;
    let _lock = target.take(false)?;
    let (text, content) = target.read()?;
    if text.is_none() {
        return Err(target.missing());
    }
    let Some(text) = content else {
        writeln!(
            std::io::stdout().lock(),
            "nothing to change: {} is empty",
            target.shown()
        )?;
        return Ok(0);
    };
    let outcome = client_config::unwrap(target.client, &text, &args.servers)
        .map_err(|refusal| target.refused(&refusal))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {}", target.client.title(), target.shown())?;
    report(&mut out, &outcome, "unwrapped")?;
    let new = match outcome.change {
        Ok(new) => new,
        Err(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
    };
    target.commit(&mut out, Some(&text), Some(&new))?;
    Ok(0)
}

/// One line per server: what was done to it, or why it was left alone.
fn report(out: &mut impl std::io::Write, outcome: &Outcome, done: &str) -> anyhow::Result<()> {
    for (name, verdict) in &outcome.servers {
        match verdict {
            Verdict::Changed(what) => writeln!(out, "  {done:<10} {name} ({what})")?,
            Verdict::Left(why) => writeln!(out, "  left alone {name}: {why}")?,
        }
    }
    Ok(())
}

/// The command written into a client's file.
///
/// User files get this executable's absolute path: apps started from a desktop (Claude Desktop,
/// Cursor, VS Code) do not see the PATH a login shell sets up, so a bare `scratchpad` living in
/// ~/.cargo/bin is "command not found" there. When `scratchpad` on PATH is this very file, that PATH
/// entry is written instead, since a link such as /opt/homebrew/bin/scratchpad survives upgrades
/// and the versioned file behind it does not. Project files are shared with people whose paths
/// differ, so they get plain `scratchpad`. `--command` overrides both.
pub(super) fn scratchpad_command(explicit: Option<&str>, scope: Scope) -> anyhow::Result<String> {
    if let Some(command) = explicit {
        return Ok(command.to_owned());
    }
    if scope == Scope::Project {
        return Ok("scratchpad".to_owned());
    }
    let exe = std::env::current_exe().context("cannot tell where this scratchpad executable is")?;
    let real = std::fs::canonicalize(&exe).unwrap_or_else(|_| exe.clone());
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join(format!("scratchpad{}", std::env::consts::EXE_SUFFIX)))
            .find(|candidate| std::fs::canonicalize(candidate).is_ok_and(|c| c == real))
    });
    let path = on_path.unwrap_or(exe);
    path.to_str().map(str::to_owned).ok_or_else(|| {
        anyhow::anyhow!(
            "this executable's path ({}) is not UTF-8; give the command with --command",
            path.display()
        )
    })
}

/// The server's arguments, `--session` checked by the rule the server applies when it starts.
fn served_args(session: Option<&str>) -> anyhow::Result<Vec<String>> {
    let mut args = vec!["mcp".to_owned(), "serve".to_owned()];
    if let Some(session) = session {
        scratchpad_core::model::validate_name("session", session)
            .map_err(|err| anyhow::anyhow!("{err}; nothing was written"))?;
        args.extend(["--session".to_owned(), session.to_owned()]);
    }
    Ok(args)
}

/// The store goes in the server's environment, not its arguments: a URL may hold a password, and
/// a command line is visible to every user of the machine. A relative file path is made absolute,
/// since the client starts the server in a directory of its own.
fn store_env(store: Option<&str>) -> anyhow::Result<Vec<(String, String)>> {
    let Some(store) = store else {
        return Ok(Vec::new());
    };
    let store = if store.contains("://") || Path::new(store).is_absolute() {
        store.to_owned()
    } else {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        cwd.join(store).display().to_string()
    };
    // What the server checks as it opens the store, checked now: a URL it refuses would only
    // show as a server that does not start.
    scratchpad_core::check_store_url(&store)
        .map_err(|err| anyhow::anyhow!("{err}; nothing was written"))?;
    Ok(vec![(client_config::STORE_VAR.to_owned(), store)])
}

fn describe_settings(global: &GlobalArgs) -> String {
    let mut settings = String::new();
    if let Some(session) = &global.session {
        settings.push_str(&format!(" --session {session}"));
    }
    if global.store.is_some() {
        settings.push_str("; the store in its env as SCRATCHPAD_STORE");
    }
    settings
}

/// The flags that point a follow-up command at the same file.
fn same_file_flags(file: &ClientFile) -> String {
    match (&file.config, file.scope) {
        (Some(path), _) => format!(
            " --config {}",
            crate::speak::shell_word(&path.display().to_string())
        ),
        (None, Scope::Project) => " --scope project".to_owned(),
        (None, Scope::User) => String::new(),
    }
}
