//! Settings: an optional TOML file, overridden by flags and environment in the faces.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::preview::PreviewConfig;
use crate::store::url::StoreUrl;

/// Default size above which an observation is offloaded (bytes of serialized content).
pub const DEFAULT_THRESHOLD_BYTES: usize = 4_096;
/// Default bound on what the placeholders of one call expand to (bytes): room for any file a tool
/// takes, while 64 placeholders of a 16 MB entry can no longer build a gigabyte argument.
pub const DEFAULT_RESOLVE_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// Replaced versions a note keeps when none are configured.
pub const DEFAULT_HISTORY_VERSIONS: u32 = 100;
/// How long a replaced version is kept when nothing is configured (ms): 30 days.
pub const DEFAULT_HISTORY_MAX_AGE_MS: i64 = 30 * 86_400_000;
/// How long a removed note stays restorable when nothing is configured (ms): 7 days.
pub const DEFAULT_KEEP_REMOVED_MS: i64 = 7 * 86_400_000;
/// Default store quota (bytes of unique content) before the least recently read entries are evicted.
pub const DEFAULT_QUOTA_BYTES: u64 = 10 * 1024 * 1024 * 1024;
/// How long the proxy answers a repeated read-only call from the earlier result when nothing is
/// configured (ms): long enough for an agent's immediate re-reads, short enough that a model rarely
/// acts on a stale answer (and the answer says how old it is).
pub const DEFAULT_REUSE_WINDOW_MS: i64 = 60_000;

/// Engine settings. Every field has a default, so an empty file is a valid configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Store URL (`sqlite:///path.db`, `postgres://…`); the faces default to the user data dir.
    /// `Debug` shows it without its password.
    pub store: Option<StoreUrl>,
    /// Session used when none is given.
    pub session: Option<String>,
    /// Observations larger than this (bytes) are offloaded.
    pub threshold_bytes: usize,
    /// How long offloads live unless pinned, e.g. "24h", "30m", "7d", or "never".
    pub offload_ttl: Ttl,
    /// How long notes live unless pinned; "never" keeps them.
    pub note_ttl: Ttl,
    /// Store quota in bytes of unique content; the least recently read unpinned entries go first.
    pub quota_bytes: Option<u64>,
    /// Characters a single read reply may hold.
    pub read_budget_chars: usize,
    /// Largest entry (characters) `full` returns without `force`.
    pub full_max_chars: usize,
    /// Bytes all `{{scratchpad:…}}` placeholders of one call may expand to together.
    pub resolve_max_bytes: u64,
    /// Replaced versions each note keeps (outputs of tools keep none unless asked); 0 keeps none.
    pub history_versions: u32,
    /// How long a replaced version is kept, e.g. "30d", or "never" to keep it regardless of age.
    pub history_max_age: Ttl,
    /// How long a removed note's versions stay restorable, e.g. "7d"; "0" purges at once, "never"
    /// keeps them until purged. Outputs of tools are purged when removed, whatever this says.
    pub keep_removed: Retention,
    pub preview: PreviewConfig,
    /// Per-tool overrides (used by the proxy), keyed by tool name.
    pub tools: BTreeMap<String, ToolConfig>,
    /// The upstream servers of `scratchpad mcp gateway`.
    pub gateway: GatewayConfig,
    /// How long the proxy and the gateway answer a call identical to a recent one from its stored
    /// result, for tools that declare themselves read-only and idempotent (or are named in
    /// `reuse_tools`): "60s", "5m", or "off".
    pub reuse_window: ReuseWindow,
    /// Tools whose repeated calls are reused although they do not declare themselves read-only and
    /// idempotent: the proxy's tool names, or SERVER__TOOL for the gateway.
    pub reuse_tools: Vec<String>,
}

/// `[gateway.servers.NAME]` tables: the servers the gateway stands in front of.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GatewayConfig {
    pub servers: BTreeMap<String, GatewayServerConfig>,
}

/// One upstream of the gateway: a command (with `args` and `env`) or a streamable-HTTP `url`
/// (with `headers`), as MCP clients write them.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GatewayServerConfig {
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub url: Option<String>,
    pub headers: BTreeMap<String, String>,
}

