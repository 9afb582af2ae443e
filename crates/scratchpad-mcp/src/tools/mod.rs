//! The scratchpad tools: their definitions (names, descriptions and schemas written for a model) and
//! one dispatcher that runs a call against a [`Scratchpad`]. The server and the proxy share both.

pub mod args;
pub mod render;
mod schema;

use rmcp::handler::server::common::schema_for_output;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use scratchpad_core::figures::counted;
use scratchpad_core::read::{READ_TIMEOUT, Stop};
use scratchpad_core::{
    DiffOptions, Error, Kind, ListFilter, ReadMode, Scratchpad, Target, Ttl, WriteOptions,
};
use serde::de::DeserializeOwned;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio_util::sync::CancellationToken;

/// How calls are spelled as tool calls, e.g. in a continuation.
pub use scratchpad_mcp_speak as speak;
pub use scratchpad_mcp_speak::{
    DELETE, EDIT, LEASE, LIST, Mcp, PIN, READ, RENAME, SEARCH, WRITE, call_arguments,
    read_arguments,
};

use args::{
    DeleteArgs, EditArgs, KindName, LeaseAction, LeaseArgs, ListArgs, PinArgs, ReadArgs,
    ReadModeName, RenameArgs, SearchArgs, WriteArgs, WriteMode,
};
use render::{DeleteOutput, EntrySummary, LeaseOutput, ListOutput, ReadOutput, SearchOutput};

/// How long a lease lasts when the call gives no `ttl`.
const DEFAULT_LEASE_TTL: std::time::Duration = std::time::Duration::from_secs(60);

/// Most characters one read returns (characters): with JSON escaping, well inside the 16 MiB a
/// message may take in MCP's stdio and HTTP transports.
pub const MAX_REPLY_CHARS: usize = 4 * 1024 * 1024;
/// Entries a list page holds when the caller gives no limit.
const DEFAULT_LIST_LIMIT: usize = 50;
const MAX_LIST_LIMIT: usize = 500;
const DEFAULT_SEARCH_LIMIT: usize = 10;
const MAX_SEARCH_LIMIT: usize = 100;

/// Every scratchpad tool, in the order a client shows them.
pub fn definitions() -> Vec<Tool> {
    vec![
        tool::<WriteArgs, EntrySummary>(
            WRITE,
            "Save a note (plan, findings, decisions) or any `content`; it survives compaction and \
             restarts. Large values return a preview to read in slices.",
            annotations(false, false, true),
        ),
        tool::<ReadArgs, ReadOutput>(
            READ,
            "Read part of an entry: grep a log, lines near a number in its preview, the tail, a jq \
             query; or how a note changed.",
            annotations(true, false, true),
        ),
        tool::<EditArgs, EntrySummary>(
            EDIT,
            "Replace exact `old` by `new` in a note, insert `new` `after_line`, \
             or `restore` a version.",
            annotations(false, false, false),
        ),
        tool::<ListArgs, ListOutput>(
            LIST,
            "List this session's entries (or `removed` notes), newest first, with previews. Call it \
             first to find your notes.",
            annotations(true, false, true),
        ),
        tool::<DeleteArgs, DeleteOutput>(
            DELETE,
            "Remove; a note stays restorable: `undo` (as `new_name` if taken). `purge`: gone \
             at once.",
            annotations(false, true, false),
        ),
        tool::<SearchArgs, SearchOutput>(
            SEARCH,
            "Full-text search of names, notes, ends of outputs; in one, use mode=grep.",
            annotations(true, false, true),
        ),
        tool::<PinArgs, EntrySummary>(
            PIN,
            "Pin an entry: never expires, never evicted.",
            annotations(false, false, true),
        ),
        tool::<RenameArgs, EntrySummary>(
            RENAME,
            "Rename; a renamed output no longer expires.",
            annotations(false, false, false),
        ),
        tool::<LeaseArgs, LeaseOutput>(
            LEASE,
            "Claim a note while editing: `action`=acquire gives a `token` (`ttl` 60s; `holder`: you) to pass \
             as `lease`; stale or released ones fail.",
            annotations(false, false, false),
        ),
    ]
}

