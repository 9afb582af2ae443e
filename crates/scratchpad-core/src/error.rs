//! The one error type of the engine. Every message says what was wrong and what to do next; the
//! "what next" is data ([`Advice`]) that each face renders in its own syntax with
//! [`Error::render`]. `Display` renders it for a library user.

use std::fmt;

use crate::advice::{Advice, Arg, ArgName, Call, Library, Speak};
use crate::figures::{span, utc_time};
use crate::lease::Lease;

/// Result of every fallible engine call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong. Callers branch on the variant; the message is written for the reader
/// (a person or a model) and says how to recover.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No entry with that name or id exists in the caller's session.
    #[error("{}", self.advice())]
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
    #[error("{}", self.advice())]
    Conflict(ConflictKind),
    /// Arguments that cannot be honoured (bad range, bad regex, jq syntax error, …).
    #[error("{0}")]
    InvalidArgument(Advice),
    /// The request would produce or store more than a limit allows.
    #[error("{0}")]
    TooLarge(Advice),
    /// A text read of a binary entry, a jq query on a non-JSON entry, and the like.
    #[error("{0}")]
    WrongKind(Advice),
    /// A read was stopped before it finished: past its deadline, or cancelled by its caller.
    #[error("{0}")]
    Stopped(Advice),
    /// The store URL or configuration is unusable.
    #[error("{0}")]
    Config(String),
    /// The database said no. The store URL is never part of the message (it may hold a password).
    #[error("storage error: {0}")]
    Storage(String),
    /// Stored content does not match its checksum or its index: the store is damaged there.
    #[error("{}", self.advice())]
    Corrupt(String),
    /// The disk that holds the store (named here) is full.
    #[error("{}", self.advice())]
    DiskFull(String),
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
    /// Someone else holds the lease that was asked for.
    Leased(Lease),
    /// The change carried lease `token`, and a newer token was issued for that name since.
    Fenced { token: u64, lease: Lease },
    /// The change carried a lease token for a name nobody ever leased.
    NoLease { name: String, token: u64 },
    /// The change (or renewal) carried lease `token`, whose claim was released: it guards nothing.
    Released { token: u64, lease: Lease },
    /// A renewal or release of a lease came from `caller`, who does not hold it.
    NotHolder { caller: String, lease: Box<Lease> },
}

impl Error {
    pub(crate) fn invalid(msg: impl Into<Advice>) -> Self {
        Self::InvalidArgument(msg.into())
    }

