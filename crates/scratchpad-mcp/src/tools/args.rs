//! The arguments of each scratchpad tool. The doc comments become the JSON Schema descriptions a model
//! reads, so they say what a field is for and what its limits are.

use schemars::JsonSchema;
use serde::Deserialize;

/// `scratchpad_write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    /// Name of the note or value, e.g. `plan`, `findings`, `decision-db`. Letters, digits, `.`, `_`, `-`;
    /// starts with a letter or digit; at most 128 characters.
    pub name: String,
    /// The text to store. Any size: large values are stored whole and you get a preview back.
    pub content: String,
    /// `overwrite` (default) replaces the entry or creates it; `append` adds `content` at the end.
    #[serde(default)]
    pub mode: WriteMode,
    /// Only write if the entry is at this version (the version returned by your last write or read);
    /// protects a note that another agent may have changed. Omit to write unconditionally.
    pub if_version: Option<u64>,
    /// How long to keep it: `never` (default for notes), or a duration such as `30m`, `24h`, `7d`.
    pub ttl: Option<String>,
    /// Pin it: never expires and is never evicted when the store is full.
    pub pin: Option<bool>,
}

/// How `scratchpad_write` treats an existing entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WriteMode {
    #[default]
    Overwrite,
    Append,
}

/// `scratchpad_read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The entry's name or id, as shown by a reference, `scratchpad_list` or `scratchpad_search`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// What to read. `grep`: lines matching a regex, with line numbers and context (best for logs:
    /// errors, ids, keys). `lines`: a numbered line range `from`..`to`. `tail`/`head`: the last/first `n`
    /// characters. `range`: characters `start`..`end`. `json`: a jq query (`.items[0].id`, `keys`,
    /// `.[] | select(.status=="failed")`). `bytes`: base64 of a binary entry. `full`: the whole entry,
    /// refused for large entries unless `force`. `summary`: the forms its lines take, with counts,
    /// most severe first. Default: `full`.
    pub mode: Option<ReadModeName>,
    /// head/tail: number of characters (default 2000).
    pub n: Option<u64>,
    /// range: first character (0-based).
    pub start: Option<u64>,
    /// range: end character, exclusive (default: the end of the entry).
    pub end: Option<u64>,
    /// lines: first line (1-based); grep: line to start searching at; summary: first template.
    pub from: Option<u64>,
    /// lines: last line, inclusive (default: as many as fit the reply budget).
    pub to: Option<u64>,
    /// grep: a regular expression (Rust regex syntax, e.g. `ERROR|FATAL`, `user_id=\d+`).
    pub pattern: Option<String>,
    /// grep: lines of context before and after each match (default 0).
    pub context: Option<u64>,
    /// grep: matching lines to show at most (default 100); the total count is always reported.
    pub max_matches: Option<u64>,
    /// grep: match case-insensitively.
    pub ignore_case: Option<bool>,
    /// json: the jq query.
    pub query: Option<String>,
    /// bytes: first byte.
    pub offset: Option<u64>,
    /// bytes: how many bytes (default 3000).
    pub length: Option<u64>,
    /// full: read an entry larger than the full-read guard anyway.
    pub force: Option<bool>,
    /// Largest reply in characters (default 8000). A cut reply ends with the exact call that continues it.
    pub max_chars: Option<u64>,
}

/// The read modes, as a model names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReadModeName {
    Head,
    Tail,
    Range,
    Lines,
    Grep,
    Json,
    Bytes,
    Full,
    Summary,
}

/// `scratchpad_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// The note to change.
    pub name: String,
    /// The exact text to replace (copy it from a read: whitespace and line breaks count). It must occur
    /// exactly once unless `replace_all`.
    pub old: String,
    /// The text to put in its place (may be empty to delete `old`).
    pub new: String,
    /// Replace every occurrence of `old`.
    #[serde(default)]
    pub replace_all: bool,
    /// Only edit if the note is at this version.
    pub if_version: Option<u64>,
}

/// `scratchpad_list`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Only entries of this kind.
    pub kind: Option<KindName>,
    /// Only names starting with this text.
    pub prefix: Option<String>,
    /// Only outputs of this tool (e.g. `read_file`).
    pub tool: Option<String>,
    /// Only pinned (true) or unpinned (false) entries.
    pub pinned: Option<bool>,
    /// Only entries tagged with this turn.
    pub turn: Option<String>,
    /// Entries per page (default 50, at most 500).
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Entry kinds, as a model names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum KindName {
    Text,
    Json,
    Binary,
}

/// `scratchpad_delete`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteArgs {
    /// The entry's name or id.
    pub name: String,
    /// Only delete if the entry is at this version.
    pub if_version: Option<u64>,
}

/// `scratchpad_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words to look for (full-text, ranked). Searches names, notes, and the start and end of large
    /// outputs; to search inside one large output use `scratchpad_read` with mode `grep`.
    pub query: String,
    /// Hits to return (default 10, at most 100).
    pub limit: Option<usize>,
}

/// `scratchpad_pin`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinArgs {
    /// The entry's name or id.
    pub name: String,
    /// `true` (default) keeps it forever and protects it from eviction; `false` unpins it.
    #[serde(default = "yes")]
    pub pinned: bool,
    /// Only change it if the entry is at this version.
    pub if_version: Option<u64>,
}

/// `scratchpad_rename`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameArgs {
    /// The entry's current name or id.
    pub name: String,
    /// The new name (same rule as for writes). Renaming an automatic output such as `read_file_3` keeps
    /// it beyond its 24 h lifetime.
    pub new_name: String,
    /// Only rename if the entry is at this version.
    pub if_version: Option<u64>,
}

fn yes() -> bool {
    true
}
