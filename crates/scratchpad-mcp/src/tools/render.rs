//! How tool results look: a text rendering for the model, and structured content for programs. The
//! structured content of a read carries the reply's bounds, not the slice again, so a client that shows
//! both to a model does not pay for the slice twice.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Resource};
use schemars::JsonSchema;
use scratchpad_core::figures::{counted, span, thousands, utc_time};
use scratchpad_core::{
    DiffReply, EntryInfo, History, Kind, Lease, Page, Purged, ReadReply, Removed, RemovedEntry,
    RemovedHistory, SearchHit, Speak, Stats, VersionInfo,
};
use serde::Serialize;

use super::{Mcp, call_arguments};

/// What the tools say about one entry.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EntrySummary {
    /// Name, unique in the session.
    pub name: String,
    /// Short id, accepted wherever a name is.
    pub id: String,
    /// `text`, `json` or `binary`.
    pub kind: String,
    /// Bumps on every change; pass it as `if_version` to write safely.
    pub version: u64,
    pub bytes: u64,
    pub chars: u64,
    pub lines: u64,
    /// Estimated tokens of the whole content.
    pub tokens_est: u64,
    pub pinned: bool,
    /// Unix milliseconds; absent when it never expires.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    /// Unix milliseconds of the last change.
    pub updated_at: i64,
    /// The tool whose output this is, for automatic outputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Who wrote the current version, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// The entry as an MCP resource.
    pub uri: String,
}

impl From<&EntryInfo> for EntrySummary {
    fn from(info: &EntryInfo) -> Self {
        Self {
            name: info.name.clone(),
            id: info.id.clone(),
            kind: info.kind.as_str().to_owned(),
            version: info.version,
            bytes: info.bytes,
            chars: info.chars,
            lines: info.lines,
            tokens_est: info.tokens_est(),
            pinned: info.pinned,
            expires_at: info.expires_at,
            updated_at: info.updated_at,
            tool: info.source.tool.clone(),
            author: info.author.clone(),
            uri: entry_uri(&info.session, &info.name),
        }
    }
}

/// The bounds of a read reply (the slice itself is the text content).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadOutput {
    pub name: String,
    pub kind: String,
    /// Which part of the entry the reply covers, e.g. "lines 10–20 of 5,000".
    pub location: String,
    /// True when the reply budget cut it short.
    pub truncated: bool,
    /// The exact call that reads on, when cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
    /// The arguments of that `scratchpad_read` call, to send as they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continuation_arguments: Option<JsonObject>,
    /// grep: matching lines in the whole entry, shown or not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_matches: Option<u64>,
    /// Clamping and other remarks.
    pub notes: Vec<String>,
    /// The version read, when an older one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// mode=history: the versions, newest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub versions: Option<Vec<VersionOutput>>,
    /// mode=diff: lines added and removed in the hunks shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub added: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<u64>,
}

/// One version of an entry.
#[derive(Debug, Serialize, JsonSchema)]
pub struct VersionOutput {
    pub version: u64,
    pub bytes: u64,
    pub lines: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Unix milliseconds.
    pub written_at: i64,
    /// What the change that made it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
}

/// A lease on a name.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LeaseOutput {
    pub name: String,
    /// `held`, `expired`, `released`, or `none` when nobody ever acquired it.
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// The fencing token of the latest claim; pass it as `lease` with your writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<u64>,
    /// Unix milliseconds by the store's clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    /// Milliseconds left by the store's clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_in_ms: Option<i64>,
}

/// What `scratchpad_delete` did.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct DeleteOutput {
    pub name: String,
    /// Versions kept restorable (with `undo`); absent when nothing was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_versions: Option<u64>,
    /// Unix milliseconds when the kept versions go; absent when kept until purged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_until: Option<i64>,
    /// Versions deleted for good.
    pub versions_deleted: u64,
    pub bytes_freed: u64,
    /// The entry an `undo` brought back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restored: Option<EntrySummary>,
}

