//! `scratchpad mcp install|uninstall|wrap|unwrap`: put the scratchpad into an MCP client's own
//! configuration file, and take it out again, byte for byte.
//!
//! Every change is an edit of tokens in the file's text (`tree::Edits`), never a re-serialisation,
//! so comments, key order, indentation and line endings stay as the user left them. Before a file is
//! written its old text is copied next to it; `--dry-run` prints the diff instead, with secrets
//! (env and header values, URL passwords) masked.

mod client;
mod doc;
mod entry;
mod install;
mod json;
mod toml;
mod tree;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use scratchpad_core::store::url::{is_secret_name, redact};

use client::Format;
pub use client::{Client, Scope};
use doc::Doc;
use entry::Plan;
use install::{Found, ServerEntry};

use crate::cli::{
    ClientFile, GlobalArgs, InstallArgs, McpCommand, UninstallArgs, UnwrapArgs, WrapArgs,
};

pub use entry::HEADER_ENV_PREFIX;

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

    fn format_name(&self) -> &'static str {
        match self.client.shape().format {
            Format::Json(flavor) if flavor.comments => "JSON with comments",
            Format::Json(_) => "JSON",
            Format::Toml => "TOML",
        }
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

    fn parse<'a>(&self, text: &'a str) -> anyhow::Result<Doc<'a>> {
        Doc::parse(text, self.client.shape()).map_err(|why| {
            anyhow::anyhow!(
                "{} is not valid {} ({why}); fix it (the client cannot read it either) and run \
                 again; nothing was changed",
                self.shown.display(),
                self.format_name()
            )
        })
    }

    /// Writes `new` (or removes the file when `None`) after backing up `old`; with --dry-run prints
    /// the diff instead.
    fn commit(
        &self,
        out: &mut impl std::io::Write,
        old: Option<&str>,
        new: Option<&str>,
    ) -> anyhow::Result<()> {
        if let Some(new) = new
            && let Err(why) = Doc::parse(new, self.client.shape())
        {
            anyhow::bail!(
                "the change would leave {} unreadable ({why}); this is a bug in scratchpad, please \
                 report it; nothing was written",
                self.shown.display()
            );
        }
        if self.dry_run {
            let shape = self.client.shape();
            let show = |text: Option<&str>| -> anyhow::Result<String> {
                let Some(text) = text else {
                    return Ok(String::new());
                };
                let doc = Doc::parse(text, shape).map_err(|why| {
                    anyhow::anyhow!(
                        "{} is not valid {} ({why}); nothing was changed",
                        self.shown.display(),
                        self.format_name()
                    )
                })?;
                Ok(shown(&doc))
            };
            let (old_shown, new_shown) = (show(old)?, show(new)?);
            let diff = similar::TextDiff::from_lines(&old_shown, &new_shown);
            let label = self.shown.display().to_string();
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
    let shape = target.client.shape();
    let old = target.read()?;
    let is_toml = shape.format == Format::Toml;
    let text = old
        .clone()
        .unwrap_or_else(|| install::created_file(is_toml).to_owned());
    let doc = target.parse(&text)?;
    let entry = ServerEntry {
        command: scratchpad_command(args.command.as_deref(), args.file.scope)?,
        args: served_args(global.session.as_deref()),
        env: store_env(global.store())?,
        stdio_type: shape.stdio_type,
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {}", target.client.title(), target.shown.display())?;
    let edits = match install::install(&doc, &args.name, &entry)? {
        Found::Nothing(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
        Found::Edits(edits) => edits,
    };
    let new = apply(&edits, &text)?;
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
    let mut out = std::io::stdout().lock();
    let Some(text) = target.read()? else {
        writeln!(
            out,
            "nothing to change: {} does not exist",
            target.shown.display()
        )?;
        return Ok(0);
    };
    let doc = target.parse(&text)?;
    writeln!(out, "{}: {}", target.client.title(), target.shown.display())?;
    let edits = match install::uninstall(&doc, &args.name)? {
        Found::Nothing(why) => {
            writeln!(out, "nothing to change: {why}")?;
            return Ok(0);
        }
        Found::Edits(edits) => edits,
    };
    let new = apply(&edits, &text)?;
    writeln!(out, "  removed    {}", args.name)?;
    let is_toml = doc.is_toml();
    let new = (new != install::created_file(is_toml)).then_some(new);
    target.commit(&mut out, Some(&text), new.as_deref())?;
    Ok(0)
}

pub fn wrap(args: &WrapArgs) -> anyhow::Result<u8> {
    let target = Target::new(&args.file)?;
    let text = target.read()?.ok_or_else(|| target.missing())?;
    let doc = target.parse(&text)?;
    let command = scratchpad_command(args.command.as_deref(), args.file.scope)?;
    let servers = chosen(&doc, &args.servers, &target)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {}", target.client.title(), target.shown.display())?;
    let mut edits = tree::Edits::default();
    let mut changed = 0;
    for (name, node) in servers {
        let plan = match entry::wrap(&doc, node, &command) {
            Plan::Change(change, what) => match undoes_exactly(&doc, name, &change) {
                Ok(()) => Plan::Change(change, what),
                Err(why) => Plan::Leave(why),
            },
            leave @ Plan::Leave(_) => leave,
        };
        match plan {
            Plan::Change(change, what) => {
                writeln!(out, "  wrapped    {name} ({what})")?;
                edits.extend(change);
                changed += 1;
            }
            Plan::Leave(why) => writeln!(out, "  left alone {name}: {why}")?,
        }
    }
    if changed == 0 {
        writeln!(out, "nothing to change: no server left to wrap")?;
        return Ok(0);
    }
    let new = apply(&edits, &text)?;
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
    let text = target.read()?.ok_or_else(|| target.missing())?;
    let doc = target.parse(&text)?;
    let servers = chosen(&doc, &args.servers, &target)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: {}", target.client.title(), target.shown.display())?;
    let mut edits = tree::Edits::default();
    let mut changed = 0;
    for (name, node) in servers {
        match entry::unwrap(&doc, node) {
            Plan::Change(change, what) => {
                writeln!(out, "  unwrapped  {name} ({what})")?;
                edits.extend(change);
                changed += 1;
            }
            Plan::Leave(why) if why == "not wrapped" => {}
            Plan::Leave(why) => writeln!(out, "  left alone {name}: {why}")?,
        }
    }
    if changed == 0 {
        writeln!(out, "nothing to change: no server is wrapped")?;
        return Ok(0);
    }
    let new = apply(&edits, &text)?;
    target.commit(&mut out, Some(&text), Some(&new))?;
    Ok(0)
}

fn apply(edits: &tree::Edits, text: &str) -> anyhow::Result<String> {
    edits.apply(text).ok_or_else(|| {
        anyhow::anyhow!(
            "two edits overlap; this is a bug in scratchpad, please report it; nothing was written"
        )
    })
}

/// The servers named by --server (all when none), each checked to exist.
fn chosen<'d>(
    doc: &'d Doc,
    names: &[String],
    target: &Target,
) -> anyhow::Result<Vec<(&'d str, &'d tree::Node)>> {
    let servers = doc
        .servers()
        .map_err(|why| anyhow::anyhow!("{}: {why}; nothing was changed", target.shown.display()))?;
    for name in names {
        if !servers.iter().any(|(n, _)| n == name) {
            let known: Vec<&str> = servers.iter().map(|(n, _)| *n).collect();
            anyhow::bail!(
                "{} has no server named `{name}`; it has: {}",
                target.shown.display(),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            );
        }
    }
    Ok(servers
        .into_iter()
        .filter(|(name, _)| names.is_empty() || names.iter().any(|n| n == name))
        .collect())
}

/// A wrap is kept only if unwrapping its result gives the original text back exactly.
fn undoes_exactly(doc: &Doc, name: &str, change: &tree::Edits) -> Result<(), String> {
    let refuse = || "unwrap could not give its text back byte for byte; wrap it by hand".to_owned();
    let wrapped = change.apply(doc.text).ok_or_else(refuse)?;
    let after = Doc::parse(&wrapped, doc.shape).map_err(|_| refuse())?;
    let servers = after.servers().map_err(|_| refuse())?;
    let (_, node) = servers
        .iter()
        .rev()
        .find(|(n, _)| *n == name)
        .ok_or_else(refuse)?;
    match entry::unwrap(&after, node) {
        Plan::Change(back, _) if back.apply(&wrapped).as_deref() == Some(doc.text) => Ok(()),
        Plan::Change(..) | Plan::Leave(_) => Err(refuse()),
    }
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

/// The variable the server reads its store URL from.
const STORE_VAR: &str = "SCRATCHPAD_STORE";

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
    Ok(vec![(STORE_VAR.to_owned(), store)])
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

/// What a dry run shows for a secret value.
const HIDDEN: &str = "<redacted>";

/// The file's text as a dry run shows it. Each secret value is replaced where it sits (by its span
/// in the parsed file, never by searching for its text, which misses a value written with escapes
/// and gives a short one away by masking its letters everywhere): every value in env and header
/// maps, the password and secret parameters of URLs (rebuilt from their parts), and arguments that
/// follow a flag naming a key, token, secret or password. The scratchpad's own store URL shows
/// which store it is, without its password. References to variables (`${TOKEN}`, `$TOKEN`,
/// `${env:TOKEN}`, `${input:key}`) are not secrets and stay readable.
fn shown(doc: &Doc) -> String {
    let mut edits = tree::Edits::default();
    let mut hide = |node: &tree::Node, shown: String| {
        // Only a string token is replaced (a value without a known place is left out of it).
        if node.span.start < node.span.end && doc.slice(node.span.clone()).starts_with(['"', '\''])
        {
            edits.replace(node.span.clone(), doc.string(&shown));
        }
    };
    let servers = doc.servers().unwrap_or_default();
    for (_, node) in servers {
        let Some(map) = node.as_map() else { continue };
        for member in &map.members {
            let members = member.value.as_map().map_or(&[][..], |m| &m.members[..]);
            match member.name.as_str() {
                "env" => {
                    for variable in members {
                        let Some(value) = variable.value.as_str() else {
                            continue;
                        };
                        if is_reference(value) {
                            continue;
                        }
                        let shown = if variable.name == STORE_VAR {
                            redact(value)
                        } else {
                            HIDDEN.to_owned()
                        };
                        hide(&variable.value, shown);
                    }
                }
                "headers" | "http_headers" => {
                    for header in members.iter().filter(|h| is_secret_name(&h.name)) {
                        if header.value.as_str().is_some_and(|v| !is_reference(v)) {
                            hide(&header.value, HIDDEN.to_owned());
                        }
                    }
                }
                "url" | "serverUrl" | "httpUrl" => {
                    if let Some(url) = member.value.as_str()
                        && redact(url) != url
                    {
                        hide(&member.value, redact(url));
                    }
                }
                "args" => {
                    let items = member.value.as_list().unwrap_or_default();
                    let mut after_secret_flag = false;
                    for item in items {
                        let Some(arg) = item.as_str() else {
                            after_secret_flag = false;
                            continue;
                        };
                        let shown = if after_secret_flag && !is_reference(arg) {
                            HIDDEN.to_owned()
                        } else if let Some((flag, value)) = arg.split_once('=')
                            && flag.starts_with('-')
                            && is_secret_name(flag)
                            && !is_reference(value)
                        {
                            format!("{flag}={HIDDEN}")
                        } else {
                            redact(arg)
                        };
                        after_secret_flag =
                            arg.starts_with('-') && !arg.contains('=') && is_secret_name(arg);
                        if shown != arg {
                            hide(item, shown);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    edits
        .apply(doc.text)
        .unwrap_or_else(|| format!("({HIDDEN}: the file's secrets could not be told apart)\n"))
}

/// `${TOKEN}`, `$TOKEN`, `${env:TOKEN}`, `${input:key}`: a name for a secret kept elsewhere.
fn is_reference(value: &str) -> bool {
    value.contains("${") || value.starts_with('$')
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

    #[test]
    fn a_dry_run_hides_secrets_where_they_sit() {
        let text = r#"{"mcpServers": {
  "db": {"command": "x", "args": ["--db", "postgres://ada:a@db:5432/pad", "--api-key", "k", "--token=t", "plain"],
         "env": {"DATABASE_URL": "postgres://ada:a@db/pad", "SHORT": "a", "REF": "${TOKEN}",
                 "SCRATCHPAD_STORE": "postgres://ada:p\"w\\x@db.internal/pad"}},
  "web": {"url": "https://u:pw@mcp.example.com/mcp?api_key=abcd&region=eu",
          "headers": {"Authorization": "Bearer a", "Accept": "a"}}
}}"#;
        let doc = Doc::parse(text, Client::ClaudeDesktop.shape()).unwrap();
        let out = shown(&doc);
        assert!(
            out.contains(r#""args": ["--db", "postgres://ada:***@db:5432/pad", "--api-key", "<redacted>", "--token=<redacted>", "plain"]"#),
            "{out}"
        );
        // A one-letter password leaves every other `a` of the file alone.
        assert!(
            out.contains(
                r#""DATABASE_URL": "<redacted>", "SHORT": "<redacted>", "REF": "${TOKEN}""#
            ),
            "{out}"
        );
        // A password written with escapes is hidden too; the store still says which it is.
        assert!(
            out.contains(r#""SCRATCHPAD_STORE": "postgres://ada:***@db.internal/pad""#),
            "{out}"
        );
        assert!(
            out.contains(r#""url": "https://u:***@mcp.example.com/mcp?api_key=***&region=eu""#),
            "{out}"
        );
        assert!(
            out.contains(r#""headers": {"Authorization": "<redacted>", "Accept": "a"}"#),
            "{out}"
        );
        assert!(!out.contains("pw") && !out.contains("abcd"), "{out}");
    }
}