/// Whether `name` is one of the scratchpad tools.
pub fn is_scratchpad_tool(name: &str) -> bool {
    [WRITE, READ, EDIT, LIST, DELETE, SEARCH, PIN, RENAME, LEASE].contains(&name)
}

/// Runs one scratchpad tool call. Every failure of the tool's job, including bad arguments, is a
/// result with `isError: true` whose message says what to do next. `None`: not a scratchpad tool.
/// A read stops when `cancelled` fires (the client's `notifications/cancelled`) or when this
/// future is dropped (its client went away), as well as at its deadline.
pub async fn call(
    pad: &Scratchpad,
    name: &str,
    args: JsonObject,
    cancelled: CancellationToken,
) -> Option<CallToolResult> {
    if !is_scratchpad_tool(name) {
        return None;
    }
    let pad = pad.clone();
    let name = name.to_owned();
    let stop = Arc::new(AtomicBool::new(false));
    let _on_drop = StopOnDrop(Arc::clone(&stop));
    let watcher = {
        let stop = Arc::clone(&stop);
        tokio::spawn(async move {
            cancelled.cancelled().await;
            stop.store(true, Ordering::Relaxed);
        })
    };
    // The engine is synchronous (SQLite or a blocking PostgreSQL client): keep it off the async workers.
    let outcome = crate::blocking(move || dispatch(&pad, &name, args, &stop)).await;
    watcher.abort();
    Some(match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(failure)) => failure.into_result(),
        Err(stopped) => Failure::Internal(stopped.message.to_string()).into_result(),
    })
}

/// Sets its flag when dropped: a call whose future is dropped has no one waiting for its answer.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Why a call failed, before it becomes an `isError` result. `into_result` is the one place core
/// errors become tool results, spelled for MCP.
#[derive(Debug)]
enum Failure {
    Arguments { tool: String, message: String },
    Engine(scratchpad_core::Error),
    Internal(String),
}

impl From<scratchpad_core::Error> for Failure {
    fn from(err: scratchpad_core::Error) -> Self {
        Self::Engine(err)
    }
}

impl Failure {
    fn arguments(tool: &str, message: impl Into<String>) -> Self {
        Self::Arguments {
            tool: tool.to_owned(),
            message: message.into(),
        }
    }

    fn message(self) -> String {
        match self {
            Self::Arguments { tool, message } => {
                format!("invalid arguments for {tool}: {message}")
            }
            Self::Engine(err) => err.render(&Mcp),
            Self::Internal(message) => message,
        }
    }

    fn into_result(self) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text(self.message())])
    }
}

fn dispatch(
    pad: &Scratchpad,
    tool: &str,
    args: JsonObject,
    stop: &AtomicBool,
) -> Result<CallToolResult, Failure> {
    match tool {
        WRITE => write(pad, parse(tool, args)?),
        READ => read(pad, parse(tool, args)?, stop),
        EDIT => edit(pad, parse(tool, args)?),
        LIST => list(pad, parse(tool, args)?),
        DELETE => delete(pad, parse(tool, args)?),
        SEARCH => search(pad, parse(tool, args)?),
        PIN => {
            let args: PinArgs = parse(tool, args)?;
            let info = pad
                .with_lease(args.lease)
                .pin(&args.name, args.pinned, args.if_version)?;
            let what = if args.pinned {
                "pinned: it never expires and is never evicted"
            } else {
                "unpinned: it expires and may be evicted again"
            };
            Ok(render::entry_result(
                format!("`{}` is {what} (version {}).", info.name, info.version),
                &info,
            ))
        }
        RENAME => {
            let args: RenameArgs = parse(tool, args)?;
            let info =
                pad.with_lease(args.lease)
                    .rename(&args.name, &args.new_name, args.if_version)?;
            Ok(render::entry_result(
                format!(
                    "Renamed `{}` to `{}` (version {}); it no longer expires.",
                    args.name, info.name, info.version
                ),
                &info,
            ))
        }
        LEASE => lease(pad, parse(tool, args)?),
        other => Err(Failure::Internal(format!("unknown tool `{other}`"))),
    }
}