impl fmt::Debug for GatewayServerConfig {
    /// Environment and header values are often tokens: only their names are shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GatewayServerConfig")
            .field("command", &self.command)
            .field("args", &self.args)
            .field(
                "env (values redacted)",
                &self.env.keys().collect::<Vec<_>>(),
            )
            .field("url", &self.url)
            .field(
                "headers (values redacted)",
                &self.headers.keys().collect::<Vec<_>>(),
            )
            .finish()
    }
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
            offload_ttl: Ttl::After(24 * 3_600_000),
            note_ttl: Ttl::Never,
            quota_bytes: Some(DEFAULT_QUOTA_BYTES),
            read_budget_chars: 8_000,
            full_max_chars: 200_000,
            resolve_max_bytes: DEFAULT_RESOLVE_MAX_BYTES,
            history_versions: DEFAULT_HISTORY_VERSIONS,
            history_max_age: Ttl::After(DEFAULT_HISTORY_MAX_AGE_MS),
            keep_removed: Retention::For(DEFAULT_KEEP_REMOVED_MS),
            preview: PreviewConfig::default(),
            tools: BTreeMap::new(),
            gateway: GatewayConfig::default(),
            reuse_window: ReuseWindow::default(),
            reuse_tools: Vec::new(),
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
        for (key, ttl) in [
            ("offload_ttl", self.offload_ttl),
            ("note_ttl", self.note_ttl),
            ("history_max_age", self.history_max_age),
        ] {
            if ttl == Ttl::Default {
                return Err(Error::Config(format!(
                    "{key} must be a duration such as 24h or `never`"
                )));
            }
        }
        if self.read_budget_chars < 100 {
            return Err(Error::Config(
                "read_budget_chars must be at least 100".into(),
            ));
        }
        Ok(())
    }

    /// How many replaced versions a note keeps, and for how long.
    pub fn history_policy(&self) -> crate::history::HistoryPolicy {
        crate::history::HistoryPolicy {
            versions: self.history_versions,
            max_age_ms: match self.history_max_age {
                Ttl::After(ms) => Some(ms),
                Ttl::Never | Ttl::Default => None,
            },
        }
    }

    /// The offload threshold for a tool, honouring per-tool overrides: the one place that decides
    /// when an output is too large to show whole.
    pub fn threshold_for(&self, tool: Option<&str>) -> usize {
        tool.and_then(|tool| self.tools.get(tool))
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

/// How long an entry lives, written "90s", "30m", "24h", "7d", a bare number of seconds, or
/// "never". Parsed once, where it is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Ttl {
    /// Offloads (automatic names) get the offload TTL, named entries the note TTL.
    #[default]
    Default,
    Never,
    /// Milliseconds from now.
    After(i64),
}

impl Ttl {
    /// When an entry written at `now` expires, with `Default` already resolved.
    pub fn expires_at(self, now: i64) -> Option<i64> {
        match self {
            Self::After(ms) => Some(now.saturating_add(ms)),
            Self::Never | Self::Default => None,
        }
    }
}

impl FromStr for Ttl {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        let t = text.trim();
        if matches!(t, "never" | "none") {
            return Ok(Self::Never);
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
        // Past i64 milliseconds (292 million years) a length would not print back as itself.
        n.checked_mul(unit_ms).map(Self::After).ok_or_else(|| {
            Error::invalid(format!(
                "invalid duration `{text}`: too long; for an entry kept for good use `never`"
            ))
        })
    }
}

/// How long removed entries are kept: a duration (`7d`), `0` (not at all: removing purges at
/// once) or `never` (until purged). Written like a [`Ttl`], with `0` allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retention {
    /// Not kept: removing purges.
    Purge,
    /// Kept this long (ms) after the removal.
    For(i64),
    /// Kept until purged.
    UntilPurged,
}

impl Retention {
    /// When an entry removed at `now` is dropped (`None`: never by itself).
    pub fn until(self, now: i64) -> Option<i64> {
        match self {
            Self::For(ms) => Some(now.saturating_add(ms)),
            Self::Purge | Self::UntilPurged => None,
        }
    }
}

impl FromStr for Retention {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        if text.trim().trim_end_matches(['s', 'm', 'h', 'd']) == "0" {
            return Ok(Self::Purge);
        }
        match text.parse::<Ttl>()? {
            Ttl::After(ms) => Ok(Self::For(ms)),
            Ttl::Never | Ttl::Default => Ok(Self::UntilPurged),
        }
    }
}

impl fmt::Display for Retention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Purge => f.write_str("0"),
            Self::For(ms) => Ttl::After(ms).fmt(f),
            Self::UntilPurged => f.write_str("never"),
        }
    }
}

impl Serialize for Retention {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A duration setting as its text, whether the file wrote it as a string or a bare number of
/// seconds (`keep_removed = 0` is as natural as `keep_removed = "0"`).
fn duration_text<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Text(String),
        Seconds(i64),
    }
    Ok(match Written::deserialize(d)? {
        Written::Text(text) => text,
        Written::Seconds(n) => n.to_string(),
    })
}