/// A removed note in `scratchpad_list(removed=true)`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RemovedSummary {
    pub name: String,
    /// Tells apart two removals of one name: pass it as `name` to `undo` the older one.
    pub id: String,
    pub versions: u64,
    pub bytes: u64,
    /// Unix milliseconds.
    pub removed_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed_by: Option<String>,
    /// Unix milliseconds; absent when kept until purged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_until: Option<i64>,
}

impl From<&RemovedEntry> for RemovedSummary {
    fn from(r: &RemovedEntry) -> Self {
        Self {
            name: r.name.clone(),
            id: r.id.clone(),
            versions: r.versions,
            bytes: r.bytes,
            removed_at: r.removed_at,
            removed_by: r.removed_by.clone(),
            kept_until: r.keep_until,
        }
    }
}

/// One page of `scratchpad_list`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListOutput {
    pub session: String,
    pub entries: Vec<EntrySummary>,
    /// Pass as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Entries in the whole session.
    pub total_entries: u64,
    /// Bytes stored for the whole session.
    pub total_bytes: u64,
    /// Estimated tokens the stored content would cost minus what its previews cost.
    pub tokens_kept_out: u64,
    /// With `removed=true`: the removed notes, most recently removed first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<RemovedSummary>>,
}

/// `scratchpad_search` hits, best first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchOutput {
    pub query: String,
    pub hits: Vec<SearchHitOutput>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchHitOutput {
    pub entry: EntrySummary,
    /// An excerpt with the matched words between « and ».
    pub snippet: String,
}

/// `scratchpad://SESSION/NAME`: where an entry lives as a resource.
pub fn entry_uri(session: &str, name: &str) -> String {
    format!("scratchpad://{session}/{name}")
}

/// A resource link to an entry, for results that stand in for its content.
pub fn resource_link(info: &EntryInfo) -> ContentBlock {
    ContentBlock::resource_link(resource(info))
}

/// An entry described as a resource.
pub fn resource(info: &EntryInfo) -> Resource {
    Resource::new(entry_uri(&info.session, &info.name), info.name.clone())
        .with_description(describe(info))
        .with_mime_type(info.mime_type())
        .with_size(info.bytes)
}

/// One line about an entry: kind, size, version, lifetime, origin.
fn describe(info: &EntryInfo) -> String {
    let mut text = format!(
        "{}, {}, {}, version {}",
        info.kind.as_str(),
        counted(info.bytes, "byte", "bytes"),
        counted(info.lines, "line", "lines"),
        info.version
    );
    if info.pinned {
        text.push_str(", pinned");
    } else if info.expires_at.is_some() {
        text.push_str(", expires");
    }
    if let Some(tool) = &info.source.tool {
        text.push_str(&format!(", output of {tool}"));
    }
    if let Some(author) = &info.author {
        text.push_str(&format!(", by {author}"));
    }
    text
}

pub fn entry_result(text: String, info: &EntryInfo) -> CallToolResult {
    structured(text, &EntrySummary::from(info))
}

pub fn read_result(reply: &ReadReply) -> CallToolResult {
    let output = ReadOutput {
        name: reply.name.clone(),
        kind: reply.kind.as_str().to_owned(),
        location: reply.location.clone(),
        truncated: reply.truncated,
        continuation: reply.next_call().map(|call| Mcp.call(&call)),
        continuation_arguments: reply.next_call().as_ref().and_then(call_arguments),
        total_matches: reply.total_matches,
        notes: reply.notes.clone(),
        version: reply.version,
        versions: None,
        added: None,
        removed: None,
    };
    structured(reply.render(&Mcp), &output)
}