    /// The message as data: text with the calls and arguments it suggests.
    pub fn advice(&self) -> Advice {
        match self {
            Self::NotFound {
                name,
                session,
                similar,
            } if similar.is_empty() => Advice::text(format!(
                "no entry named `{name}` in session `{session}`, which has no entries yet; "
            ))
            .call(Call::List)
            .and(" shows what exists"),
            Self::NotFound {
                name,
                session,
                similar,
            } => {
                let shown: Vec<String> = similar.iter().map(|n| format!("`{n}`")).collect();
                Advice::text(format!(
                    "no entry named `{name}` in session `{session}`; existing names include {}; ",
                    shown.join(", ")
                ))
                .call(Call::List)
                .and(" shows them all")
            }
            Self::Conflict(ConflictKind::Version {
                name,
                expected,
                current: Some(current),
            }) => Advice::text(format!(
                "version conflict on `{name}`: expected version {expected}, current version is {current}; \
                 read it again and retry with "
            ))
            .arg(Arg::number(ArgName::IfVersion, *current)),
            Self::Conflict(ConflictKind::Version {
                name,
                expected,
                current: None,
            }) => Advice::text(format!(
                "version conflict on `{name}`: expected version {expected}, but the entry does not exist; \
                 write it without "
            ))
            .arg(Arg::bare(ArgName::IfVersion))
            .and(" to create it"),
            Self::Conflict(ConflictKind::Exists { name, version }) => Advice::text(format!(
                "an entry named `{name}` already exists (version {version}); pass "
            ))
            .arg(Arg::number(ArgName::IfVersion, *version))
            .and(" to overwrite it or choose another name"),
            Self::Conflict(ConflictKind::Leased(lease)) => Advice::text(format!(
                "`{}` is leased to `{}` until {} ({} from now by the store's clock); wait until it \
                 expires or is released, then acquire it. ",
                lease.name,
                lease.holder.as_deref().unwrap_or("nobody"),
                utc_time(lease.expires_at),
                span(lease.remaining_ms()),
            ))
            .call(Call::Lease {
                name: lease.name.clone(),
            })
            .and(" shows it"),
            Self::Conflict(ConflictKind::Fenced { token, lease }) => {
                let holder = match (&lease.holder, lease.is_held()) {
                    (Some(holder), true) => format!(
                        "held by `{holder}` until {}",
                        utc_time(lease.expires_at)
                    ),
                    (Some(holder), false) => format!("last held by `{holder}`, expired"),
                    (None, _) => "since released".to_owned(),
                };
                Advice::text(format!(
                    "refused: lease token {token} on `{}` is stale, token {} was issued since ({holder}); \
                     your lease lapsed and someone else may have written. See what changed with ",
                    lease.name, lease.token
                ))
                .call(Call::History {
                    name: lease.name.clone(),
                })
                .and(", then acquire the lease again before writing")
            }
            Self::Conflict(ConflictKind::Released { token, lease }) => Advice::text(format!(
                "refused: lease token {token} on `{}` was released at {}{}, so it guards nothing \
                 any more; acquire the lease again with ",
                lease.name,
                utc_time(lease.released_at.unwrap_or(lease.expires_at)),
                lease
                    .holder
                    .as_deref()
                    .map(|holder| format!(" by `{holder}`"))
                    .unwrap_or_default(),
            ))
            .call(Call::AcquireLease {
                name: lease.name.clone(),
            })
            .and(" and carry its new token, or change it without a lease token"),
            Self::Conflict(ConflictKind::NotHolder { caller, lease }) => {
                let holder = lease.holder.as_deref().unwrap_or("nobody");
                let held = match lease.state() {
                    crate::lease::LeaseState::Held => format!(
                        "is held by `{holder}` until {} ({} from now by the store's clock)",
                        utc_time(lease.expires_at),
                        span(lease.remaining_ms()),
                    ),
                    crate::lease::LeaseState::Expired => format!(
                        "was held by `{holder}` and expired at {}",
                        utc_time(lease.expires_at)
                    ),
                    crate::lease::LeaseState::Released => format!(
                        "was released by `{holder}` at {}",
                        utc_time(lease.released_at.unwrap_or(lease.expires_at))
                    ),
                };
                Advice::text(format!(
                    "refused: the lease on `{}` (token {}) {held}; only its holder renews or releases \
                     it, and this call came from `{caller}`. Acquire it once it expires or is released: ",
                    lease.name, lease.token
                ))
                .call(Call::Lease {
                    name: lease.name.clone(),
                })
                .and(" shows it")
            }
            Self::Conflict(ConflictKind::NoLease { name, token }) => Advice::text(format!(
                "refused: the change carries lease token {token}, but nobody ever acquired a lease on \
                 `{name}` in this session; acquire one first, or write without a lease token. "
            ))
            .call(Call::Lease { name: name.clone() })
            .and(" shows the lease"),
            Self::InvalidArgument(advice)
            | Self::TooLarge(advice)
            | Self::WrongKind(advice)
            | Self::Stopped(advice) => {
                advice.clone()
            }
            Self::Corrupt(what) => Advice::text(format!(
                "the store is damaged: {what}. Entries whose content is intact still read; "
            ))
            .call(Call::Check)
            .and(" checks every entry and says which are hit"),
            Self::DiskFull(store) => Advice::text(format!(
                "the disk that holds the store ({store}) is full, so nothing was changed; stored \
                 entries still read. Free space on that disk, or delete entries that are no longer \
                 needed (deleting works on a full disk and gives their space back); "
            ))
            .call(Call::List)
            .and(" shows what is stored"),
            other => Advice::text(other.to_string()),
        }
    }