impl<'de> Deserialize<'de> for Retention {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        duration_text(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// How long a repeated call is answered from the stored result: a duration written like a
/// [`Ttl`] (`60s`, `5m`), or `off` (also `0`): every call reaches the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReuseWindow {
    Off,
    For(Duration),
}

impl ReuseWindow {
    /// The window, or `None` when reuse is off.
    pub fn duration(self) -> Option<Duration> {
        match self {
            Self::Off => None,
            Self::For(window) => Some(window),
        }
    }
}

impl Default for ReuseWindow {
    fn default() -> Self {
        Self::For(Duration::from_millis(
            u64::try_from(DEFAULT_REUSE_WINDOW_MS).unwrap_or(0),
        ))
    }
}

impl FromStr for ReuseWindow {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        let t = text.trim();
        if matches!(t, "off" | "none" | "no" | "false")
            || t.trim_end_matches(['s', 'm', 'h', 'd']) == "0"
        {
            return Ok(Self::Off);
        }
        let shape = || {
            Error::invalid(format!(
                "invalid reuse window `{text}`; use a duration such as 60s or 5m, or `off` to call \
                 the tool every time"
            ))
        };
        match t.parse::<Ttl>() {
            Ok(Ttl::After(ms)) => Ok(Self::For(Duration::from_millis(
                u64::try_from(ms).map_err(|_| shape())?,
            ))),
            Ok(Ttl::Never | Ttl::Default) | Err(_) => Err(shape()),
        }
    }
}

impl fmt::Display for ReuseWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Off => f.write_str("off"),
            Self::For(window) => {
                Ttl::After(i64::try_from(window.as_millis()).unwrap_or(i64::MAX)).fmt(f)
            }
        }
    }
}

impl Serialize for ReuseWindow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ReuseWindow {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        // `reuse_window = 0` is as natural as `reuse_window = "off"`.
        duration_text(d)?.parse().map_err(serde::de::Error::custom)
    }
}

impl Ttl {
    /// A lease's length: "90s", "30m", "24h", "7d" or a number of seconds. A lease always ends, so
    /// `never` and zero are refused, and no message here suggests either.
    pub fn parse_lease(text: &str) -> Result<Duration> {
        let shape = || {
            Error::invalid(format!(
                "invalid duration `{text}`; use a number with s, m, h or d, e.g. 60s, 10m or 1h"
            ))
        };
        match text.trim() {
            "never" | "none" => {
                return Err(Error::invalid(
                    "a lease always ends: give a duration such as 60s, 10m or 1h, and renew it \
                     while you work",
                ));
            }
            "default" => return Err(shape()),
            _ => {}
        }
        match text.parse::<Ttl>() {
            Ok(Self::After(ms)) => Ok(Duration::from_millis(u64::try_from(ms).unwrap_or(0))),
            Ok(Self::Never | Self::Default) => Err(shape()),
            Err(_) => match text
                .trim()
                .trim_end_matches(['s', 'm', 'h', 'd'])
                .trim()
                .parse::<i64>()
            {
                Ok(n) if n <= 0 => Err(Error::invalid(format!(
                    "invalid duration `{text}`: a lease lasts at least a second, e.g. 60s, 10m or 1h"
                ))),
                Ok(_) => Err(Error::invalid(format!(
                    "invalid duration `{text}`: a lease lasts at most a year; give e.g. 60s, 10m or \
                     1h and renew it instead of asking for longer"
                ))),
                Err(_) => Err(shape()),
            },
        }
    }
}

impl fmt::Display for Ttl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Default => f.write_str("default"),
            Self::Never => f.write_str("never"),
            Self::After(ms) if ms % 86_400_000 == 0 => write!(f, "{}d", ms / 86_400_000),
            Self::After(ms) if ms % 3_600_000 == 0 => write!(f, "{}h", ms / 3_600_000),
            Self::After(ms) if ms % 60_000 == 0 => write!(f, "{}m", ms / 60_000),
            Self::After(ms) => write!(f, "{}s", ms.saturating_add(999) / 1_000),
        }
    }
}