fn parse<T: DeserializeOwned + JsonSchema>(tool: &str, args: JsonObject) -> Result<T, Failure> {
    serde_path_to_error::deserialize(serde_json::Value::Object(args)).map_err(|err| {
        let field = err.path().to_string();
        let inner = err.inner().to_string();
        let message = if let Some(unknown) = unknown_field(&inner) {
            unknown_argument(unknown, &schema::input::<T>())
        } else if field == "." {
            format!("{inner}; the tool's input schema lists the arguments it takes")
        } else {
            format!("`{field}`: {inner}")
        };
        Failure::arguments(tool, message)
    })
}

/// The name in serde's "unknown field `x`, expected one of …".
fn unknown_field(message: &str) -> Option<&str> {
    message.strip_prefix("unknown field `")?.split('`').next()
}

/// "unknown argument `patern`: did you mean `pattern`?", with the arguments the tool takes.
fn unknown_argument(unknown: &str, schema: &JsonObject) -> String {
    let known: Vec<&str> = schema
        .get("properties")
        .and_then(serde_json::Value::as_object)
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let closest = known
        .iter()
        .map(|name| (strsim::damerau_levenshtein(unknown, name), *name))
        .min();
    let guess = match closest {
        // Within two edits, or a third of the name for long ones: a slip, not another word.
        Some((distance, name)) if distance <= 2.max(unknown.chars().count() / 3) => {
            format!(": did you mean `{name}`?")
        }
        _ => ".".to_owned(),
    };
    format!(
        "unknown argument `{unknown}`{guess} It takes `{}`.",
        known.join("`, `")
    )
}

fn write(pad: &Scratchpad, args: WriteArgs) -> Result<CallToolResult, Failure> {
    let ttl = match args.ttl.as_deref() {
        None => Ttl::Default,
        Some(text) => text
            .parse::<Ttl>()
            .map_err(|err| Failure::arguments(WRITE, err.render(&Mcp)))?,
    };
    let opts = WriteOptions {
        if_version: args.if_version,
        ttl,
        pinned: args.pin,
        ..WriteOptions::default()
    };
    let pad = pad.with_lease(args.lease);
    let info = match args.mode {
        WriteMode::Overwrite => pad.write(&args.name, &args.content, opts)?,
        WriteMode::Append => pad.append(&args.name, &args.content, opts)?,
    };
    let verb = match args.mode {
        WriteMode::Overwrite => "Saved",
        WriteMode::Append => "Appended to",
    };
    let mut text = format!(
        "{verb} `{}` (version {}; {}, {}, {}).",
        info.name,
        info.version,
        info.kind.as_str(),
        counted(info.chars, "char", "chars"),
        counted(info.lines, "line", "lines")
    );
    let large = pad.is_large(None, info.bytes);
    if large {
        text.push_str(&format!(
            "\n{}\n{}",
            info.preview,
            scratchpad_core::hint(&info).render(&Mcp)
        ));
    }
    let mut result = render::entry_result(text, &info);
    if large {
        result.content.push(render::resource_link(&info));
    }
    Ok(result)
}