    /// The same error, naming the entry it was met in.
    #[must_use]
    pub fn in_entry(self, name: &str) -> Self {
        match self {
            Self::Corrupt(what) => Self::Corrupt(format!("`{name}`: {what}")),
            other => other,
        }
    }

    /// The same error met while reading version `version`: the reads it suggests read that
    /// version too, not the current one.
    #[must_use]
    pub fn at_version(self, version: u64) -> Self {
        match self {
            Self::InvalidArgument(advice) => Self::InvalidArgument(advice.at_version(version)),
            Self::TooLarge(advice) => Self::TooLarge(advice.at_version(version)),
            Self::WrongKind(advice) => Self::WrongKind(advice.at_version(version)),
            Self::Stopped(advice) => Self::Stopped(advice.at_version(version)),
            other => other,
        }
    }

    /// The message in a face's syntax.
    pub fn render(&self, speak: &dyn Speak) -> String {
        self.advice().render(speak)
    }
}

impl fmt::Display for ConflictKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Error::Conflict(self.clone()).render(&Library))
    }
}

impl From<rusqlite::Error> for Error {
    fn from(err: rusqlite::Error) -> Self {
        Self::Storage(err.to_string())
    }
}

/// One error of every kind, together suggesting every call, read mode and argument a message can
/// name: what a face's tests render to check that no other face's syntax reaches its users.
#[cfg(feature = "test-support")]
pub fn one_of_each() -> Vec<Error> {
    use crate::diff::target::{DiffCall, DiffCursor, Target};
    use crate::read::mode::ReadMode;

    let lease = Lease {
        name: "plan".to_owned(),
        holder: Some("agent-a".to_owned()),
        token: 7,
        acquired_at: 1_700_000_000_000,
        expires_at: 1_700_000_060_000,
        released_at: None,
        now: 1_700_000_030_000,
    };
    let released = Lease {
        released_at: Some(1_700_000_040_000),
        ..lease.clone()
    };
    let modes = [
        ReadMode::Head { n: Some(20) },
        ReadMode::Tail { n: None },
        ReadMode::Range {
            start: 100,
            end: Some(200),
        },
        ReadMode::Lines {
            from: 10,
            to: Some(20),
        },
        ReadMode::Grep {
            pattern: "ERROR|panic".to_owned(),
            context: 2,
            max_matches: Some(50),
            ignore_case: true,
            from: Some(300),
        },
        ReadMode::Json {
            query: ".items | length".to_owned(),
        },
        ReadMode::Bytes {
            offset: 0,
            length: Some(64),
        },
        ReadMode::Full { force: true },
        ReadMode::Summary { from: Some(2) },
    ];
    let mut every_call = Advice::text("next: ");
    for mode in modes {
        every_call = every_call
            .call(Call::read("log", mode.clone()))
            .and(", ")
            .call(Call::ReadVersion {
                name: "plan".to_owned(),
                version: 3,
                mode,
            })
            .and(", ");
    }
    let every_call = every_call
        .call(Call::List)
        .and(", ")
        .call(Call::History {
            name: "plan".to_owned(),
        })
        .and(", ")
        .call(Call::Lease {
            name: "plan".to_owned(),
        })
        .and(", ")
        .call(Call::AcquireLease {
            name: "plan".to_owned(),
        })
        .and(", ")
        .call(Call::Diff(DiffCall {
            a: Target {
                name: "plan".to_owned(),
                version: Some(2),
            },
            b: Target::current("draft"),
            cursor: Some(DiffCursor {
                a_line: 40,
                b_line: 41,
            }),
            plain: false,
        }))
        .and(", ")
        .call(Call::Check)
        .and(", ")
        .call(Call::RestoreRemoved {
            name: "plan".to_owned(),
            as_name: Some("plan-old".to_owned()),
        })
        .and(", ")
        .call(Call::Purge {
            name: "plan".to_owned(),
        })
        .and(", ")
        .call(Call::ListRemoved);
    let every_arg = [
        ArgName::Force,
        ArgName::ReplaceAll,
        ArgName::IfVersion,
        ArgName::MaxMatches,
        ArgName::FromLine,
        ArgName::Lease,
    ]
    .into_iter()
    .fold(Advice::text("pass "), |advice, name| {
        advice
            .arg(Arg::on(name))
            .and(", ")
            .arg(Arg::number(name, 5))
            .and(" or leave out ")
            .arg(Arg::bare(name))
            .and("; ")
    });
    let errors = vec![
        Error::NotFound {
            name: "lgo".to_owned(),
            session: "default".to_owned(),
            similar: Vec::new(),
        },
        Error::NotFound {
            name: "lgo".to_owned(),
            session: "default".to_owned(),
            similar: vec!["log".to_owned()],
        },
        Error::InvalidName {
            what: "name",
            value: "a/b".to_owned(),
            rule: "letters, digits, `_`, `-` and `.`".to_owned(),
        },
        Error::Conflict(ConflictKind::Version {
            name: "plan".to_owned(),
            expected: 2,
            current: Some(3),
        }),
        Error::Conflict(ConflictKind::Version {
            name: "plan".to_owned(),
            expected: 2,
            current: None,
        }),
        Error::Conflict(ConflictKind::Exists {
            name: "plan".to_owned(),
            version: 4,
        }),
        Error::Conflict(ConflictKind::Leased(lease.clone())),
        Error::Conflict(ConflictKind::Fenced {
            token: 6,
            lease: lease.clone(),
        }),
        Error::Conflict(ConflictKind::NoLease {
            name: "plan".to_owned(),
            token: 6,
        }),
        Error::Conflict(ConflictKind::Released {
            token: 7,
            lease: released,
        }),
        Error::Conflict(ConflictKind::NotHolder {
            caller: "agent-b".to_owned(),
            lease: Box::new(lease),
        }),
        Error::InvalidArgument(every_call.clone()),
        Error::InvalidArgument(every_arg.clone()),
        Error::TooLarge(every_call.clone()),
        Error::WrongKind(every_arg),
        Error::Stopped(every_call),
        Error::Config("the store URL `ftp://x` is not supported".to_owned()),
        Error::Storage("database is locked".to_owned()),
        Error::Corrupt("chunk 3 does not match its checksum".to_owned()),
        Error::DiskFull("/var/lib/pad".to_owned()),
        Error::Raced("log".to_owned()),
        Error::Io(std::io::Error::other("broken pipe")),
    ];
    // Fails to compile when a kind is added without an example above.
    for error in &errors {
        match error {
            Error::NotFound { .. }
            | Error::InvalidName { .. }
            | Error::Conflict(_)
            | Error::InvalidArgument(_)
            | Error::TooLarge(_)
            | Error::WrongKind(_)
            | Error::Stopped(_)
            | Error::Config(_)
            | Error::Storage(_)
            | Error::Corrupt(_)
            | Error::DiskFull(_)
            | Error::Raced(_)
            | Error::Io(_) => {}
        }
    }
    errors
}

/// Text that only one face writes when it spells a call, by face: a message that carries another
/// face's text speaks the wrong language to its reader.
#[cfg(feature = "test-support")]
pub const SPELLINGS: [(&str, &[&str]); 5] = [
    ("library", &["ReadMode::", "pad.list(..)"]),
    ("python", &["`pad."]),
    ("cli", &["`scratchpad "]),
    ("mcp", &["`scratchpad_"]),
    ("web", &["</s/"]),
];

/// The first piece of `text` that another face than `face` (a name in [`SPELLINGS`]) writes, with
/// that face's name. `allowed` lists pieces the face writes on purpose, e.g. an MCP message naming
/// `scratchpad check`, a command with no tool behind it.
#[cfg(feature = "test-support")]
pub fn foreign_spelling(
    face: &str,
    text: &str,
    allowed: &[&str],
) -> Option<(&'static str, String)> {
    let mut text = text.to_owned();
    for piece in allowed {
        text = text.replace(piece, "");
    }
    SPELLINGS
        .iter()
        .filter(|(other, _)| *other != face)
        .find_map(|(other, pieces)| {
            pieces
                .iter()
                .find(|piece| text.contains(*piece))
                .map(|piece| (*other, (*piece).to_owned()))
        })
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
