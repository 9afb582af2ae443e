//! The data model: names, kinds, entries and their metadata.

use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};

/// Longest accepted name, session or turn tag, in bytes.
pub const MAX_NAME_LEN: usize = 128;

const NAME_RULE: &str = "names are 1 to 128 characters from A-Z a-z 0-9 . _ -, start with a letter or digit, \
                         and do not contain `..`";

/// Checks a name against `[A-Za-z0-9][A-Za-z0-9._-]{0,127}` without `..`.
pub fn validate_name(what: &'static str, value: &str) -> Result<()> {
    let ok = !value.is_empty()
        && value.len() <= MAX_NAME_LEN
        && value.as_bytes()[0].is_ascii_alphanumeric()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !value.contains("..");
    if ok {
        return Ok(());
    }
    let shown: String = value
        .chars()
        .take(40)
        .flat_map(char::escape_debug)
        .collect();
    let shown = if value.chars().count() > 40 {
        format!("{shown}… ({} characters)", value.chars().count())
    } else {
        shown
    };
    Err(Error::InvalidName {
        what,
        value: shown,
        rule: NAME_RULE.to_owned(),
    })
}

/// Longest author name, in characters.
pub const MAX_AUTHOR_CHARS: usize = 128;

/// Checks an author's name: 1 to 128 characters, none of them a control character. An author is
/// a free label (an agent's name, a client's, a person's), never used as a path or a key.
pub fn validate_author(value: &str) -> Result<()> {
    let trimmed = value.trim();
    if trimmed.is_empty()
        || trimmed.chars().count() > MAX_AUTHOR_CHARS
        || trimmed.chars().any(char::is_control)
    {
        let shown: String = value
            .chars()
            .take(40)
            .flat_map(char::escape_debug)
            .collect();
        return Err(Error::InvalidName {
            what: "author",
            value: shown,
            rule: "an author is 1 to 128 characters without control characters".to_owned(),
        });
    }
    Ok(())
}

/// Turns a tool name into a valid name stem for automatic names (`read_file` → `read_file_7`).
pub fn name_stem(tool: &str) -> String {
    let mut stem: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    while stem.starts_with(['_', '-']) {
        stem.remove(0);
    }
    if stem.is_empty() {
        stem.push_str("output");
    }
    stem
}

/// What an entry holds, detected from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Valid UTF-8 that is not a JSON document.
    Text,
    /// A complete JSON document.
    Json,
    /// Anything else: invalid UTF-8 or NUL bytes.
    Binary,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Json => "json",
            Self::Binary => "binary",
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            "binary" => Ok(Self::Binary),
            other => Err(Error::invalid(format!(
                "unknown kind `{other}`; use text, json or binary"
            ))),
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where an entry came from (for offloads: the tool and its upstream).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// blake3 of the tool arguments, short hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args_digest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

impl Source {
    pub fn is_empty(&self) -> bool {
        self.tool.is_none() && self.args_digest.is_none() && self.server.is_none()
    }
}

/// Everything known about an entry except its content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryInfo {
    pub session: String,
    pub name: String,
    pub id: String,
    pub kind: Kind,
    pub bytes: u64,
    pub chars: u64,
    pub lines: u64,
    /// blake3 of the content, hex.
    pub hash: String,
    pub preview: String,
    #[serde(skip_serializing_if = "Source::is_empty", default)]
    pub source: Source,
    #[serde(skip_serializing_if = "serde_json::Value::is_null", default)]
    pub meta: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub turn: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    pub updated_at: i64,
    pub accessed_at: i64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub expires_at: Option<i64>,
    pub pinned: bool,
    pub version: u64,
    /// The sniffed type of binary content (`image/png`); absent for text and JSON.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mime: Option<String>,
    /// What the preview saw of text content: lines per level, the search that finds the most severe
    /// ones, a test run's or build's result line.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub profile: Option<crate::preview::TextProfile>,
    /// Who wrote the current version, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub author: Option<String>,
}

impl EntryInfo {
    /// Gone for every purpose but disk space: past its expiry and not pinned.
    pub fn is_expired(&self, now: i64) -> bool {
        !self.pinned && self.expires_at.is_some_and(|at| at <= now)
    }

    /// The MIME type the content is served as.
    pub fn mime_type(&self) -> &str {
        match self.kind {
            Kind::Text => "text/plain",
            Kind::Json => "application/json",
            Kind::Binary => self.mime.as_deref().unwrap_or("application/octet-stream"),
        }
    }

    /// Estimated tokens of the whole content (o200k ratios by kind, never a full tokenization).
    pub fn tokens_est(&self) -> u64 {
        estimate_tokens(self.kind, self.bytes)
    }
}

/// Tokens per 1,000 bytes as measured with o200k: logs ≈ 450 … code ≈ 245; JSON ≈ 300.
pub fn estimate_tokens(kind: Kind, bytes: u64) -> u64 {
    let per_kb = match kind {
        Kind::Text => 300,
        Kind::Json => 300,
        Kind::Binary => 0,
    };
    (bytes * per_kb).div_ceil(1000)
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A short random id (`e` and 10 characters of lowercase base32), accepted wherever a name is.
/// The characters ids are written with (after their leading `e`).
const ID_ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";

/// Whether `text` has the shape of an entry id (`e` and ten characters of the id alphabet): only
/// such a name could be another entry's id.
pub fn looks_like_id(text: &str) -> bool {
    text.len() == 11
        && text.starts_with('e')
        && text.bytes().skip(1).all(|b| ID_ALPHABET.contains(&b))
}

pub fn new_id() -> String {
    const ALPHABET: &[u8; 32] = ID_ALPHABET;
    static FALLBACK_COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut raw = [0u8; 10];
    if getrandom::fill(&mut raw).is_err() {
        // No OS randomness: hash the clock, the process and a counter, so ids stay unique within
        // this process and unlikely to collide with another's.
        let mut seed = blake3::Hasher::new();
        seed.update(&now_ms().to_le_bytes());
        seed.update(&std::process::id().to_le_bytes());
        seed.update(
            &FALLBACK_COUNTER
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                .to_le_bytes(),
        );
        raw.copy_from_slice(&seed.finalize().as_bytes()[..10]);
    }
    let mut id = String::with_capacity(11);
    id.push('e');
    id.extend(raw.iter().map(|b| ALPHABET[usize::from(b % 32)] as char));
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rule() {
        for good in ["a", "read_file_3", "Plan.v2", "x-y", &"a".repeat(128)] {
            assert!(validate_name("name", good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "_a",
            ".a",
            "a/b",
            "a..b",
            "a\0b",
            "é",
            &"a".repeat(129),
            "a b",
        ] {
            let err = validate_name("name", bad).unwrap_err().to_string();
            assert!(err.contains("1 to 128 characters"), "{err}");
        }
    }

    #[test]
    fn stems_are_valid_names() {
        assert_eq!(name_stem("read_file"), "read_file");
        assert_eq!(name_stem("fs/read file"), "fs_read_file");
        assert_eq!(name_stem("__"), "output");
        validate_name("name", &format!("{}_1", name_stem("--x.y"))).unwrap();
    }
}