/// An entry's versions, newest first, as many as `budget_chars` holds.
pub fn history_result(history: &History, budget_chars: usize) -> CallToolResult {
    let entry = &history.entry;
    let kept = history.versions.len() - 1;
    let mut text = format!(
        "`{}` is at version {}; {} kept{}.\n",
        entry.name,
        entry.version,
        counted(kept as u64, "older version", "older versions"),
        if history.keeps_history {
            ""
        } else {
            " (outputs of tools keep none)"
        }
    );
    for (listed, v) in history.versions.iter().enumerate() {
        let line = format!(
            "v{}{} {} by {}, {}, {}: {}\n",
            v.version,
            if v.version == entry.version {
                " (current)"
            } else {
                ""
            },
            utc_time(v.written_at),
            v.author.as_deref().unwrap_or("unknown"),
            counted(v.bytes, "byte", "bytes"),
            counted(v.lines, "line", "lines"),
            v.change
                .as_ref()
                .map_or_else(|| "-".to_owned(), ToString::to_string)
        );
        if listed > 0 && text.len() + line.len() > budget_chars {
            text.push_str(&format!(
                "… {} older not listed: read one with version=N.\n",
                counted(
                    (history.versions.len() - listed) as u64,
                    "version",
                    "versions"
                )
            ));
            break;
        }
        text.push_str(&line);
    }
    if kept > 0 {
        text.push_str(
            "Read one with version=N (any mode), compare with mode=diff, bring one back with \
             scratchpad_edit(restore=N).",
        );
    }
    let location = format!(
        "history: {}",
        counted(history.versions.len() as u64, "version", "versions")
    );
    let output = versions_output(&entry.name, entry.kind, location, &history.versions);
    structured(text.trim_end().to_owned(), &output)
}

pub fn diff_result(reply: &DiffReply) -> CallToolResult {
    let next = reply.next_call();
    let output = ReadOutput {
        name: reply.a.name.clone(),
        kind: reply.a.kind.as_str().to_owned(),
        location: reply.summary(),
        truncated: reply.truncated,
        continuation: next.as_ref().map(|call| Mcp.call(call)),
        continuation_arguments: next.as_ref().and_then(call_arguments),
        total_matches: None,
        notes: reply.notes.clone(),
        version: Some(reply.a.version),
        versions: None,
        added: Some(reply.added),
        removed: Some(reply.removed),
    };
    structured(reply.render(&Mcp), &output)
}

pub fn lease_result(lease: &Lease, verb: &str) -> CallToolResult {
    let state = lease.state();
    let mut text = format!("{verb} `{}`: ", lease.name);
    let holder = lease.holder.as_deref().unwrap_or("nobody");
    match state {
        scratchpad_core::LeaseState::Held => text.push_str(&format!(
            "token {}, held by {holder} until {} ({} by the store's clock).",
            lease.token,
            utc_time(lease.expires_at),
            span(lease.remaining_ms())
        )),
        scratchpad_core::LeaseState::Expired => text.push_str(&format!(
            "token {}, last held by {holder}, expired at {}; anyone may acquire it.",
            lease.token,
            utc_time(lease.expires_at)
        )),
        scratchpad_core::LeaseState::Released => text.push_str(&format!(
            "released by {holder} (latest token {}, which no write may carry now); anyone may \
             acquire it.",
            lease.token
        )),
    }
    if verb.starts_with("Acquired") || verb.starts_with("Renewed") {
        text.push_str(&format!(
            " Pass lease={} when writing `{}`; renew before it expires.",
            lease.token, lease.name
        ));
    }
    let output = LeaseOutput {
        name: lease.name.clone(),
        state: state.as_str().to_owned(),
        holder: lease.holder.clone(),
        token: Some(lease.token),
        expires_at: Some(lease.expires_at),
        expires_in_ms: Some(lease.remaining_ms()),
    };
    structured(text, &output)
}

pub fn no_lease_result(name: &str, session: &str) -> CallToolResult {
    let output = LeaseOutput {
        name: name.to_owned(),
        state: "none".to_owned(),
        holder: None,
        token: None,
        expires_at: None,
        expires_in_ms: None,
    };
    structured(
        format!("Nobody ever acquired a lease on `{name}` in session `{session}`."),
        &output,
    )
}