fn read(pad: &Scratchpad, args: ReadArgs, stop: &AtomicBool) -> Result<CallToolResult, Failure> {
    if args.max_chars == Some(0) {
        return Err(Failure::arguments(
            READ,
            "max_chars must be at least 1; omit it for the default budget of 8000 characters",
        ));
    }
    // No reply may be larger than a client can take in one message; a full read (even forced)
    // is cut there and continues with the next range.
    let full = args.mode.unwrap_or(ReadModeName::Full) == ReadModeName::Full;
    let budget = match (full, args.max_chars) {
        (true, None) => Some(MAX_REPLY_CHARS),
        (_, given) => given.map(|chars| {
            usize::try_from(chars)
                .unwrap_or(usize::MAX)
                .min(MAX_REPLY_CHARS)
        }),
    };
    let stop = Stop::after(READ_TIMEOUT).or_when(stop);
    match args.mode {
        Some(ReadModeName::History) => {
            check_unused(&args, ReadModeName::History)?;
            let budget = budget.unwrap_or(pad.config().read_budget_chars);
            return match pad.history(&args.name) {
                Ok(history) => Ok(render::history_result(&history, budget)),
                // After a removal, the history asked for is the removed note's.
                Err(err @ Error::NotFound { .. }) => match pad.removed_history(&args.name) {
                    Ok(removed) => Ok(render::removed_history_result(&removed)),
                    Err(_) => Err(err.into()),
                },
                Err(err) => Err(err.into()),
            };
        }
        Some(ReadModeName::Diff) => return diff(pad, &args, budget, stop),
        _ => {}
    }
    let mode = read_mode(&args)?;
    let reply = match args.version {
        Some(version) => pad.read_version_until(&args.name, version, &mode, budget, stop)?,
        None => pad.read_until(&args.name, &mode, budget, stop)?,
    };
    Ok(render::read_result(&reply))
}

/// `mode=diff`: `version` of this entry (default: the one before the current) against `against`
/// (default: this entry) at `to` (default: its current version).
fn diff(
    pad: &Scratchpad,
    args: &ReadArgs,
    budget: Option<usize>,
    stop: Stop<'_>,
) -> Result<CallToolResult, Failure> {
    check_unused(args, ReadModeName::Diff)?;
    let against = args.against.clone().unwrap_or_else(|| args.name.clone());
    let version = match (args.version, &args.against, args.to) {
        (Some(version), _, _) => Some(version),
        // Alone, a diff shows what the latest change did.
        (None, None, None) => {
            let history = pad.history(&args.name)?;
            let previous = history
                .versions
                .iter()
                .find(|v| v.version < history.entry.version)
                .map(|v| v.version);
            match previous {
                Some(previous) => Some(previous),
                None => {
                    return Err(Failure::arguments(
                        READ,
                        format!(
                            "`{}` keeps no older version to compare with; give `against` (another entry) \
                             or `version`",
                            args.name
                        ),
                    ));
                }
            }
        }
        (None, _, _) => None,
    };
    let cursor =
        match &args.cursor {
            Some(text) => Some(text.parse().map_err(|err: scratchpad_core::Error| {
                Failure::arguments(READ, err.render(&Mcp))
            })?),
            None => None,
        };
    let a = Target {
        name: args.name.clone(),
        version,
    };
    let b = Target {
        name: against,
        version: args.to,
    };
    let opts = DiffOptions {
        cursor,
        budget_chars: budget,
        ..DiffOptions::default()
    };
    let reply = pad.diff_until(&a, &b, &opts, stop)?;
    Ok(render::diff_result(&reply))
}

/// Arguments given that the history and diff modes do not take.
fn check_unused(args: &ReadArgs, mode: ReadModeName) -> Result<(), Failure> {
    let diff = mode == ReadModeName::Diff;
    let unused: Vec<&str> = [
        ("n", args.n.is_some()),
        ("start", args.start.is_some()),
        ("end", args.end.is_some()),
        ("from", args.from.is_some()),
        ("to", args.to.is_some() && !diff),
        ("pattern", args.pattern.is_some()),
        ("context", args.context.is_some()),
        ("max_matches", args.max_matches.is_some()),
        ("ignore_case", args.ignore_case.is_some()),
        ("query", args.query.is_some()),
        ("offset", args.offset.is_some()),
        ("length", args.length.is_some()),
        ("force", args.force.is_some()),
        ("version", args.version.is_some() && !diff),
        ("against", args.against.is_some() && !diff),
        ("cursor", args.cursor.is_some() && !diff),
    ]
    .into_iter()
    .filter(|(_, given)| *given)
    .map(|(field, _)| field)
    .collect();
    if unused.is_empty() {
        return Ok(());
    }
    let takes = if diff {
        "mode=diff takes `version`, `against`, `to`, `cursor`, `max_chars`"
    } else {
        "mode=history takes only `name`"
    };
    Err(Failure::arguments(
        READ,
        format!(
            "`{}` does not apply to mode={} ({takes})",
            unused.join("`, `"),
            mode_str(mode)
        ),
    ))
}

