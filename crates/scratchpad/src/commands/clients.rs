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

/// The configuration file one command works on.
struct Target {
    client: Client,
    /// As the user would write it.
    shown: PathBuf,
    /// What to read and write: the file a symlink points at, so a linked dotfile stays linked.
    real: PathBuf,
    dry_run: bool,
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
        let real = std::fs::canonicalize(&shown).unwrap_or_else(|_| shown.clone());
        Ok(Self {
            client: file.client,
            shown,
            real,
            dry_run: file.dry_run,
        })
    }

    /// The file's text; `None` when it does not exist.
    fn read(&self) -> anyhow::Result<Option<String>> {
        match std::fs::read(&self.real) {
            Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
                anyhow::anyhow!(
                    "{} is not UTF-8 text; nothing was changed",
                    self.shown.display()
                )
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err).with_context(|| format!("cannot read {}", self.shown.display())),
        }
    }

    fn refused(&self, refusal: &Refusal) -> anyhow::Error {
        anyhow::anyhow!("{}", refusal.message(&self.shown.display().to_string()))
    }

    fn secrets(&self, texts: &[&str]) -> Vec<String> {
        client_config::secrets(self.client, texts)
    }

    /// Writes `new` (or removes the file when `None`) after backing up `old`; with --dry-run prints
    /// the diff instead.
    fn commit(
        &self,
        out: &mut impl std::io::Write,
        old: Option<&str>,
        new: Option<&str>,
        secrets: &[String],
    ) -> anyhow::Result<()> {
        if self.dry_run {
            let diff = similar::TextDiff::from_lines(old.unwrap_or(""), new.unwrap_or(""));
            let label = self.shown.display().to_string();
            let text = diff
                .unified_diff()
                .context_radius(3)
                .header(&label, &label)
                .to_string();
            write!(out, "{}", redact(&text, secrets))?;
            if !text.ends_with('\n') {
                writeln!(out)?;
            }
            writeln!(out, "dry run: nothing was written")?;
            return Ok(());
        }
        if let Some(old) = old {
            let backup = backup_path(&self.real);
            std::fs::write(&backup, old)
                .with_context(|| format!("cannot write the backup {}", backup.display()))?;
            copy_permissions(&self.real, &backup);
            writeln!(out, "backup: {}", backup.display())?;
        }
        match new {
            Some(new) => {
                write_atomically(&self.real, new)
                    .with_context(|| format!("cannot write {}", self.shown.display()))?;
                let verb = if old.is_some() { "wrote" } else { "created" };
                writeln!(out, "{verb} {}", self.shown.display())?;
            }
            None => {
                std::fs::remove_file(&self.real)
                    .with_context(|| format!("cannot remove {}", self.shown.display()))?;
                writeln!(
                    out,
                    "removed {} (install had created it)",
                    self.shown.display()
                )?;
            }
        }
        Ok(())
    }

    fn missing(&self) -> anyhow::Error {
        anyhow::anyhow!(
            "{} does not exist; that is where {} keeps its servers{}. Give another file with \
             --config PATH",
            self.shown.display(),
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
        McpCommand::Serve(_) | McpCommand::Proxy(_) => return Ok(None),
    }))
}

