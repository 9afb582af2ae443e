//! How the scratchpad's MCP tools spell the engine's calls: as tool calls with their JSON
//! arguments, e.g. `scratchpad_read(name="log", mode="lines", from=1, to=100)`. The arguments are
//! the same object a client sends, so a continuation can be passed back as it is.
//!
//! Kept apart from the MCP server so that a face which only speaks to a model in these terms (the
//! Python package renders references for harnesses that give the model the scratchpad tools) does
//! not link an MCP server, an HTTP stack and an async runtime to do it.

use scratchpad_core::diff::DiffCall;
use scratchpad_core::{Arg, ArgName, ArgValue, Call, ReadMode, Speak};
use serde_json::{Map, Value, json};

/// The JSON object of a tool call's arguments.
pub type JsonObject = Map<String, Value>;

pub const WRITE: &str = "scratchpad_write";
pub const READ: &str = "scratchpad_read";
pub const EDIT: &str = "scratchpad_edit";
pub const LIST: &str = "scratchpad_list";
pub const DELETE: &str = "scratchpad_delete";
pub const SEARCH: &str = "scratchpad_search";
pub const PIN: &str = "scratchpad_pin";
pub const RENAME: &str = "scratchpad_rename";
pub const LEASE: &str = "scratchpad_lease";

/// The MCP spelling of calls and arguments.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mcp;