fn lease(pad: &Scratchpad, args: LeaseArgs) -> Result<CallToolResult, Failure> {
    let ttl = match args.ttl.as_deref() {
        None => DEFAULT_LEASE_TTL,
        Some(text) => Ttl::parse_lease(text)
            .map_err(|err| Failure::arguments(LEASE, format!("`ttl`: {}", err.render(&Mcp))))?,
    };
    let token = |action: &str| {
        args.token.ok_or_else(|| {
            Failure::arguments(
                LEASE,
                format!("action={action} needs `token`, the one acquire returned"),
            )
        })
    };
    let name = &args.name;
    // Who acquires, and who must hold a lease to renew or release it: the client unless it says.
    let holder = args
        .holder
        .as_deref()
        .or(pad.author())
        .unwrap_or("an unnamed client");
    let (lease, verb) = match args.action {
        LeaseAction::Show => match pad.lease(name)? {
            Some(lease) => (lease, "Lease on"),
            None => {
                return Ok(render::no_lease_result(name, pad.session()));
            }
        },
        LeaseAction::Acquire => (
            pad.acquire_lease(name, holder, ttl)?,
            "Acquired the lease on",
        ),
        LeaseAction::Renew => (
            pad.renew_lease(name, token("renew")?, holder, ttl)?,
            "Renewed the lease on",
        ),
        LeaseAction::Release => (
            pad.release_lease(name, token("release")?, holder)?,
            "Released the lease on",
        ),
    };
    Ok(render::lease_result(&lease, verb))
}

/// The entry and the read that `scratchpad_read` arguments ask for, or the message the tool
/// would answer with.
pub fn parse_read_call(arguments: JsonObject) -> Result<(String, ReadMode), String> {
    let args: ReadArgs = parse(READ, arguments).map_err(Failure::message)?;
    let mode = read_mode(&args).map_err(Failure::message)?;
    Ok((args.name, mode))
}

