//! Settings: an optional TOML file, overridden by flags and environment in the faces.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::preview::PreviewConfig;

/// Default size above which an observation is offloaded (bytes of serialized content).
pub const DEFAULT_THRESHOLD_BYTES: usize = 4_096;
/// Default store quota (bytes of unique content) before the least recently read entries are evicted.
pub const DEFAULT_QUOTA_BYTES: u64 = 10 * 1024 * 1024 * 1024;

/// Engine settings. Every field has a default, so an empty file is a valid configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Store URL (`sqlite:///path.db`, `postgres://…`); the faces default to the user data dir.
    pub store: Option<String>,
    /// Session used when none is given.
    pub session: Option<String>,
    /// Observations larger than this (bytes) are offloaded.
    pub threshold_bytes: usize,
    /// How long offloads live unless pinned, e.g. "24h", "30m", "7d", or "never".
    pub offload_ttl: String,
    /// How long notes live unless pinned; "never" keeps them.
    pub note_ttl: String,
    /// Store quota in bytes of unique content; the least recently read unpinned entries go first.
    pub quota_bytes: Option<u64>,
    /// Characters a single read reply may hold.
    pub read_budget_chars: usize,
    /// Largest entry (characters) `full` returns without `force`.
    pub full_max_chars: usize,
    pub preview: PreviewConfig,
    /// Per-tool overrides (used by the proxy), keyed by tool name.
    pub tools: BTreeMap<String, ToolConfig>,
}

/// Overrides for one upstream tool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolConfig {
    pub threshold_bytes: Option<usize>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            store: None,
            session: None,
            threshold_bytes: DEFAULT_THRESHOLD_BYTES,
            offload_ttl: "24h".into(),
            note_ttl: "never".into(),
            quota_bytes: Some(DEFAULT_QUOTA_BYTES),
            read_budget_chars: 8_000,
            full_max_chars: 200_000,
            preview: PreviewConfig::default(),
            tools: BTreeMap::new(),
        }
    }
}

impl Config {
    /// Reads a TOML file. A missing file at the default location is not an error; see [`Config::load`].
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Config(format!("cannot read config {}: {e}", path.display())))?;
        let config: Self = toml::from_str(&text)
            .map_err(|e| Error::Config(format!("invalid config {}: {e}", path.display())))?;
        config.validate()?;
        Ok(config)
    }

    /// The file given, else `~/.config/scratchpad/config.toml` when it exists, else defaults.
    pub fn load(explicit: Option<&Path>) -> Result<Self> {
        match explicit {
            Some(path) => Self::from_file(path),
            None => match default_config_path().filter(|p| p.exists()) {
                Some(path) => Self::from_file(&path),
                None => Ok(Self::default()),
            },
        }
    }

    fn validate(&self) -> Result<()> {
        parse_ttl(&self.offload_ttl)?;
        parse_ttl(&self.note_ttl)?;
        if self.read_budget_chars < 100 {
            return Err(Error::Config(
                "read_budget_chars must be at least 100".into(),
            ));
        }
        Ok(())
    }

    /// Offload lifetime in ms (`None`: never expires).
    pub fn offload_ttl_ms(&self) -> Option<i64> {
        parse_ttl(&self.offload_ttl).ok().flatten()
    }

    /// Note lifetime in ms (`None`: never expires).
    pub fn note_ttl_ms(&self) -> Option<i64> {
        parse_ttl(&self.note_ttl).ok().flatten()
    }

    /// The offload threshold for a tool, honouring per-tool overrides.
    pub fn threshold_for(&self, tool: &str) -> usize {
        self.tools
            .get(tool)
            .and_then(|t| t.threshold_bytes)
            .unwrap_or(self.threshold_bytes)
    }
}

/// `~/.config/scratchpad/config.toml` (or the platform's equivalent).
pub fn default_config_path() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("scratchpad").join("config.toml"))
}

/// `~/.local/share/scratchpad/scratchpad.db` (or the platform's equivalent).
pub fn default_store_path() -> PathBuf {
    dirs::data_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("scratchpad")
        .join("scratchpad.db")
}

/// Parses "90s", "30m", "24h", "7d", a bare number of seconds, or "never"/"none" into ms.
pub fn parse_ttl(text: &str) -> Result<Option<i64>> {
    let t = text.trim();
    if matches!(t, "never" | "none") {
        return Ok(None);
    }
    let (digits, unit_ms) = match t.char_indices().last() {
        Some((i, 's')) => (&t[..i], 1_000),
        Some((i, 'm')) => (&t[..i], 60_000),
        Some((i, 'h')) => (&t[..i], 3_600_000),
        Some((i, 'd')) => (&t[..i], 86_400_000),
        _ => (t, 1_000),
    };
    let n: i64 = digits.trim().parse().map_err(|_| {
        Error::invalid(format!(
            "invalid duration `{text}`; use a number with s, m, h or d (e.g. 30m, 24h, 7d) or `never`"
        ))
    })?;
    if n <= 0 {
        return Err(Error::invalid(format!(
            "invalid duration `{text}`: it must be positive, or `never`"
        )));
    }
    Ok(Some(n.saturating_mul(unit_ms)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_forms() {
        assert_eq!(parse_ttl("24h").unwrap(), Some(86_400_000));
        assert_eq!(parse_ttl("30m").unwrap(), Some(1_800_000));
        assert_eq!(parse_ttl("90").unwrap(), Some(90_000));
        assert_eq!(parse_ttl("never").unwrap(), None);
        assert!(
            parse_ttl("soon")
                .unwrap_err()
                .to_string()
                .contains("30m, 24h")
        );
        assert!(parse_ttl("-5m").is_err());
        // Regression: "0" used to mean "never", the opposite of what it says.
        assert!(parse_ttl("0").is_err());
    }

    #[test]
    fn empty_file_is_default_and_unknown_keys_are_refused() {
        let c: Config = toml::from_str("").unwrap();
        assert_eq!(c, Config::default());
        assert!(toml::from_str::<Config>("treshold_bytes = 5").is_err());
        let c: Config =
            toml::from_str("threshold_bytes = 100\n[tools.read_file]\nthreshold_bytes = 9")
                .unwrap();
        assert_eq!(c.threshold_for("read_file"), 9);
        assert_eq!(c.threshold_for("other"), 100);
    }
}