pub fn install(global: &GlobalArgs, args: &InstallArgs) -> anyhow::Result<u8> {
    let target = Target::new(&args.file)?;
    let old = target.read()?;
    let entry = ServerEntry {
        command: scratchpad_command(args.command.as_deref(), args.file.scope)?,
        args: served_args(global.session.as_deref()),
        env: store_env(global.store.as_deref())?,
        stdio_type: target.client.shape().stdio_type,
    };
    let outcome = client_config::install(target.client, old.as_deref(), &args.name, &entry)
        .map_err(|refusal| target.refused(&refusal))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {}", target.client.title(), target.shown.display())?;
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
    let secrets = target.secrets(&[old.as_deref().unwrap_or(""), &new]);
    target.commit(&mut out, old.as_deref(), Some(&new), &secrets)?;
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
    let mut out = std::io::stdout().lock();
    let Some(text) = target.read()? else {
        writeln!(
            out,
            "nothing to change: {} does not exist",
            target.shown.display()
        )?;
        return Ok(0);
    };
    let outcome = client_config::uninstall(target.client, &text, &args.name)
        .map_err(|refusal| target.refused(&refusal))?;
    writeln!(out, "{}: {}", target.client.title(), target.shown.display())?;
    let new = match outcome.change {
        Ok(new) => new,
        Err(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
    };
    writeln!(out, "  removed    {}", args.name)?;
    let new = (new != client_config::created_file(target.client)).then_some(new);
    let secrets = target.secrets(&[&text, new.as_deref().unwrap_or("")]);
    target.commit(&mut out, Some(&text), new.as_deref(), &secrets)?;
    Ok(0)
}

pub fn wrap(args: &WrapArgs) -> anyhow::Result<u8> {
    let target = Target::new(&args.file)?;
    let text = target.read()?.ok_or_else(|| target.missing())?;
    let command = scratchpad_command(args.command.as_deref(), args.file.scope)?;
    let outcome = client_config::wrap(target.client, &text, &args.servers, &command)
        .map_err(|refusal| target.refused(&refusal))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {}", target.client.title(), target.shown.display())?;
    report(&mut out, &outcome, "wrapped")?;
    let new = match outcome.change {
        Ok(new) => new,
        Err(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
    };
    let secrets = target.secrets(&[&text, &new]);
    target.commit(&mut out, Some(&text), Some(&new), &secrets)?;
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
    let text = target.read()?.ok_or_else(|| target.missing())?;
    let outcome = client_config::unwrap(target.client, &text, &args.servers)
        .map_err(|refusal| target.refused(&refusal))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {}", target.client.title(), target.shown.display())?;
    report(&mut out, &outcome, "unwrapped")?;
    let new = match outcome.change {
        Ok(new) => new,
        Err(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
    };
    let secrets = target.secrets(&[&text, &new]);
    target.commit(&mut out, Some(&text), Some(&new), &secrets)?;
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
fn scratchpad_command(explicit: Option<&str>, scope: Scope) -> anyhow::Result<String> {
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

fn served_args(session: Option<&str>) -> Vec<String> {
    let mut args = vec!["mcp".to_owned(), "serve".to_owned()];
    if let Some(session) = session {
        args.extend(["--session".to_owned(), session.to_owned()]);
    }
    args
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
    Ok(vec![("SCRATCHPAD_STORE".to_owned(), store)])
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

/// `FILE.scratchpad-backup-20250102T030405Z`, numbered when one of that second exists.
fn backup_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stamp = utc_stamp(std::time::SystemTime::now());
    let mut candidate = path.with_file_name(format!("{name}.scratchpad-backup-{stamp}"));
    let mut n = 1;
    while candidate.exists() {
        candidate = path.with_file_name(format!("{name}.scratchpad-backup-{stamp}-{n}"));
        n += 1;
    }
    candidate
}

/// `YYYYMMDDTHHMMSSZ` (civil date from days since 1970, Howard Hinnant's algorithm).
fn utc_stamp(time: std::time::SystemTime) -> String {
    let secs = time
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

/// Replaces the file in one step (a temporary file renamed over it), keeping its permissions: a
/// client reading it at that moment sees the old text or the new, never half of one.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = dir.join(format!(".{name}.scratchpad-{}", std::process::id()));
    std::fs::write(&temporary, text)?;
    copy_permissions(path, &temporary);
    std::fs::rename(&temporary, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}

fn copy_permissions(from: &Path, to: &Path) {
    if let Ok(meta) = std::fs::metadata(from) {
        let _ = std::fs::set_permissions(to, meta.permissions());
    }
}

fn redact(text: &str, secrets: &[String]) -> String {
    let mut text = text.to_owned();
    for secret in secrets {
        text = text.replace(secret.as_str(), "<redacted>");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_stamps() {
        let at = |secs| utc_stamp(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs));
        assert_eq!(at(0), "19700101T000000Z");
        assert_eq!(at(951_782_400), "20000229T000000Z");
        assert_eq!(at(1_735_787_045), "20250102T030405Z");
    }
}
