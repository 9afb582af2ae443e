//! Removed entries: a removal that keeps history moves the entry's versions (the current one
//! included) out of the name space into `removed_versions`, by reference to their blobs, so the
//! name is free at once and nothing is copied; a restore moves them back under a new entry, a purge
//! or a collection pass past retention drops them and frees what nothing else holds.

use super::history::{Dropped, version_from_row};
use super::*;
use crate::history::{Purged, Removal, Removed, RemovedEntry, RemovedHistory};

/// The columns a [`RemovedEntry`] is read from (`removed r`), its row key last.
const REMOVED_COLUMNS: &str = "r.session, r.name, r.id, r.kind, r.tool, r.version, r.created_at, \
     r.removed_at, r.removed_by, r.keep_until, \
     (SELECT COUNT(*) FROM removed_versions v WHERE v.removal = r.rowid), \
     (SELECT CAST(COALESCE(SUM(v.bytes), 0) AS BIGINT) FROM removed_versions v WHERE v.removal = r.rowid), \
     r.rowid";

/// The row key of the removal a key picks: the removed entry with that id, else the most recent
/// removal of that name.
const PICK_REMOVAL: &str = " WHERE r.session = ?1 AND (r.name = ?2 OR r.id = ?2) \
     ORDER BY CASE WHEN r.id = ?2 THEN 0 ELSE 1 END, r.removed_at DESC, r.rowid DESC LIMIT 1";

fn removed_from_row(row: &dyn Row) -> Result<(i64, RemovedEntry), Fail> {
    let kind = row.text(3)?;
    let kind = Kind::parse(&kind).map_err(|_| {
        Fail::App(Error::Storage(format!(
            "a removed entry of an unknown kind `{kind}`; the store is damaged"
        )))
    })?;
    Ok((
        row.int(12)?,
        RemovedEntry {
            session: row.text(0)?,
            name: row.text(1)?,
            id: row.text(2)?,
            kind,
            tool: row.opt_text(4)?,
            version: row.count(5)?,
            created_at: row.int(6)?,
            removed_at: row.int(7)?,
            removed_by: row.opt_text(8)?,
            keep_until: row.opt_int(9)?,
            versions: row.count(10)?,
            bytes: row.count(11)?,
        },
    ))
}

fn pick_removal(
    c: &mut dyn Conn,
    session: &str,
    key: &str,
) -> Result<Option<(i64, RemovedEntry)>, Fail> {
    c.first(
        &format!("SELECT {REMOVED_COLUMNS} FROM removed r{PICK_REMOVAL}"),
        &[Param::Text(session), Param::Text(key)],
        removed_from_row,
    )
}

/// Moves a live entry's versions, its current one included, into a new removal; the entry row
/// itself is deleted by the caller. Returns the removal's key.
fn keep_removed(
    c: &mut dyn Conn,
    key: i64,
    removed_by: Option<&str>,
    now: i64,
    until: Option<i64>,
) -> Result<i64, Fail> {
    let removal = c.one(
        "INSERT INTO removed (session, name, id, kind, tool, source, meta, turn, pinned, created_at, \
         version, removed_at, removed_by, keep_until) \
         SELECT session, name, id, kind, tool, source, meta, turn, pinned, created_at, version, ?2, ?3, ?4 \
         FROM entries WHERE rowid = ?1 RETURNING rowid",
        &[
            Param::Int(key),
            Param::Int(now),
            Param::OptText(removed_by),
            Param::OptInt(until),
        ],
        |r| r.int(0),
    )?;
    let params = [Param::Int(key), Param::Int(removal)];
    c.execute(
        "INSERT INTO removed_versions (removal, version, blob, kind, bytes, chars, lines, hash, author, \
         summary, written_at) \
         SELECT ?2, version, blob, kind, bytes, chars, lines, hash, author, summary, written_at \
         FROM versions WHERE entry = ?1",
        &params,
    )?;
    c.execute(
        "INSERT INTO removed_versions (removal, version, blob, kind, bytes, chars, lines, hash, author, \
         summary, written_at) \
         SELECT ?2, version, blob, kind, bytes, chars, lines, hash, author, summary, updated_at \
         FROM entries WHERE rowid = ?1",
        &params,
    )?;
    Ok(removal)
}

/// Deletes a removal and its versions; their content is released with `dropped`.
pub(super) fn drop_removal(
    c: &mut dyn Conn,
    removal: i64,
    dropped: &mut Dropped,
) -> Result<(), Fail> {
    dropped.0.extend(c.rows(
        "DELETE FROM removed_versions WHERE removal = ?1 RETURNING blob",
        &[Param::Int(removal)],
        |r| r.int(0),
    )?);
    c.execute(
        "DELETE FROM removed WHERE rowid = ?1",
        &[Param::Int(removal)],
    )?;
    Ok(())
}

