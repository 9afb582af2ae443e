//! How a stored entry is changed in place (renamed, pinned, given an expiry or metadata): under the
//! version and lease it must hold, with the version it had kept and the change recorded.

use super::history::{keep_version, record_change, summarize};
use super::search::name_words;
use super::*;

impl<B: Backend> SqlStore<B> {
    pub(super) fn update_entry(
        &self,
        session: &str,
        key: &str,
        if_version: Option<u64>,
        writer: &Writer,
        change: &EntryChange,
        now: i64,
    ) -> Result<Option<EntryInfo>> {
        let dialect = self.dialect();
        self.write(|c| {
            let Some((row, entry)) = find_live(c, dialect, session, key, now, true)? else {
                return Ok(None);
            };
            check_version(&entry, if_version)?;
            check_lease(c, dialect, session, &entry.info.name, writer.lease)?;
            if let EntryChange::CompleteMeta(meta) = change {
                c.execute(
                    "UPDATE entries SET meta = ?2 WHERE rowid = ?1",
                    &[Param::Int(row), Param::Text(&meta.to_string())],
                )?;
                return Ok(Some(entry_by_key(c, row)?.info));
            }
            let mut dropped = Dropped::default();
            keep_version(c, row, None, &writer.history, now, &mut dropped)?;
            let (summary, keeps_history) = summarize(&entry, change);
            record_change(c, row, writer.author.as_deref(), &summary, keeps_history)?;
            match change {
                EntryChange::Rename(new_name) => {
                    lock_name(c, dialect, session, new_name)?;
                    refuse_id_name(c, session, new_name)?;
                    // Renaming onto itself is refused too, as an existing name.
                    if let Some((other_row, other)) = find_named(c, dialect, session, new_name)? {
                        if !other.info.is_expired(now) {
                            return Err(Fail::App(Error::Conflict(ConflictKind::Exists {
                                name: new_name.clone(),
                                version: other.info.version,
                            })));
                        }
                        remove_row(c, dialect, other_row, other.blob, &mut dropped)?;
                    }
                    // A renamed offload becomes a note: it no longer expires.
                    c.execute(
                        "UPDATE entries SET name = ?2, expires_at = NULL WHERE rowid = ?1",
                        &[Param::Int(row), Param::Text(new_name)],
                    )?;
                    let words = name_words(new_name);
                    let params = [Param::Int(row), Param::Text(&words)];
                    c.execute(dialect.search.rename, &params)?;
                    c.execute(
                        "UPDATE search_pending SET name = ?2 WHERE entry = ?1",
                        &params,
                    )?;
                }
                EntryChange::Pin(pinned) => {
                    c.execute(
                        "UPDATE entries SET pinned = ?2 WHERE rowid = ?1",
                        &[Param::Int(row), Param::Bool(*pinned)],
                    )?;
                }
                EntryChange::ExpiresAt(at) => {
                    c.execute(
                        "UPDATE entries SET expires_at = ?2 WHERE rowid = ?1",
                        &[Param::Int(row), Param::OptInt(*at)],
                    )?;
                }
                EntryChange::Meta(meta) | EntryChange::CompleteMeta(meta) => {
                    c.execute(
                        "UPDATE entries SET meta = ?2 WHERE rowid = ?1",
                        &[Param::Int(row), Param::Text(&meta.to_string())],
                    )?;
                }
            }
            c.execute(
                "UPDATE entries SET version = version + 1, updated_at = ?2 WHERE rowid = ?1",
                &[Param::Int(row), Param::Int(now)],
            )?;
            dropped.release(c, dialect)?;
            Ok(Some(entry_by_key(c, row)?.info))
        })
    }
}