/// The read the arguments ask for; a missing argument is named together with the mode that needs it.
fn read_mode(args: &ReadArgs) -> Result<ReadMode, Failure> {
    let mode = args.mode.unwrap_or(ReadModeName::Full);
    let need = |value: Option<u64>, field: &str, example: &str| {
        value.ok_or_else(|| {
            Failure::arguments(
                READ,
                format!("mode={} needs `{field}`, e.g. {example}", mode_str(mode)),
            )
        })
    };
    let unused: Vec<&str> = [
        (
            "n",
            args.n.is_some(),
            matches!(mode, ReadModeName::Head | ReadModeName::Tail),
        ),
        ("start", args.start.is_some(), mode == ReadModeName::Range),
        ("end", args.end.is_some(), mode == ReadModeName::Range),
        (
            "from",
            args.from.is_some(),
            matches!(
                mode,
                ReadModeName::Lines | ReadModeName::Grep | ReadModeName::Summary
            ),
        ),
        ("to", args.to.is_some(), mode == ReadModeName::Lines),
        (
            "pattern",
            args.pattern.is_some(),
            mode == ReadModeName::Grep,
        ),
        (
            "context",
            args.context.is_some(),
            mode == ReadModeName::Grep,
        ),
        (
            "max_matches",
            args.max_matches.is_some(),
            mode == ReadModeName::Grep,
        ),
        (
            "ignore_case",
            args.ignore_case.is_some(),
            mode == ReadModeName::Grep,
        ),
        ("query", args.query.is_some(), mode == ReadModeName::Json),
        ("offset", args.offset.is_some(), mode == ReadModeName::Bytes),
        ("length", args.length.is_some(), mode == ReadModeName::Bytes),
        ("force", args.force.is_some(), mode == ReadModeName::Full),
        (
            "against",
            args.against.is_some(),
            mode == ReadModeName::Diff,
        ),
        ("cursor", args.cursor.is_some(), mode == ReadModeName::Diff),
    ]
    .into_iter()
    .filter(|(_, given, applies)| *given && !applies)
    .map(|(field, _, _)| field)
    .collect();
    if !unused.is_empty() {
        let takes: &[&str] = match mode {
            ReadModeName::Head | ReadModeName::Tail => &["n"],
            ReadModeName::Range => &["start", "end"],
            ReadModeName::Lines => &["from", "to"],
            ReadModeName::Grep => &["pattern", "context", "max_matches", "ignore_case"],
            ReadModeName::Json => &["query"],
            ReadModeName::Bytes => &["offset", "length"],
            ReadModeName::Full => &["force"],
            ReadModeName::Summary => &["from"],
            ReadModeName::History => &[],
            ReadModeName::Diff => &["version", "against", "to", "cursor"],
        };
        let hint = if args.mode.is_none() {
            " (no mode was given, so it defaulted to full; set mode)".to_owned()
        } else {
            format!(" (mode={} takes `{}`)", mode_str(mode), takes.join("`, `"))
        };
        return Err(Failure::arguments(
            READ,
            format!(
                "`{}` does not apply to mode={}{hint}",
                unused.join("`, `"),
                mode_str(mode)
            ),
        ));
    }
    Ok(match mode {
        ReadModeName::Head => ReadMode::Head { n: args.n },
        ReadModeName::Tail => ReadMode::Tail { n: args.n },
        ReadModeName::Range => ReadMode::Range {
            start: need(args.start, "start", "start=0, end=2000")?,
            end: args.end,
        },
        ReadModeName::Lines => ReadMode::Lines {
            from: need(args.from, "from", "from=1, to=50")?,
            to: args.to,
        },
        ReadModeName::Grep => ReadMode::Grep {
            pattern: args.pattern.clone().ok_or_else(|| {
                Failure::arguments(
                    READ,
                    "mode=grep needs `pattern`, a regular expression such as \"ERROR|FAIL\"",
                )
            })?,
            context: args.context.unwrap_or(0),
            max_matches: args.max_matches,
            ignore_case: args.ignore_case.unwrap_or(false),
            from: args.from,
        },
        ReadModeName::Json => ReadMode::Json {
            query: args.query.clone().ok_or_else(|| {
                Failure::arguments(
                    READ,
                    "mode=json needs `query`, a jq expression such as \"keys\" or \".items[0]\"",
                )
            })?,
        },
        ReadModeName::Bytes => ReadMode::Bytes {
            offset: args.offset.unwrap_or(0),
            length: args.length,
        },
        ReadModeName::Full => ReadMode::Full {
            force: args.force.unwrap_or(false),
        },
        ReadModeName::Summary => ReadMode::Summary { from: args.from },
        ReadModeName::History | ReadModeName::Diff => {
            return Err(Failure::arguments(
                READ,
                format!("mode={} reads no content", mode_str(mode)),
            ));
        }
    })
}

fn mode_str(mode: ReadModeName) -> &'static str {
    match mode {
        ReadModeName::Head => "head",
        ReadModeName::Tail => "tail",
        ReadModeName::Range => "range",
        ReadModeName::Lines => "lines",
        ReadModeName::Grep => "grep",
        ReadModeName::Json => "json",
        ReadModeName::Bytes => "bytes",
        ReadModeName::Full => "full",
        ReadModeName::Summary => "summary",
        ReadModeName::History => "history",
        ReadModeName::Diff => "diff",
    }
}

