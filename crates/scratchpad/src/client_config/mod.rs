//! The edits `scratchpad mcp install|uninstall|wrap|unwrap` make to an MCP client's configuration
//! file, as functions from its text to the new text: the command adds reading, locking, backing up
//! and writing the file.
//!
//! Every change is an edit of tokens in the file's text (`tree::Edits`), never a re-serialisation,
//! so comments, key order, indentation and line endings stay as the user left them.

pub mod bash_env;
mod client;
mod doc;
mod entry;
pub mod hooks;
mod install;
mod json;
pub mod servers;
mod toml;
mod tree;

pub use client::{Client, Format, Scope};
pub use entry::HEADER_ENV_PREFIX;
pub use install::ServerEntry;

use doc::Doc;
use entry::Plan;
use install::Found;
use scratchpad_core::store::url::{is_secret_name, redact};

/// Why a file is not edited. `message` says it with the file's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The text is not valid in the client's format; the reason names a position, never what the
    /// line holds (it may be a secret).
    Invalid { format: &'static str, why: String },
    /// The file is valid, but what it holds cannot be edited this way, and why.
    Unsupported(String),
    /// `--server NAME` names a server the file does not have.
    NoSuchServer { name: String, known: Vec<String> },
    /// The edit went wrong; a bug in these rules, reported instead of writing a mangled file.
    Bug(String),
}

impl Refusal {
    /// The message for the user, naming the file as `file`.
    pub fn message(&self, file: &str) -> String {
        match self {
            Refusal::Invalid { format, why } => format!(
                "{file} is not valid {format} ({why}); fix it (the client cannot read it either) and \
                 run again; nothing was changed"
            ),
            Refusal::Unsupported(why) => format!("{file}: {why}; nothing was changed"),
            Refusal::NoSuchServer { name, known } => format!(
                "{file} has no server named `{name}`; it has: {}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ),
            Refusal::Bug(why) => format!(
                "{why} in {file}; this is a bug in scratchpad, please report it; nothing was written"
            ),
        }
    }
}

/// What happened to one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Changed; the text says how.
    Changed(String),
    /// Left as it was, and why.
    Left(String),
}

/// The result of one command on one file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The servers looked at, in file order, with what happened to each; servers with nothing to
    /// say (not wrapped, for unwrap) are not listed.
    pub servers: Vec<(String, Verdict)>,
    /// The new text, or why nothing changes.
    pub change: Result<String, String>,
}

/// The name of a client's file format, for messages.
pub fn format_name(client: Client) -> &'static str {
    match client.shape().format {
        Format::Json(flavor) if flavor.comments => "JSON with comments",
        Format::Json(_) => "JSON",
        Format::Toml => "TOML",
    }
}

/// Whether `text` parses as a configuration file of `client`, and if not, why.
pub fn check(client: Client, text: &str) -> Result<(), Refusal> {
    parse(client, text).map(drop)
}

/// The text of a file install creates from nothing; a file left exactly like this once uninstall
/// took its server out holds nothing of the user's.
pub fn created_file(client: Client) -> &'static str {
    install::created_file(client.shape().format == Format::Toml)
}

/// Adds the scratchpad server `entry` under `name`; `text` is `None` when there is no file yet.
pub fn install(
    client: Client,
    text: Option<&str>,
    name: &str,
    entry: &ServerEntry,
) -> Result<Outcome, Refusal> {
    let text = text.unwrap_or_else(|| created_file(client));
    let doc = parse(client, text)?;
    match install::install(&doc, name, entry)? {
        Found::Nothing(why) => Ok(unchanged(why)),
        Found::Edits(edits) => Ok(Outcome {
            servers: vec![(name.to_owned(), Verdict::Changed("added".to_owned()))],
            change: Ok(finish(&doc, &edits)?),
        }),
    }
}

/// Takes the scratchpad server named `name` out again.
pub fn uninstall(client: Client, text: &str, name: &str) -> Result<Outcome, Refusal> {
    let doc = parse(client, text)?;
    match install::uninstall(&doc, name)? {
        Found::Nothing(why) => Ok(unchanged(why)),
        Found::Edits(edits) => Ok(Outcome {
            servers: vec![(name.to_owned(), Verdict::Changed("removed".to_owned()))],
            change: Ok(finish(&doc, &edits)?),
        }),
    }
}

/// Puts the proxy, started as `command`, in front of the servers named (all when `servers` is
/// empty).
pub fn wrap(
    client: Client,
    text: &str,
    servers: &[String],
    command: &str,
) -> Result<Outcome, Refusal> {
    let doc = parse(client, text)?;
    let mut edits = tree::Edits::default();
    let mut report = Vec::new();
    // The scratchpad tools are listed once per client: by the scratchpad server or a proxy already
    // in the file, else by the first server wrapped now; every other proxy gets
    // --no-scratchpad-tools.
    let mut tools_listed = doc
        .servers()
        .map_err(Refusal::Unsupported)?
        .iter()
        .any(|(_, node)| entry::lists_scratchpad_tools(node));
    for (name, node) in chosen(&doc, servers)? {
        let plan = match entry::wrap(&doc, node, command, !tools_listed) {
            Plan::Change(change, what) => match undoes_exactly(&doc, name, &change) {
                Ok(()) => Plan::Change(change, what),
                Err(why) => Plan::Leave(why),
            },
            leave @ Plan::Leave(_) => leave,
        };
        match plan {
            Plan::Change(change, what) => {
                tools_listed = true;
                edits.extend(change);
                report.push((name.to_owned(), Verdict::Changed(what)));
            }
            Plan::Leave(why) => report.push((name.to_owned(), Verdict::Left(why))),
        }
    }
    settle(&doc, &edits, report, "no server left to wrap")
}

