//! Note history: every change records who made it, when, and what it did, and the version it
//! replaced is kept (its content by reference, like an entry's), so an old version can be read,
//! compared and made current again.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::advice::{Advice, Call};
use crate::figures::{counted, thousands, utc_time};
use crate::model::{EntryInfo, Kind};

/// Lines a change added and removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineDelta {
    pub added: u64,
    pub removed: u64,
}

impl fmt::Display for LineDelta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "+{} −{} {}",
            thousands(self.added),
            thousands(self.removed),
            if self.added + self.removed == 1 {
                "line"
            } else {
                "lines"
            }
        )
    }
}

/// What one change did, recorded with the version it produced. `Display` gives the one-line
/// summary a history shows: `+3 −1 lines`, `appended 42 bytes`, `restored version 2`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    /// The entry came into being.
    Created,
    /// The content was replaced; the lines it added and removed when they were counted (notes up
    /// to [`DELTA_MAX_BYTES`]).
    Written {
        lines: Option<LineDelta>,
    },
    /// Text was added at the end.
    Appended {
        bytes: u64,
        lines: u64,
    },
    /// Exact text was replaced.
    Edited {
        replacements: u64,
        lines: LineDelta,
    },
    /// Whole lines were inserted after line `after_line` (0: before the first).
    Inserted {
        after_line: u64,
        lines: u64,
    },
    /// An older version was made current again.
    Restored {
        from: u64,
    },
    Renamed {
        from: String,
    },
    Pinned,
    Unpinned,
    /// The lifetime was set: when the entry now expires, if ever.
    Lifetime {
        expires_at: Option<i64>,
    },
    /// The caller's metadata was replaced.
    Meta,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Created => f.write_str("created"),
            Self::Written { lines: None } => f.write_str("replaced"),
            Self::Written {
                lines:
                    Some(LineDelta {
                        added: 0,
                        removed: 0,
                    }),
            } => f.write_str("rewritten, content unchanged"),
            Self::Written { lines: Some(delta) } => write!(f, "{delta}"),
            Self::Appended { bytes, lines } => {
                write!(f, "appended {}", counted(*bytes, "byte", "bytes"))?;
                if *lines > 0 {
                    write!(f, " ({})", counted(*lines, "line", "lines"))?;
                }
                Ok(())
            }
            Self::Edited {
                replacements,
                lines,
            } => write!(
                f,
                "edited: {}, {lines}",
                counted(*replacements, "replacement", "replacements")
            ),
            Self::Inserted { after_line, lines } => write!(
                f,
                "inserted {} after line {after_line}",
                counted(*lines, "line", "lines")
            ),
            Self::Restored { from } => write!(f, "restored version {from}"),
            Self::Renamed { from } => write!(f, "renamed from `{from}`"),
            Self::Pinned => f.write_str("pinned"),
            Self::Unpinned => f.write_str("unpinned"),
            Self::Lifetime {
                expires_at: Some(at),
            } => write!(f, "lifetime set: expires {}", utc_time(*at)),
            Self::Lifetime { expires_at: None } => f.write_str("lifetime set: never expires"),
            Self::Meta => f.write_str("metadata replaced"),
        }
    }
}

/// Largest content (bytes, each side) whose replacement is summarised as lines added and removed;
/// larger replacements say "replaced".
pub const DELTA_MAX_BYTES: u64 = 1024 * 1024;

/// One version of an entry: the current one or one it keeps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VersionInfo {
    pub version: u64,
    pub kind: Kind,
    pub bytes: u64,
    pub chars: u64,
    pub lines: u64,
    /// blake3 of the content, hex.
    pub hash: String,
    /// Who wrote it, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// When it was written (unix milliseconds).
    pub written_at: i64,
    /// What the change that produced it did; absent for versions written before changes were recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
}

/// An entry's versions, newest first: the current one, then those it keeps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct History {
    pub entry: EntryInfo,
    pub versions: Vec<VersionInfo>,
    /// Whether changes keep the version they replace (notes do; outputs of tools only when asked).
    pub keeps_history: bool,
}

impl History {
    /// The oldest and newest version numbers kept besides the current one, if any.
    pub fn kept_range(&self) -> Option<(u64, u64)> {
        let kept = self
            .versions
            .iter()
            .filter(|v| v.version != self.entry.version);
        let oldest = kept.clone().map(|v| v.version).min()?;
        let newest = kept.map(|v| v.version).max()?;
        Some((oldest, newest))
    }
}

/// How many replaced versions an entry keeps, and for how long after they were replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryPolicy {
    /// Replaced versions kept per entry, newest first; 0 keeps none.
    pub versions: u32,
    /// Versions replaced longer ago than this (ms) are dropped; `None` keeps them regardless of age.
    pub max_age_ms: Option<i64>,
}

