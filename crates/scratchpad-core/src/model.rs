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

/// Checks an author's (or a lease holder's) name: 1 to 128 characters, none of them one that
/// changes how the text around it is shown (see [`unsafe_in_name`]). An author is a free label
/// (an agent's name, a client's, a person's), never used as a path or a key; it is shown in
/// tables (`history`, `ls --long`, `lease show`) that such a character would distort.
pub fn validate_author(value: &str) -> Result<()> {
    let refuse = |why: String| {
        let shown: String = value
            .chars()
            .take(40)
            .flat_map(char::escape_debug)
            .collect();
        Err(Error::InvalidName {
            what: "author",
            value: shown,
            rule: why,
        })
    };
    let trimmed = value.trim();
    if trimmed.is_empty() || trimmed.chars().count() > MAX_AUTHOR_CHARS {
        return refuse(format!(
            "an author is 1 to {MAX_AUTHOR_CHARS} characters, without control, format or \
             line-separator characters"
        ));
    }
    // Whitespace around the name (a newline from `$(cat name)`) is trimmed, not refused.
    let leading = value.chars().count() - value.trim_start().chars().count();
    if let Some((position, c, kind)) = trimmed
        .chars()
        .enumerate()
        .find_map(|(i, c)| unsafe_in_name(c).map(|kind| (leading + i + 1, c, kind)))
    {
        return refuse(format!(
            "it has U+{:04X}, {kind}, at character {position}; an author may not hold control, \
             format (invisible or bidirectional) or line-separator characters, as they change how \
             the text around them is shown: type the name without it",
            u32::from(c)
        ));
    }
    Ok(())
}

/// What `c` is, if it is a character a name must not hold: it is invisible, reorders or breaks the
/// text around it, or means nothing yet. Decided by Unicode's general category: controls (Cc),
/// format characters (Cf: zero-width characters, bidirectional controls such as U+202E, tags),
/// line and paragraph separators (Zl, Zp), surrogates (Cs) and unassigned code points (Cn,
/// noncharacters included).
pub fn unsafe_in_name(c: char) -> Option<&'static str> {
    use unicode_general_category::{GeneralCategory, get_general_category};
    match get_general_category(c) {
        GeneralCategory::Control => Some("a control character"),
        GeneralCategory::Format if is_bidi_control(c) => Some("a bidirectional-text control"),
        GeneralCategory::Format => Some("an invisible format character"),
        GeneralCategory::LineSeparator => Some("a line separator"),
        GeneralCategory::ParagraphSeparator => Some("a paragraph separator"),
        GeneralCategory::Surrogate | GeneralCategory::Unassigned => {
            Some("an unassigned code point")
        }
        // Letters, marks, numbers, punctuation, symbols, spaces, private use (and categories a
        // later Unicode version adds: the table's enum is open).
        _ => None,
    }
}

/// Unicode's Bidi_Control property (PropList.txt): the marks, embeddings, overrides and isolates.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A name that arrived from a client (an MCP client's own name from `initialize`) made fit to
/// record as an author, where refusing it would refuse the client: each character that
/// [`validate_author`] refuses is written as its escape (`\u{202e}`), and the result is trimmed and
/// cut to [`MAX_AUTHOR_CHARS`]. `None` when nothing is left.
pub fn author_from_client(name: &str) -> Option<String> {
    let mut safe = String::new();
    for c in name.trim().chars() {
        if unsafe_in_name(c).is_some() {
            safe.extend(c.escape_unicode());
        } else {
            safe.push(c);
        }
    }
    let safe: String = safe.trim().chars().take(MAX_AUTHOR_CHARS).collect();
    let safe = safe.trim_end().to_owned();
    (!safe.is_empty()).then_some(safe)
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

    #[test]
    fn authors_refuse_by_unicode_category_and_client_names_are_escaped() {
        // Every Bidi_Control, and a sample of each refused category: Cc, Cf, Zl, Zp, Cn.
        for c in "\u{61c}\u{200e}\u{200f}\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}\
                  \u{0}\u{7f}\u{9f}\u{200b}\u{200d}\u{2060}\u{feff}\u{ad}\u{e0001}\u{2028}\u{2029}\u{fffe}\u{10ffff}"
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
        {
            let err = validate_author(&format!("ab{c}cd")).unwrap_err().to_string();
            assert!(err.contains(&format!("U+{:04X}", u32::from(c))), "{err}");
            assert!(err.contains("at character 3"), "{err}");
            let escaped = author_from_client(&format!("ab{c}cd")).unwrap();
            assert!(validate_author(&escaped).is_ok(), "{escaped:?}");
            assert!(escaped.starts_with("ab\\u{"), "{escaped}");
        }
        for good in [
            "agent-a",
            "Zoë",
            "エージェント",
            "agent (v2) ✓",
            " padded\n",
        ] {
            validate_author(good).unwrap();
            assert_eq!(author_from_client(good).as_deref(), Some(good.trim()));
        }
        assert_eq!(
            author_from_client(" \u{200b} "),
            Some("\\u{200b}".to_owned())
        );
        assert_eq!(author_from_client("   "), None);
        let long = author_from_client(&"\u{202e}".repeat(100)).unwrap();
        assert_eq!(long.chars().count(), MAX_AUTHOR_CHARS);
    }
}