pub fn list_result(page: &Page, stats: &Stats, session: &str) -> CallToolResult {
    let mut text = if page.entries.is_empty() {
        format!("Session `{session}` has no entries matching that.\n")
    } else {
        format!(
            "{} in session `{session}`, newest first:\n",
            counted(page.entries.len() as u64, "entry", "entries")
        )
    };
    for info in &page.entries {
        text.push_str(&format!(
            "- {} ({}){}\n",
            info.name,
            describe(info),
            first_line(&info.preview)
                .map(|line| format!(": {line}"))
                .unwrap_or_default()
        ));
    }
    if let Some(cursor) = &page.next_cursor {
        text.push_str(&format!(
            "More entries: scratchpad_list(cursor=\"{cursor}\")\n"
        ));
    }
    text.push_str(&format!(
        "Session total: {}, {}, about {} tokens kept out of context.",
        counted(stats.figures.entries, "entry", "entries"),
        counted(stats.figures.bytes, "byte", "bytes"),
        thousands(stats.figures.tokens_kept_out)
    ));
    let output = ListOutput {
        session: session.to_owned(),
        entries: page.entries.iter().map(EntrySummary::from).collect(),
        next_cursor: page.next_cursor.clone(),
        total_entries: stats.figures.entries,
        total_bytes: stats.figures.bytes,
        tokens_kept_out: stats.figures.tokens_kept_out,
        removed: None,
    };
    structured(text, &output)
}

/// The removed notes of a session, most recently removed first.
pub fn removed_list_result(removed: &[RemovedEntry], session: &str) -> CallToolResult {
    let mut text = if removed.is_empty() {
        format!("Session `{session}` has no removed notes kept.\n")
    } else {
        format!(
            "{} in session `{session}`, most recently removed first:\n",
            counted(removed.len() as u64, "removed note", "removed notes")
        )
    };
    for r in removed {
        text.push_str(&format!(
            "- {} (id {}, {}, {}) removed {} by {}, {}\n",
            r.name,
            r.id,
            counted(r.versions, "version", "versions"),
            counted(r.bytes, "byte", "bytes"),
            utc_time(r.removed_at),
            r.removed_by.as_deref().unwrap_or("unknown"),
            kept_until(r.keep_until)
        ));
    }
    if !removed.is_empty() {
        text.push_str("Bring one back with scratchpad_delete(name=…, undo=true).");
    }
    let output = ListOutput {
        session: session.to_owned(),
        entries: Vec::new(),
        next_cursor: None,
        total_entries: 0,
        total_bytes: 0,
        tokens_kept_out: 0,
        removed: Some(removed.iter().map(RemovedSummary::from).collect()),
    };
    structured(text, &output)
}

fn kept_until(at: Option<i64>) -> String {
    match at {
        Some(at) => format!("kept until {}", utc_time(at)),
        None => "kept until purged".to_owned(),
    }
}

pub fn removed_result(removed: &Removed) -> CallToolResult {
    let output = DeleteOutput {
        name: removed.entry.name.clone(),
        kept_versions: removed.kept.as_ref().map(|kept| kept.versions),
        kept_until: removed.kept.as_ref().and_then(|kept| kept.keep_until),
        versions_deleted: removed.versions_deleted,
        bytes_freed: removed.bytes_freed,
        restored: None,
    };
    structured(format!("{}.", removed.advice().render(&Mcp)), &output)
}

pub fn purged_result(purged: &Purged) -> CallToolResult {
    let output = DeleteOutput {
        name: purged.name.clone(),
        versions_deleted: purged.versions,
        bytes_freed: purged.bytes_freed,
        ..DeleteOutput::default()
    };
    structured(format!("{}.", purged.advice().render(&Mcp)), &output)
}