fn edit(pad: &Scratchpad, args: EditArgs) -> Result<CallToolResult, Failure> {
    let pad = pad.with_lease(args.lease);
    if let Some(after_line) = args.after_line {
        let (None, None, false, Some(new)) = (args.restore, args.old, args.replace_all, args.new)
        else {
            return Err(Failure::arguments(
                EDIT,
                "`after_line` inserts `new` as lines after that line and takes no `old`, \
                 `replace_all` or `restore`",
            ));
        };
        let info = pad.insert(&args.name, after_line, &new, args.if_version)?;
        return Ok(render::entry_result(
            format!(
                "Inserted {} after line {after_line} of `{}`; now version {} ({}).",
                counted(new.lines().count().max(1) as u64, "line", "lines"),
                info.name,
                info.version,
                counted(info.lines, "line", "lines")
            ),
            &info,
        ));
    }
    let (old, new) = match (args.restore, args.old, args.new) {
        (Some(version), None, None) if !args.replace_all => {
            let info = pad.restore(&args.name, version, args.if_version)?;
            return Ok(render::entry_result(
                format!(
                    "Restored `{}` to the content of version {version}; now version {} ({}).",
                    info.name,
                    info.version,
                    counted(info.chars, "char", "chars")
                ),
                &info,
            ));
        }
        (Some(_), _, _) => {
            return Err(Failure::arguments(
                EDIT,
                "`restore` makes an older version current again and takes no `old`, `new` or `replace_all`",
            ));
        }
        (None, Some(old), Some(new)) => (old, new),
        (None, _, _) => {
            return Err(Failure::arguments(
                EDIT,
                "give `old` (the exact text to replace) and `new`, or `restore` with a version number",
            ));
        }
    };
    let outcome = pad.edit(&args.name, &old, &new, args.replace_all, args.if_version)?;
    let info = &outcome.entry;
    Ok(render::entry_result(
        format!(
            "Edited `{}`: {}; now version {} ({}).",
            info.name,
            counted(outcome.replacements as u64, "replacement", "replacements"),
            info.version,
            counted(info.chars, "char", "chars")
        ),
        info,
    ))
}

/// `scratchpad_delete`: remove (a note stays restorable), purge, or undo a removal.
fn delete(pad: &Scratchpad, args: DeleteArgs) -> Result<CallToolResult, Failure> {
    let pad = pad.with_lease(args.lease);
    let undo = args.undo.unwrap_or(false);
    let purge = args.purge.unwrap_or(false);
    if !undo && args.new_name.is_some() {
        return Err(Failure::arguments(
            DELETE,
            "`new_name` goes with `undo=true`, which brings back a removed note",
        ));
    }
    match (undo, purge) {
        (true, true) => Err(Failure::arguments(
            DELETE,
            "give `undo` (bring a removed note back) or `purge` (delete it for good), not both",
        )),
        (true, false) => {
            // The last version comes back with the others as its history: an older one is then
            // one `scratchpad_edit(restore=N)` away, so no argument here is spent on it.
            let info = pad.restore_removed(&args.name, None, args.new_name.as_deref())?;
            Ok(render::restored_result(&info))
        }
        (false, true) => Ok(render::purged_result(
            &pad.purge(&args.name, args.if_version)?,
        )),
        (false, false) => Ok(render::removed_result(
            &pad.delete(&args.name, args.if_version)?,
        )),
    }
}

fn list(pad: &Scratchpad, args: ListArgs) -> Result<CallToolResult, Failure> {
    let limit = args.limit.unwrap_or(DEFAULT_LIST_LIMIT);
    if limit == 0 || limit > MAX_LIST_LIMIT {
        return Err(Failure::arguments(
            LIST,
            format!("limit must be between 1 and {MAX_LIST_LIMIT} (got {limit})"),
        ));
    }
    if args.removed == Some(true) {
        return Ok(render::removed_list_result(
            &pad.removed(limit)?,
            pad.session(),
        ));
    }
    let filter = ListFilter {
        kind: args.kind.map(|kind| match kind {
            KindName::Text => Kind::Text,
            KindName::Json => Kind::Json,
            KindName::Binary => Kind::Binary,
        }),
        prefix: args.prefix,
        tool: args.tool,
        pinned: args.pinned,
        turn: args.turn,
        author: None,
    };
    let page = pad.list(&filter, args.cursor.as_deref(), limit)?;
    let stats = pad.stats()?;
    Ok(render::list_result(&page, &stats, pad.session()))
}