/// What removing an entry does with what it held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// Delete it and every version at once, and free their content.
    Purge,
    /// Keep its versions restorable until `until` (unix ms; `None`: until purged), when the entry
    /// keeps history; an entry that keeps none (a tool's output) is purged all the same.
    Keep { until: Option<i64> },
}

/// A removed entry whose versions are kept: listed, readable, restorable until `keep_until`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemovedEntry {
    pub session: String,
    pub name: String,
    /// The removed entry's id, which tells apart two removals of one name.
    pub id: String,
    pub kind: Kind,
    /// The tool whose output it held, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The version that was current when it was removed (the one a restore brings back by default).
    pub version: u64,
    /// How many versions are kept, that one included.
    pub versions: u64,
    /// Bytes of content the kept versions hold, each counted once per version.
    pub bytes: u64,
    pub created_at: i64,
    pub removed_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed_by: Option<String>,
    /// When a collection pass drops it (unix ms); `None`: kept until purged.
    pub keep_until: Option<i64>,
}

/// A removed entry with its versions, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RemovedHistory {
    pub removed: RemovedEntry,
    pub versions: Vec<VersionInfo>,
}

/// What a removal did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Removed {
    /// The entry as it was.
    pub entry: EntryInfo,
    /// What stays restorable; `None` when nothing was kept (purged, or an output that keeps no
    /// history).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<RemovedEntry>,
    /// Versions deleted for good (the current one included) when nothing was kept.
    pub versions_deleted: u64,
    /// Bytes of content freed (content another entry still holds is not freed).
    pub bytes_freed: u64,
}

impl Removed {
    /// The one-line reply a face shows, its calls left for the face to spell: what was kept and
    /// until when, how to restore it and how to purge it; or what was deleted for good.
    pub fn advice(&self) -> Advice {
        let name = &self.entry.name;
        match &self.kept {
            Some(kept) => {
                let until = match kept.keep_until {
                    Some(at) => format!("until {}", utc_time(at)),
                    None => "until purged".to_owned(),
                };
                Advice::text(format!(
                    "removed {name} ({} kept {until}; restore with ",
                    counted(kept.versions, "version", "versions")
                ))
                .call(Call::RestoreRemoved {
                    name: name.clone(),
                    as_name: None,
                })
                .and(" or purge with ")
                .call(Call::Purge { name: name.clone() })
                .and(")")
            }
            None => {
                let why = if self.entry.source.tool.is_some() {
                    "a tool's output keeps no history: "
                } else {
                    ""
                };
                Advice::text(format!(
                    "removed {name} for good ({why}{})",
                    deleted(self.versions_deleted, self.bytes_freed)
                ))
            }
        }
    }
}

/// `3 versions deleted, 1,024 bytes freed`.
fn deleted(versions: u64, bytes_freed: u64) -> String {
    format!(
        "{} deleted, {} freed",
        counted(versions, "version", "versions"),
        counted(bytes_freed, "byte", "bytes")
    )
}

/// What a purge deleted: a live entry, or the kept versions of removed ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Purged {
    pub name: String,
    /// The removals whose versions were deleted, newest first (none when a live entry was purged).
    pub removed: Vec<RemovedEntry>,
    /// Versions deleted, in all.
    pub versions: u64,
    pub bytes_freed: u64,
}

impl Purged {
    /// The one-line reply a face shows.
    pub fn advice(&self) -> Advice {
        Advice::text(format!(
            "purged {} ({})",
            self.name,
            deleted(self.versions, self.bytes_freed)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_change_reads_as_one_line() {
        let cases = [
            (Change::Created, "created"),
            (Change::Written { lines: None }, "replaced"),
            (
                Change::Written {
                    lines: Some(LineDelta {
                        added: 3,
                        removed: 1,
                    }),
                },
                "+3 −1 lines",
            ),
            (
                Change::Written {
                    lines: Some(LineDelta::default()),
                },
                "rewritten, content unchanged",
            ),
            (
                Change::Appended {
                    bytes: 1_234,
                    lines: 2,
                },
                "appended 1,234 bytes (2 lines)",
            ),
            (
                Change::Edited {
                    replacements: 1,
                    lines: LineDelta {
                        added: 1,
                        removed: 0,
                    },
                },
                "edited: 1 replacement, +1 −0 line",
            ),
            (
                Change::Inserted {
                    after_line: 0,
                    lines: 2,
                },
                "inserted 2 lines after line 0",
            ),
            (Change::Restored { from: 2 }, "restored version 2"),
            (Change::Renamed { from: "a".into() }, "renamed from `a`"),
            (
                Change::Lifetime { expires_at: None },
                "lifetime set: never expires",
            ),
        ];
        for (change, line) in cases {
            assert_eq!(change.to_string(), line);
            let json = serde_json::to_string(&change).unwrap();
            assert_eq!(serde_json::from_str::<Change>(&json).unwrap(), change);
        }
    }
}
