//! The arguments of each scratchpad tool. The doc comments become the JSON Schema descriptions a model
//! reads on every turn, so a field has one only where its name and type do not already say it; the
//! tool's description carries the rest. Every tool names its entry `name` and also takes `ref`.

use schemars::JsonSchema;
use serde::Deserialize;

/// `scratchpad_write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    /// e.g. `plan`, `findings`: letters, digits, `.` `_` `-`.
    #[serde(alias = "ref")]
    pub name: String,
    pub content: String,
    /// `append` adds to the end.
    #[serde(default)]
    pub mode: WriteMode,
    pub if_version: Option<u64>,
    /// `never` (notes' default) or e.g. `30m`, `7d`.
    pub ttl: Option<String>,
    /// Never expires, never evicted.
    pub pin: Option<bool>,
    pub lease: Option<u64>,
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
    #[serde(alias = "ref")]
    pub name: String,
    /// grep: regex `pattern` with `context` lines; lines: `from`-`to`; head/tail: `n` lines; range:
    /// chars `start`-`end`; json: jq `query`; bytes: base64 from `offset`; summary: line templates with
    /// counts; full (default): all, large ones only with `force`; history: versions; diff: `version`
    /// (default previous) vs `against` at `to` (default this, current), on at `cursor`. Any mode
    /// reads an old `version`.
    pub mode: Option<ReadModeName>,
    pub version: Option<u64>,
    pub against: Option<String>,
    pub n: Option<u64>,
    pub start: Option<u64>,
    pub end: Option<u64>,
    /// lines: first line (1-based); grep/summary: where to start.
    pub from: Option<u64>,
    pub to: Option<u64>,
    /// Rust regex, e.g. `ERROR|FATAL`.
    pub pattern: Option<String>,
    pub context: Option<u64>,
    /// Default 100; the total is always counted.
    pub max_matches: Option<u64>,
    pub ignore_case: Option<bool>,
    /// e.g. `.items[0].id`, `keys`.
    pub query: Option<String>,
    pub offset: Option<u64>,
    pub length: Option<u64>,
    pub force: Option<bool>,
    /// Default 8000.
    pub max_chars: Option<u64>,
    pub cursor: Option<String>,
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
    History,
    Diff,
}

/// `scratchpad_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    #[serde(alias = "ref")]
    pub name: String,
    /// Exact text, whitespace included; must occur once unless `replace_all`.
    pub old: Option<String>,
    pub new: Option<String>,
    #[serde(default)]
    pub replace_all: bool,
    pub if_version: Option<u64>,
    pub lease: Option<u64>,
    pub restore: Option<u64>,
    // Inserts `new` as lines after this line (0: at the top); no doc comment, which would land in
    // the schema every turn pays for (the tool's description names it).
    pub after_line: Option<u64>,
}

/// `scratchpad_list`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    pub kind: Option<KindName>,
    /// Names starting with this.
    pub prefix: Option<String>,
    /// Outputs of this tool.
    pub tool: Option<String>,
    pub pinned: Option<bool>,
    pub turn: Option<String>,
    /// Default 50, at most 500.
    pub limit: Option<usize>,
    // The output's `next_cursor` says what to pass (no doc comment: the schema is paid every turn).
    pub cursor: Option<String>,
    pub removed: Option<bool>,
}

// Entry kinds, as a model names them (no doc comment: it would land in the schema).
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
    #[serde(alias = "ref")]
    pub name: String,
    pub if_version: Option<u64>,
    pub lease: Option<u64>,
    // No doc comments below: the tool's description says what each does, once.
    pub purge: Option<bool>,
    pub undo: Option<bool>,
    pub new_name: Option<String>,
}

/// `scratchpad_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words to look for.
    pub query: String,
    /// Default 10, at most 100.
    pub limit: Option<usize>,
}

/// `scratchpad_pin`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinArgs {
    #[serde(alias = "ref")]
    pub name: String,
    /// `false` unpins.
    #[serde(default = "yes")]
    pub pinned: bool,
    pub if_version: Option<u64>,
    pub lease: Option<u64>,
}

/// `scratchpad_rename`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameArgs {
    #[serde(alias = "ref")]
    pub name: String,
    pub new_name: String,
    pub if_version: Option<u64>,
    pub lease: Option<u64>,
}

/// `scratchpad_lease`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeaseArgs {
    #[serde(alias = "ref")]
    pub name: String,
    #[serde(default)]
    pub action: LeaseAction,
    pub ttl: Option<String>,
    pub token: Option<u64>,
    pub holder: Option<String>,
}

// What `scratchpad_lease` does (no doc comment: it would land in the schema).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LeaseAction {
    #[default]
    Show,
    Acquire,
    Renew,
    Release,
}

fn yes() -> bool {
    true
}