impl Serialize for Ttl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Ttl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuse_window_forms() {
        let parse = |text: &str| text.parse::<ReuseWindow>();
        assert_eq!(
            parse("60s").unwrap(),
            ReuseWindow::For(Duration::from_secs(60))
        );
        assert_eq!(
            parse("5m").unwrap(),
            ReuseWindow::For(Duration::from_secs(300))
        );
        assert_eq!(
            parse("90").unwrap(),
            ReuseWindow::For(Duration::from_secs(90))
        );
        for off in ["off", "0", "0s", " off "] {
            assert_eq!(parse(off).unwrap(), ReuseWindow::Off, "{off}");
        }
        for bad in ["never", "soon", "-5s", "1.5m", ""] {
            let err = parse(bad).unwrap_err().to_string();
            assert!(err.contains("60s") && err.contains("off"), "{bad}: {err}");
        }
        assert_eq!(ReuseWindow::default().to_string(), "1m");
        let config: Config = toml::from_str("reuse_window = 0").unwrap();
        assert_eq!(config.reuse_window, ReuseWindow::Off);
        let config: Config =
            toml::from_str("reuse_window = \"30s\"\nreuse_tools = [\"fs__search\"]").unwrap();
        assert_eq!(
            config.reuse_window,
            ReuseWindow::For(Duration::from_secs(30))
        );
        assert_eq!(config.reuse_tools, ["fs__search"]);
    }

    #[test]
    fn ttl_forms() {
        let parse = |text: &str| text.parse::<Ttl>();
        assert_eq!(parse("24h").unwrap(), Ttl::After(86_400_000));
        assert_eq!(parse("30m").unwrap(), Ttl::After(1_800_000));
        assert_eq!(parse("90").unwrap(), Ttl::After(90_000));
        assert_eq!(parse("never").unwrap(), Ttl::Never);
        assert!(parse("soon").unwrap_err().to_string().contains("30m, 24h"));
        assert!(parse("-5m").is_err());
        // Regression: "0" used to mean "never", the opposite of what it says.
        assert!(parse("0").is_err());
        for text in ["2h", "7d", "30m", "90s", "never"] {
            assert_eq!(parse(text).unwrap().to_string(), text);
        }
        assert_eq!(parse("24h").unwrap().to_string(), "1d");
        // Regression: a length past i64 milliseconds saturated, then printed as another length.
        let err = parse("99999999999999999d").unwrap_err().to_string();
        assert!(err.contains("too long"), "{err}");
        let err = Ttl::parse_lease("99999999999999999d")
            .unwrap_err()
            .to_string();
        assert!(err.contains("60s") && !err.contains("never"), "{err}");
    }

    /// Regression: `--ttl 0s` for a lease suggested `never`, which leases refuse.
    #[test]
    fn lease_lengths_suggest_only_what_a_lease_accepts() {
        assert_eq!(Ttl::parse_lease("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(Ttl::parse_lease("10m").unwrap(), Duration::from_secs(600));
        assert_eq!(Ttl::parse_lease("45").unwrap(), Duration::from_secs(45));
        for bad in [
            "0s", "0", "-5m", "never", "none", "soon", "", "1.5h", "default", "10x",
        ] {
            let err = Ttl::parse_lease(bad).unwrap_err().to_string();
            assert!(!err.contains("never"), "{bad}: {err}");
            assert!(err.contains("60s"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_store_url_from_the_file_is_shown_without_its_password() {
        let c: Config =
            toml::from_str("store = \"postgres://agent:p@ss@db.internal/pad\"").unwrap();
        assert_eq!(
            c.store.as_ref().map(StoreUrl::as_str),
            Some("postgres://agent:p@ss@db.internal/pad")
        );
        let shown = format!("{c:?}");
        assert!(
            shown.contains("postgres://agent:***@db.internal/pad"),
            "{shown}"
        );
        assert!(!shown.contains("p@ss"), "{shown}");
    }

    #[test]
    fn empty_file_is_default_and_unknown_keys_are_refused() {
        let c: Config = toml::from_str("").unwrap();
        assert_eq!(c, Config::default());
        assert!(toml::from_str::<Config>("treshold_bytes = 5").is_err());
        let c: Config =
            toml::from_str("threshold_bytes = 100\n[tools.read_file]\nthreshold_bytes = 9")
                .unwrap();
        assert_eq!(c.threshold_for(Some("read_file")), 9);
        assert_eq!(c.threshold_for(Some("other")), 100);
        assert_eq!(c.threshold_for(None), 100);
        let c: Config = toml::from_str("offload_ttl = \"2h\"\nnote_ttl = \"never\"").unwrap();
        assert_eq!(c.offload_ttl, Ttl::After(7_200_000));
        assert!(toml::from_str::<Config>("offload_ttl = \"soon\"").is_err());
        let c: Config =
            toml::from_str("history_versions = 5\nhistory_max_age = \"never\"").unwrap();
        assert_eq!(c.history_policy().versions, 5);
        for (written, retention) in [
            ("keep_removed = \"7d\"", Retention::For(7 * 86_400_000)),
            ("keep_removed = \"0\"", Retention::Purge),
            ("keep_removed = 0", Retention::Purge),
            ("keep_removed = \"never\"", Retention::UntilPurged),
        ] {
            let c: Config = toml::from_str(written).unwrap();
            assert_eq!(c.keep_removed, retention, "{written}");
        }
        assert_eq!(
            Config::default().keep_removed,
            Retention::For(DEFAULT_KEEP_REMOVED_MS)
        );
        assert_eq!(c.history_policy().max_age_ms, None);
        assert_eq!(
            Config::default().history_policy().max_age_ms,
            Some(30 * 86_400_000)
        );
    }
}
