//! How entries are changed and removed: rename, pin, lifetime, delete, a turn's entries.

use super::Scratchpad;
use super::write::Commit;
use crate::advice::{Advice, Call};
use crate::config::{Retention, Ttl};
use crate::error::{Error, Result};
use crate::figures::utc_time;
use crate::history::{Change, Purged, Removal, Removed, RemovedEntry, RemovedHistory};
use crate::model::{EntryInfo, MAX_NAME_LEN, now_ms, validate_name};
use crate::store::{EntryChange, NameChoice, WriteCondition};

impl Scratchpad {
    pub fn rename(&self, name: &str, new_name: &str, if_version: Option<u64>) -> Result<EntryInfo> {
        validate_name("name", new_name)?;
        self.change(name, if_version, &EntryChange::Rename(new_name.to_owned()))
    }

    pub fn pin(&self, name: &str, pinned: bool, if_version: Option<u64>) -> Result<EntryInfo> {
        self.change(name, if_version, &EntryChange::Pin(pinned))
    }

    /// Sets the lifetime from now (`Ttl::Never`: never expires; `Ttl::Default`: the lifetime its
    /// kind of entry gets when written).
    pub fn set_ttl(&self, name: &str, ttl: Ttl, if_version: Option<u64>) -> Result<EntryInfo> {
        let ttl = match ttl {
            Ttl::Default => self.config.note_ttl,
            ttl => ttl,
        };
        self.change(
            name,
            if_version,
            &EntryChange::ExpiresAt(ttl.expires_at(now_ms())),
        )
    }

    /// Replaces the entry's caller metadata (what `PutOptions::meta` set), e.g. to record a
    /// command's exit code once its output is stored.
    pub fn set_meta(
        &self,
        name: &str,
        meta: serde_json::Value,
        if_version: Option<u64>,
    ) -> Result<EntryInfo> {
        self.change(name, if_version, &EntryChange::Meta(meta))
    }

    /// Completes the caller metadata of the version `version` that this caller has just written
    /// (e.g. a command's exit code once its output is stored), without a new version: a fresh entry
    /// stays at version 1. Refused (`ConflictKind::Version`) once anyone changed the entry since.
    pub fn complete_meta(
        &self,
        name: &str,
        meta: serde_json::Value,
        version: u64,
    ) -> Result<EntryInfo> {
        self.change(name, Some(version), &EntryChange::CompleteMeta(meta))
    }

    fn change(
        &self,
        name: &str,
        if_version: Option<u64>,
        change: &EntryChange,
    ) -> Result<EntryInfo> {
        validate_name("name", name)?;
        self.store
            .update(
                &self.session,
                name,
                if_version,
                &self.writer(),
                change,
                now_ms(),
            )?
            .ok_or_else(|| self.not_found(name))
    }

    /// Removes an entry; its name is free at once. A note (an entry that keeps history) keeps
    /// its versions restorable for the configured retention (`keep_removed`), an output of a tool
    /// is deleted at once: it can be made again, and is often removed to free space.
    pub fn delete(&self, name: &str, if_version: Option<u64>) -> Result<Removed> {
        let now = now_ms();
        let removal = match self.config.keep_removed {
            Retention::Purge => Removal::Purge,
            retention => Removal::Keep {
                until: retention.until(now),
            },
        };
        self.remove(name, if_version, removal, now)
    }

    /// Deletes an entry and all its versions at once and frees their content; for a name that is
    /// not in use but was removed, deletes the kept versions of its removals instead.
    pub fn purge(&self, name: &str, if_version: Option<u64>) -> Result<Purged> {
        validate_name("name", name)?;
        let now = now_ms();
        let writer = self.writer();
        if let Some(removed) = self.store.delete(
            &self.session,
            name,
            if_version,
            &writer,
            Removal::Purge,
            now,
        )? {
            return Ok(Purged {
                name: removed.entry.name,
                removed: Vec::new(),
                versions: removed.versions_deleted,
                bytes_freed: removed.bytes_freed,
            });
        }
        let purged = self.store.purge_removed(&self.session, name)?;
        if purged.removed.is_empty() {
            return Err(self.not_found(name));
        }
        Ok(purged)
    }