/// Takes the proxy away from the servers named (all when `servers` is empty) that wrap put it in
/// front of.
pub fn unwrap(client: Client, text: &str, servers: &[String]) -> Result<Outcome, Refusal> {
    let doc = parse(client, text)?;
    let mut edits = tree::Edits::default();
    let mut report = Vec::new();
    for (name, node) in chosen(&doc, servers)? {
        match entry::unwrap(&doc, node) {
            Plan::Change(change, what) => {
                edits.extend(change);
                report.push((name.to_owned(), Verdict::Changed(what)));
            }
            Plan::Leave(why) if why == "not wrapped" => {}
            Plan::Leave(why) => report.push((name.to_owned(), Verdict::Left(why))),
        }
    }
    settle(&doc, &edits, report, "no server is wrapped")
}

/// The variable the scratchpad server reads its store URL from.
pub const STORE_VAR: &str = "SCRATCHPAD_STORE";

/// What a dry run shows for a secret value.
const HIDDEN: &str = "<redacted>";

/// The file's text as a dry run shows it. Each secret value is replaced where it sits (by its span
/// in the parsed file, never by searching for its text, which misses a value written with escapes
/// and gives a short one away by masking its letters everywhere): every value in env and header
/// maps, the password and secret parameters of URLs (rebuilt from their parts), and arguments that
/// follow a flag naming a key, token, secret or password. The scratchpad's own store URL shows
/// which store it is, without its password. References to variables (`${TOKEN}`, `$TOKEN`,
/// `${env:TOKEN}`, `${input:key}`) are not secrets and stay readable. A text that does not parse
/// shows as a note that it is hidden, never as itself.
pub fn shown(client: Client, text: &str) -> String {
    let Ok(doc) = parse(client, text) else {
        return format!(
            "({HIDDEN}: the text does not parse, so its secrets cannot be told apart)\n"
        );
    };
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

fn parse(client: Client, text: &str) -> Result<Doc<'_>, Refusal> {
    Doc::parse(text, client.shape()).map_err(|why| Refusal::Invalid {
        format: format_name(client),
        why,
    })
}

fn unchanged(why: String) -> Outcome {
    Outcome {
        servers: Vec::new(),
        change: Err(why),
    }
}

/// The outcome of per-server edits: the new text when any server changed.
fn settle(
    doc: &Doc,
    edits: &tree::Edits,
    servers: Vec<(String, Verdict)>,
    none: &str,
) -> Result<Outcome, Refusal> {
    let changed = servers
        .iter()
        .any(|(_, verdict)| matches!(verdict, Verdict::Changed(_)));
    let change = if changed {
        Ok(finish(doc, edits)?)
    } else {
        Err(none.to_owned())
    };
    Ok(Outcome { servers, change })
}

/// The edited text, checked to parse again.
fn finish(doc: &Doc, edits: &tree::Edits) -> Result<String, Refusal> {
    let new = edits
        .apply(doc.text)
        .ok_or_else(|| Refusal::Bug("two edits overlap".to_owned()))?;
    if let Err(why) = Doc::parse(&new, doc.shape) {
        return Err(Refusal::Bug(format!(
            "the change would leave the file unreadable ({why})"
        )));
    }
    Ok(new)
}

/// The servers named (all when none), each checked to exist.
fn chosen<'d>(doc: &'d Doc, names: &[String]) -> Result<Vec<(&'d str, &'d tree::Node)>, Refusal> {
    let servers = doc.servers().map_err(Refusal::Unsupported)?;
    for name in names {
        if !servers.iter().any(|(n, _)| n == name) {
            return Err(Refusal::NoSuchServer {
                name: name.clone(),
                known: servers.iter().map(|(n, _)| (*n).to_owned()).collect(),
            });
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dry_run_hides_secrets_where_they_sit() {
        let text = r#"{"mcpServers": {
  "db": {"command": "x", "args": ["--db", "postgres://ada:a@db:5432/pad", "--api-key", "k", "--token=t", "plain"],
         "env": {"DATABASE_URL": "postgres://ada:a@db/pad", "SHORT": "a", "REF": "${TOKEN}",
                 "SCRATCHPAD_STORE": "postgres://ada:p\"w\\x@db.internal/pad"}},
  "web": {"url": "https://u:pw@mcp.example.com/mcp?api_key=abcd&region=eu",
          "headers": {"Authorization": "Bearer a", "Accept": "a"}}
}}"#;
        let out = shown(Client::ClaudeDesktop, text);
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