/// Inside a write that brings back the removed entry `id` as the new entry `key`: its versions
/// become the entry's history, the entry continues their numbering, and the removal is gone.
/// Refused when the removal is gone meanwhile (restored or purged by someone else).
pub(super) fn bring_back(
    c: &mut dyn Conn,
    dialect: &Dialect,
    session: &str,
    id: &str,
    key: i64,
) -> Result<Entry, Fail> {
    let sql = format!(
        "SELECT r.rowid, r.removed_at FROM removed r WHERE r.session = ?1 AND r.id = ?2{}",
        dialect.lock
    );
    let Some((removal, removed_at)) =
        c.first(&sql, &[Param::Text(session), Param::Text(id)], |r| {
            Ok((r.int(0)?, r.int(1)?))
        })?
    else {
        return Err(Fail::App(Error::Raced(id.to_owned())));
    };
    let newest = c.one(
        "SELECT CAST(COALESCE(MAX(version), 0) AS BIGINT) FROM removed_versions WHERE removal = ?1",
        &[Param::Int(removal)],
        |r| r.int(0),
    )?;
    c.execute(
        "INSERT INTO versions (entry, version, blob, kind, bytes, chars, lines, hash, author, summary, \
         written_at, replaced_at) \
         SELECT ?1, version, blob, kind, bytes, chars, lines, hash, author, summary, written_at, ?3 \
         FROM removed_versions WHERE removal = ?2",
        &[Param::Int(key), Param::Int(removal), Param::Int(removed_at)],
    )?;
    c.execute(
        "DELETE FROM removed_versions WHERE removal = ?1",
        &[Param::Int(removal)],
    )?;
    c.execute(
        "DELETE FROM removed WHERE rowid = ?1",
        &[Param::Int(removal)],
    )?;
    // The removed entry's id, when no entry took it meanwhile: references to it work again.
    let id_free = c
        .first(
            "SELECT 1 FROM entries WHERE session = ?1 AND (id = ?2 OR name = ?2)",
            &[Param::Text(session), Param::Text(id)],
            |_| Ok(()),
        )?
        .is_none();
    if id_free {
        c.execute(
            "UPDATE entries SET id = ?2 WHERE rowid = ?1",
            &[Param::Int(key), Param::Text(id)],
        )?;
    }
    c.execute(
        "UPDATE entries SET version = ?2 WHERE rowid = ?1",
        &[Param::Int(key), Param::Int(newest.saturating_add(1))],
    )?;
    entry_by_key(c, key)
}

impl<B: Backend> SqlStore<B> {
    pub(super) fn remove(
        &self,
        session: &str,
        key: &str,
        if_version: Option<u64>,
        writer: &Writer,
        removal: Removal,
        now: i64,
    ) -> Result<Option<Removed>> {
        let dialect = self.dialect();
        let removed = self.freeing(|c| {
            let Some((row, entry)) = find_live(c, dialect, session, key, now, true)? else {
                return Ok(None);
            };
            check_version(&entry, if_version)?;
            check_lease(c, dialect, session, &entry.info.name, writer.lease)?;
            let (keeps_history, kept_versions) = c.one(
                "SELECT e.keeps_history, (SELECT COUNT(*) FROM versions v WHERE v.entry = e.rowid) \
                 FROM entries e WHERE e.rowid = ?1",
                &[Param::Int(row)],
                |r| Ok((r.flag(0)?, r.count(1)?)),
            )?;
            let keep_until = match removal {
                Removal::Keep { until } if keeps_history => Some(until),
                Removal::Keep { .. } | Removal::Purge => None,
            };
            let kept = match keep_until {
                Some(until) => {
                    let removal = keep_removed(c, row, writer.author.as_deref(), now, until)?;
                    let sql = format!("SELECT {REMOVED_COLUMNS} FROM removed r WHERE r.rowid = ?1");
                    Some(c.one(&sql, &[Param::Int(removal)], removed_from_row)?.1)
                }
                None => None,
            };
            // The content the removal keeps is still pointed at, so nothing of it is freed here.
            let bytes_freed = delete_row(c, dialect, row, entry.blob)?;
            let versions_deleted = match kept {
                Some(_) => 0,
                None => kept_versions + 1,
            };
            Ok(Some(Removed {
                entry: entry.info,
                kept,
                versions_deleted,
                bytes_freed,
            }))
        })?;
        self.after_freeing();
        Ok(removed)
    }