    fn remove(
        &self,
        name: &str,
        if_version: Option<u64>,
        removal: Removal,
        now: i64,
    ) -> Result<Removed> {
        validate_name("name", name)?;
        if let Some(removed) = self.store.delete(
            &self.session,
            name,
            if_version,
            &self.writer(),
            removal,
            now,
        )? {
            return Ok(removed);
        }
        match self.store.removed_history(&self.session, name)? {
            Some(history) => Err(Error::invalid(
                Advice::text(format!(
                    "`{name}` was removed already{} at {}; restore it with ",
                    removed_by(&history.removed),
                    utc_time(history.removed.removed_at)
                ))
                .call(Call::RestoreRemoved {
                    name: name.to_owned(),
                    as_name: None,
                })
                .and(" or delete its kept versions with ")
                .call(Call::Purge {
                    name: name.to_owned(),
                }),
            )),
            None => Err(self.not_found(name)),
        }
    }

    /// The session's removed entries whose versions are kept, most recently removed first.
    pub fn removed(&self, limit: usize) -> Result<Vec<RemovedEntry>> {
        self.store.removed(&self.session, limit)
    }

    /// The versions of the most recent removal of `name` (or of the removed entry with that id),
    /// newest first, with who removed it and when.
    pub fn removed_history(&self, name: &str) -> Result<RemovedHistory> {
        validate_name("name", name)?;
        self.store
            .removed_history(&self.session, name)?
            .ok_or_else(|| self.not_removed(name))
    }

    /// Brings back a removed entry (its most recent removal, or the removed entry with that id)
    /// as a new entry with all its versions: its last version, or `version`, becomes current.
    /// Under its own name unless `as_name` is given; a name in use again is never overwritten.
    pub fn restore_removed(
        &self,
        name: &str,
        version: Option<u64>,
        as_name: Option<&str>,
    ) -> Result<EntryInfo> {
        validate_name("name", name)?;
        if let Some(as_name) = as_name {
            validate_name("name", as_name)?;
        }
        let (removed, old) = self
            .store
            .removed_version(&self.session, name, version)?
            .ok_or_else(|| match version {
                Some(version) => match self.store.removed_history(&self.session, name) {
                    Ok(Some(history)) => Error::invalid(
                        Advice::text(format!(
                            "removed `{}` has no version {version}; its versions are ",
                            history.removed.name
                        ))
                        .and(
                            history
                                .versions
                                .iter()
                                .map(|v| v.version.to_string())
                                .collect::<Vec<_>>()
                                .join(", "),
                        ),
                    ),
                    Ok(None) | Err(_) => self.not_removed(name),
                },
                None => self.not_removed(name),
            })?;
        let target = as_name.unwrap_or(&removed.name).to_owned();
        let now = now_ms();
        if let Some(current) = self.store.entry(&self.session, &target, now)? {
            let other = alternative_name(&removed.name);
            return Err(Error::invalid(
                Advice::text(format!(
                    "`{target}` is in use again (version {}, written since `{}` was removed), and a \
                     restore never replaces it; restore under another name with ",
                    current.info.version, removed.name
                ))
                .call(Call::RestoreRemoved {
                    name: removed.id.clone(),
                    as_name: Some(other),
                }),
            ));
        }
        let ingested = self.ingest_again(&old)?;
        let info = old.info;
        self.commit(
            ingested,
            Commit {
                name: NameChoice::Given(target),
                condition: WriteCondition::CreateOnly,
                source: info.source,
                meta: info.meta,
                turn: info.turn,
                ttl: Ttl::Never,
                pinned: info.pinned,
                change: Change::Restored { from: info.version },
                keeps_history: true,
                records_usage: false,
                restores: Some(removed.id),
            },
        )
    }

    fn not_removed(&self, name: &str) -> Error {
        Error::invalid(
            Advice::text(format!(
                "no removed entry named `{name}` in session `{}` (kept versions go once their \
                 retention ends); ",
                self.session
            ))
            .call(Call::ListRemoved)
            .and(" lists what can be restored"),
        )
    }

    /// Removes every entry tagged with `turn`.
    pub fn expire_turn(&self, turn: &str) -> Result<u64> {
        validate_name("turn", turn)?;
        self.store.delete_turn(&self.session, turn)
    }
}

/// A name to restore a removed entry under when its own is in use again: `plan-restored`.
fn alternative_name(name: &str) -> String {
    const SUFFIX: &str = "-restored";
    let room = MAX_NAME_LEN.saturating_sub(SUFFIX.len());
    let stem: String = name.chars().take(room).collect();
    format!("{stem}{SUFFIX}")
}

/// ` by agent-a`, or nothing when the remover gave no name.
fn removed_by(removed: &RemovedEntry) -> String {
    removed
        .removed_by
        .as_deref()
        .map_or_else(String::new, |who| format!(" by {who}"))
}
