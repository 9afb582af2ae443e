//! How entries are changed and removed: rename, pin, lifetime, delete, a turn's entries.

use super::Scratchpad;
use crate::config::Ttl;
use crate::error::Result;
use crate::model::{EntryInfo, now_ms, validate_name};
use crate::store::EntryChange;

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

    pub fn delete(&self, name: &str, if_version: Option<u64>) -> Result<EntryInfo> {
        validate_name("name", name)?;
        self.store
            .delete(&self.session, name, if_version, &self.writer(), now_ms())?
            .ok_or_else(|| self.not_found(name))
    }

    /// Removes every entry tagged with `turn`.
    pub fn expire_turn(&self, turn: &str) -> Result<u64> {
        validate_name("turn", turn)?;
        self.store.delete_turn(&self.session, turn)
    }
}
