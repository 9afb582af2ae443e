//! The one error type of the engine. Every message says what was wrong and what to do next.

/// Result of every fallible engine call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong. Callers branch on the variant; the message is written for the reader
/// (a person or a model) and says how to recover.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No entry with that name or id exists in the caller's session.
    #[error("{}", describe_not_found(name, session, similar, "`scratchpad_list`"))]
    NotFound {
        name: String,
        session: String,
        /// A few names that do exist, closest first.
        similar: Vec<String>,
    },
    /// A name, session or turn tag breaks the naming rule.
    #[error("invalid {what} `{value}`: {rule}")]
    InvalidName {
        what: &'static str,
        value: String,
        rule: String,
    },
    /// `if_version` did not match, or the entry already exists where it must not.
    #[error("{}", .0.describe(|v| format!("if_version={v}")))]
    Conflict(ConflictKind),
    /// Arguments that cannot be honoured (bad range, bad regex, jq syntax error, …).
    #[error("{0}")]
    InvalidArgument(String),
    /// The request would produce or store more than a limit allows.
    #[error("{0}")]
    TooLarge(String),
    /// A text read of a binary entry, a jq query on a non-JSON entry, and the like.
    #[error("{0}")]
    WrongKind(String),
    /// The store URL or configuration is unusable.
    #[error("{0}")]
    Config(String),
    /// The database said no. The store URL is never part of the message (it may hold a password).
    #[error("storage error: {0}")]
    Storage(String),
    /// The entry was replaced or removed while it was being read; reading it again gives a whole version.
    #[error("`{0}` changed while it was read; read it again")]
    Raced(String),
    /// Reading the input failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

/// Why a write conflicted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConflictKind {
    /// The caller expected one version and found another (or none).
    Version {
        name: String,
        expected: u64,
        /// `None` when the entry does not exist.
        current: Option<u64>,
    },
    /// The entry exists and the write asked to create a new one only.
    Exists { name: String, version: u64 },
}

impl ConflictKind {
    /// The message, spelling the version argument the way the caller's face does.
    pub fn describe(&self, if_version: impl Fn(u64) -> String) -> String {
        match self {
            Self::Version {
                name,
                expected,
                current: Some(current),
            } => format!(
                "version conflict on `{name}`: expected version {expected}, current version is {current}; \
                 read it again and retry with {}",
                if_version(*current)
            ),
            Self::Version {
                name,
                expected,
                current: None,
            } => format!(
                "version conflict on `{name}`: expected version {expected}, but the entry does not exist; \
                 write it without {} to create it",
                if_version(*expected)
                    .split(['=', ' '])
                    .next()
                    .unwrap_or("if_version")
            ),
            Self::Exists { name, version } => format!(
                "an entry named `{name}` already exists (version {version}); pass {} \
                 to overwrite it or choose another name",
                if_version(*version)
            ),
        }
    }
}

/// The not-found message; `list_call` is how the caller's face lists a session.
pub fn describe_not_found(
    name: &str,
    session: &str,
    similar: &[String],
    list_call: &str,
) -> String {
    if similar.is_empty() {
        format!(
            "no entry named `{name}` in session `{session}`, which has no entries yet; {list_call} shows what exists"
        )
    } else {
        let shown: Vec<String> = similar.iter().map(|n| format!("`{n}`")).collect();
        format!(
            "no entry named `{name}` in session `{session}`; existing names include {}; {list_call} shows them all",
            shown.join(", ")
        )
    }
}

impl From<rusqlite::Error> for Error {
    fn from(err: rusqlite::Error) -> Self {
        Self::Storage(err.to_string())
    }
}

impl Error {
    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        Self::InvalidArgument(msg.into())
    }
}

/// The not-found error, naming the closest existing names.
pub(crate) fn not_found(session: &str, key: &str, names: &[String]) -> Error {
    Error::NotFound {
        name: key.to_owned(),
        session: session.to_owned(),
        similar: names.to_vec(),
    }
}

/// The `limit` names closest to `key`: shared prefix first, then most recent.
pub(crate) fn closest_names(key: &str, names: Vec<String>, limit: usize) -> Vec<String> {
    let lower = key.to_ascii_lowercase();
    let mut scored: Vec<(usize, usize, String)> = names
        .into_iter()
        .enumerate()
        .map(|(recency, name)| {
            let common = name
                .to_ascii_lowercase()
                .bytes()
                .zip(lower.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            let contains =
                usize::from(name.to_ascii_lowercase().contains(&lower) && !lower.is_empty());
            (usize::MAX - (common + contains * 64), recency, name)
        })
        .collect();
    scored.sort();
    scored.into_iter().take(limit).map(|(_, _, n)| n).collect()
}