    pub(super) fn list_removed(&self, session: &str, limit: usize) -> Result<Vec<RemovedEntry>> {
        let sql = format!(
            "SELECT {REMOVED_COLUMNS} FROM removed r WHERE r.session = ?1 \
             ORDER BY r.removed_at DESC, r.rowid DESC LIMIT ?2"
        );
        self.read(|c| {
            c.rows(
                &sql,
                &[Param::Text(session), Param::count(limit as u64)],
                |r| removed_from_row(r).map(|(_, removed)| removed),
            )
        })
    }

    pub(super) fn removed_history_of(
        &self,
        session: &str,
        key: &str,
    ) -> Result<Option<RemovedHistory>> {
        self.read(|c| {
            let Some((removal, removed)) = pick_removal(c, session, key)? else {
                return Ok(None);
            };
            let versions = c.rows(
                "SELECT version, kind, bytes, chars, lines, hash, author, summary, written_at \
                 FROM removed_versions WHERE removal = ?1 ORDER BY version DESC",
                &[Param::Int(removal)],
                version_from_row,
            )?;
            Ok(Some(RemovedHistory { removed, versions }))
        })
    }

    pub(super) fn removed_version_of(
        &self,
        session: &str,
        key: &str,
        version: Option<u64>,
    ) -> Result<Option<(RemovedEntry, Entry)>> {
        self.read(|c| {
            let Some((removal, removed)) = pick_removal(c, session, key)? else {
                return Ok(None);
            };
            let version = version.unwrap_or(removed.version);
            let found = c.first(
                "SELECT v.version, v.kind, v.bytes, v.chars, v.lines, v.hash, v.author, v.summary, \
                 v.written_at, v.blob, b.chunks, b.mime, r.source, r.meta, r.turn, r.pinned \
                 FROM removed_versions v JOIN blobs b ON b.id = v.blob \
                 JOIN removed r ON r.rowid = v.removal WHERE v.removal = ?1 AND v.version = ?2",
                &[Param::Int(removal), Param::count(version)],
                |r| {
                    let kept = version_from_row(r)?;
                    let unreadable = |what: &str, e: serde_json::Error| {
                        Fail::App(Error::Storage(format!(
                            "removed entry `{}` has {what} ({e}); the store is damaged",
                            removed.name
                        )))
                    };
                    Ok(Entry {
                        blob: r.int(9)?,
                        chunks: u32::try_from(r.int(10)?).unwrap_or(0),
                        info: EntryInfo {
                            session: removed.session.clone(),
                            name: removed.name.clone(),
                            id: removed.id.clone(),
                            kind: kept.kind,
                            bytes: kept.bytes,
                            chars: kept.chars,
                            lines: kept.lines,
                            hash: kept.hash,
                            // Previews describe live entries only.
                            preview: String::new(),
                            source: serde_json::from_str(&r.text(12)?)
                                .map_err(|e| unreadable("an unreadable source", e))?,
                            meta: serde_json::from_str(&r.text(13)?)
                                .map_err(|e| unreadable("unreadable metadata", e))?,
                            turn: r.opt_text(14)?,
                            created_at: removed.created_at,
                            updated_at: kept.written_at,
                            accessed_at: kept.written_at,
                            expires_at: None,
                            pinned: r.flag(15)?,
                            version: kept.version,
                            mime: r.opt_text(11)?,
                            profile: None,
                            author: kept.author,
                        },
                    })
                },
            )?;
            Ok(found.map(|entry| (removed, entry)))
        })
    }

    pub(super) fn purge(&self, session: &str, key: &str) -> Result<Purged> {
        let dialect = self.dialect();
        let sql = format!(
            "SELECT {REMOVED_COLUMNS} FROM removed r WHERE r.session = ?1 AND (r.name = ?2 OR r.id = ?2) \
             ORDER BY r.removed_at DESC, r.rowid DESC{}",
            dialect.lock
        );
        let purged = self.freeing(|c| {
            let removals = c.rows(
                &sql,
                &[Param::Text(session), Param::Text(key)],
                removed_from_row,
            )?;
            let mut dropped = Dropped::default();
            for (removal, _) in &removals {
                drop_removal(c, *removal, &mut dropped)?;
            }
            let removed: Vec<RemovedEntry> =
                removals.into_iter().map(|(_, removed)| removed).collect();
            Ok(Purged {
                name: key.to_owned(),
                versions: removed.iter().map(|r| r.versions).sum(),
                removed,
                bytes_freed: dropped.release(c, dialect)?,
            })
        })?;
        self.after_freeing();
        Ok(purged)
    }
}