/// The arguments of the `scratchpad_read` call that performs `mode` on `name`: the inverse of
/// what the tool makes of its arguments.
pub fn read_arguments(name: &str, mode: &ReadMode) -> JsonObject {
    read_pairs(name, mode)
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

/// The same arguments in the order a reader expects them: the entry, the mode, then its fields.
fn read_pairs(name: &str, mode: &ReadMode) -> Vec<(&'static str, Value)> {
    let mut pairs = vec![("name", json!(name)), ("mode", json!(mode.name()))];
    let mut put = |key: &'static str, value: Option<Value>| pairs.extend(value.map(|v| (key, v)));
    match mode {
        ReadMode::Head { n } | ReadMode::Tail { n } => put("n", n.map(Value::from)),
        ReadMode::Range { start, end } => {
            put("start", Some(json!(start)));
            put("end", end.map(Value::from));
        }
        ReadMode::Lines { from, to } => {
            put("from", Some(json!(from)));
            put("to", to.map(Value::from));
        }
        ReadMode::Grep {
            pattern,
            context,
            max_matches,
            ignore_case,
            from,
        } => {
            put("pattern", Some(json!(pattern)));
            put("context", (*context > 0).then(|| json!(context)));
            put("ignore_case", ignore_case.then(|| json!(true)));
            put("max_matches", max_matches.map(Value::from));
            put("from", from.map(Value::from));
        }
        ReadMode::Json { query } => put("query", Some(json!(query))),
        ReadMode::Bytes { offset, length } => {
            put("offset", Some(json!(offset)));
            put("length", length.map(Value::from));
        }
        ReadMode::Full { force } => put("force", force.then(|| json!(true))),
        ReadMode::Summary { from } => put("from", from.map(Value::from)),
    }
    pairs
}

/// The arguments of the `scratchpad_read` call that performs `mode` on version `version`.
pub fn read_version_arguments(name: &str, version: u64, mode: &ReadMode) -> JsonObject {
    version_pairs(name, version, mode)
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

fn version_pairs(name: &str, version: u64, mode: &ReadMode) -> Vec<(&'static str, Value)> {
    let mut pairs = read_pairs(name, mode);
    pairs.insert(1, ("version", json!(version)));
    pairs
}

/// The arguments of the `scratchpad_read` call (mode=diff) that compares what `diff` names.
pub fn diff_arguments(diff: &DiffCall) -> JsonObject {
    diff_pairs(diff)
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

fn diff_pairs(diff: &DiffCall) -> Vec<(&'static str, Value)> {
    let mut pairs = vec![("name", json!(diff.a.name)), ("mode", json!("diff"))];
    if let Some(version) = diff.a.version {
        pairs.push(("version", json!(version)));
    }
    if diff.b.name != diff.a.name {
        pairs.push(("against", json!(diff.b.name)));
    }
    if let Some(to) = diff.b.version {
        pairs.push(("to", json!(to)));
    }
    if let Some(cursor) = diff.cursor {
        pairs.push(("cursor", json!(cursor.to_string())));
    }
    pairs
}

/// The arguments of a call, for a client to send as they are: continuations.
pub fn call_arguments(call: &Call) -> Option<JsonObject> {
    match call {
        Call::Read { name, mode } => Some(read_arguments(name, mode)),
        Call::ReadVersion {
            name,
            version,
            mode,
        } => Some(read_version_arguments(name, *version, mode)),
        Call::Diff(diff) => Some(diff_arguments(diff)),
        Call::List
        | Call::History { .. }
        | Call::Lease { .. }
        | Call::AcquireLease { .. }
        | Call::Check
        | Call::RestoreRemoved { .. }
        | Call::Purge { .. }
        | Call::ListRemoved => None,
    }
}

/// `tool(key=value, …)` with every value in JSON.
fn spell(tool: &str, pairs: &[(&str, Value)]) -> String {
    let args: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{tool}({})", args.join(", "))
}

impl Speak for Mcp {
    fn call(&self, call: &Call) -> String {
        match call {
            Call::Read { name, mode } => spell(READ, &read_pairs(name, mode)),
            Call::ReadVersion {
                name,
                version,
                mode,
            } => spell(READ, &version_pairs(name, *version, mode)),
            Call::List => spell(LIST, &[]),
            Call::History { name } => {
                spell(READ, &[("name", json!(name)), ("mode", json!("history"))])
            }
            Call::Lease { name } => {
                spell(LEASE, &[("name", json!(name)), ("action", json!("show"))])
            }
            Call::AcquireLease { name } => spell(
                LEASE,
                &[("name", json!(name)), ("action", json!("acquire"))],
            ),
            Call::Diff(diff) => spell(READ, &diff_pairs(diff)),
            // No tool checks the store: the person who runs it does, with the CLI.
            Call::Check => {
                "`scratchpad check` (a command for the person who runs this server)".to_owned()
            }
            Call::RestoreRemoved { name, as_name } => {
                let mut pairs = vec![("name", json!(name)), ("undo", json!(true))];
                if let Some(as_name) = as_name {
                    pairs.push(("new_name", json!(as_name)));
                }
                spell(DELETE, &pairs)
            }
            Call::Purge { name } => spell(DELETE, &[("name", json!(name)), ("purge", json!(true))]),
            Call::ListRemoved => spell(LIST, &[("removed", json!(true))]),
        }
    }

    fn arg(&self, arg: Arg) -> String {
        let name = match arg.name {
            ArgName::Force => "force",
            ArgName::ReplaceAll => "replace_all",
            ArgName::IfVersion => "if_version",
            ArgName::MaxMatches => "max_matches",
            ArgName::FromLine => "from",
            ArgName::Lease => "lease",
        };
        match arg.value {
            ArgValue::On => format!("{name}=true"),
            ArgValue::Number(n) => format!("{name}={n}"),
            ArgValue::Bare => name.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scratchpad_core::error::{foreign_spelling, one_of_each};

    /// The one command an MCP message names on purpose: checking the store has no tool.
    const CHECK_COMMAND: &str = "`scratchpad check`";

    #[test]
    fn every_error_kind_speaks_in_tool_calls() {
        for error in one_of_each() {
            let message = error.render(&Mcp);
            assert_eq!(
                foreign_spelling("mcp", &message, &[CHECK_COMMAND]),
                None,
                "{message}"
            );
        }
    }

    #[test]
    fn suggested_calls_are_spelled_as_tool_calls() {
        let all = one_of_each();
        let message = all
            .iter()
            .map(|error| error.render(&Mcp))
            .collect::<Vec<_>>()
            .join("\n");
        for tool in [READ, LIST, LEASE, DELETE] {
            assert!(
                message.contains(&format!("`{tool}(")),
                "{tool} in {message}"
            );
        }
    }
}