fn search(pad: &Scratchpad, args: SearchArgs) -> Result<CallToolResult, Failure> {
    let limit = args.limit.unwrap_or(DEFAULT_SEARCH_LIMIT);
    if limit == 0 || limit > MAX_SEARCH_LIMIT {
        return Err(Failure::arguments(
            SEARCH,
            format!("limit must be between 1 and {MAX_SEARCH_LIMIT} (got {limit})"),
        ));
    }
    if args.query.trim().is_empty() {
        return Err(Failure::arguments(
            SEARCH,
            "query is empty; give one or more words to look for (scratchpad_list shows every entry)",
        ));
    }
    let hits = pad.search(&args.query, limit)?;
    Ok(render::search_result(&args.query, &hits, pad.session()))
}

fn tool<A: JsonSchema + 'static, O: JsonSchema + 'static>(
    name: &'static str,
    description: &'static str,
    annotations: ToolAnnotations,
) -> Tool {
    Tool::new(name, description, schema::input::<A>())
        .with_raw_output_schema(schema_for_output::<O>())
        .with_annotations(annotations)
}

fn annotations(read_only: bool, destructive: bool, idempotent: bool) -> ToolAnnotations {
    let mut annotations = ToolAnnotations::default();
    annotations.read_only_hint = Some(read_only);
    annotations.destructive_hint = Some(destructive);
    annotations.idempotent_hint = Some(idempotent);
    annotations.open_world_hint = Some(false);
    annotations
}

/// What a model reads of the tool definitions on every turn: each tool's name, description and input
/// schema, as JSON (output schemas and annotations are for the client).
pub fn definitions_as_seen() -> String {
    let seen: Vec<_> = definitions()
        .into_iter()
        .map(|tool| {
            serde_json::json!({
                "name": tool.name,
                "description": tool.description,
                "inputSchema": tool.input_schema,
            })
        })
        .collect();
    serde_json::Value::Array(seen).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tool's definition is paid for on every turn: all of them fit 5,000 characters.
    #[test]
    fn tool_definitions_fit_their_budget() {
        let seen = definitions_as_seen();
        assert!(
            seen.chars().count() <= 5_000,
            "{} characters: {seen}",
            seen.chars().count()
        );
    }

    #[test]
    fn a_misspelt_argument_is_named_with_the_right_one() {
        let args = serde_json::json!({"name": "log", "mode": "grep", "patern": "ERROR"});
        let serde_json::Value::Object(args) = args else {
            unreachable!()
        };
        let Err(failure) = parse::<ReadArgs>(READ, args) else {
            panic!("a misspelt argument was accepted")
        };
        let message = failure.message();
        assert!(
            message.contains("unknown argument `patern`: did you mean `pattern`?"),
            "{message}"
        );
        assert!(message.contains("`max_chars`"), "{message}");
    }

    #[test]
    fn a_foreign_argument_gets_no_guess() {
        let args = serde_json::json!({"name": "log", "colour": "red"});
        let serde_json::Value::Object(args) = args else {
            unreachable!()
        };
        let Err(failure) = parse::<PinArgs>(PIN, args) else {
            panic!("an unknown argument was accepted")
        };
        let message = failure.message();
        assert!(
            message.contains("unknown argument `colour`. It takes `"),
            "{message}"
        );
        assert!(!message.contains("did you mean"), "{message}");
    }

    #[test]
    fn every_tool_takes_its_entry_as_name_or_ref() {
        for tool in definitions() {
            let properties = tool.input_schema["properties"].as_object().cloned();
            let properties = properties.unwrap_or_default();
            if [LIST, SEARCH].contains(&tool.name.as_ref()) {
                continue; // these name no entry
            }
            assert!(properties.contains_key("name"), "{}", tool.name);
            assert!(!properties.contains_key("ref"), "{}", tool.name);
        }
        let with_ref = serde_json::json!({"ref": "log", "mode": "tail"});
        let serde_json::Value::Object(with_ref) = with_ref else {
            unreachable!()
        };
        let (name, _) = parse_read_call(with_ref).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(name, "log");
    }
}