pub fn restored_result(info: &EntryInfo) -> CallToolResult {
    let output = DeleteOutput {
        name: info.name.clone(),
        restored: Some(EntrySummary::from(info)),
        ..DeleteOutput::default()
    };
    structured(
        format!(
            "Restored `{}` with its history: now version {} ({}).",
            info.name,
            info.version,
            counted(info.bytes, "byte", "bytes")
        ),
        &output,
    )
}

/// A removed note's versions, newest first, with who removed it and when.
pub fn removed_history_result(history: &RemovedHistory) -> CallToolResult {
    let r = &history.removed;
    let mut text = format!(
        "`{}` was removed {} by {}; {} {}:\n",
        r.name,
        utc_time(r.removed_at),
        r.removed_by.as_deref().unwrap_or("unknown"),
        counted(r.versions, "version", "versions"),
        kept_until(r.keep_until)
    );
    for v in &history.versions {
        text.push_str(&format!(
            "v{} {} by {}, {}: {}\n",
            v.version,
            utc_time(v.written_at),
            v.author.as_deref().unwrap_or("unknown"),
            counted(v.bytes, "byte", "bytes"),
            v.change
                .as_ref()
                .map_or_else(|| "-".to_owned(), ToString::to_string)
        ));
    }
    text.push_str(
        "Bring it back with scratchpad_delete(undo=true); then scratchpad_edit(restore=N) makes an \
         older version current.",
    );
    let location = format!(
        "history of a removed note: {}",
        counted(r.versions, "version", "versions")
    );
    let output = versions_output(&r.name, r.kind, location, &history.versions);
    structured(text, &output)
}

/// The structured side of a list of versions, of a live note or a removed one.
fn versions_output(
    name: &str,
    kind: Kind,
    location: String,
    versions: &[VersionInfo],
) -> ReadOutput {
    ReadOutput {
        name: name.to_owned(),
        kind: kind.as_str().to_owned(),
        location,
        truncated: false,
        continuation: None,
        continuation_arguments: None,
        total_matches: None,
        notes: Vec::new(),
        version: None,
        versions: Some(
            versions
                .iter()
                .map(|v| VersionOutput {
                    version: v.version,
                    bytes: v.bytes,
                    lines: v.lines,
                    author: v.author.clone(),
                    written_at: v.written_at,
                    change: v.change.as_ref().map(ToString::to_string),
                })
                .collect(),
        ),
        added: None,
        removed: None,
    }
}

pub fn search_result(query: &str, hits: &[SearchHit], session: &str) -> CallToolResult {
    let mut text = if hits.is_empty() {
        format!(
            "Nothing in session `{session}` matches \"{query}\". Try other words, or scratchpad_list to see \
             every entry; inside one large output use scratchpad_read with mode=grep."
        )
    } else {
        format!(
            "{} for \"{query}\", best first:\n",
            counted(hits.len() as u64, "hit", "hits")
        )
    };
    for hit in hits {
        text.push_str(&format!(
            "- {} ({}): {}\n",
            hit.entry.name,
            describe(&hit.entry),
            hit.snippet.replace('\n', " ")
        ));
    }
    let output = SearchOutput {
        query: query.to_owned(),
        hits: hits
            .iter()
            .map(|hit| SearchHitOutput {
                entry: EntrySummary::from(&hit.entry),
                snippet: hit.snippet.clone(),
            })
            .collect(),
    };
    structured(text.trim_end().to_owned(), &output)
}

/// A result with a text rendering and the same facts as structured content.
fn structured(text: String, output: &impl Serialize) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = serde_json::to_value(output).ok();
    result
}

/// The first non-empty line of a preview, shortened for a listing.
fn first_line(preview: &str) -> Option<String> {
    const MAX_CHARS: usize = 80;
    let line = preview.lines().find(|line| !line.trim().is_empty())?.trim();
    Some(if line.chars().count() > MAX_CHARS {
        let cut: String = line.chars().take(MAX_CHARS).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    })
}
