//! How new content becomes an entry: the name it takes (the one given, or the session's next
//! automatic one), the condition the write must meet (create only, a version, a lease), the row
//! written (replacing an expired entry, keeping the replaced version), its usage recorded and its
//! text indexed; and, when the connection broke while committing, whether the write landed.

use super::content::{Settling, settle_blob};
use super::history::keep_version;
use super::search::index_search;
use super::*;
use crate::model::new_id;
use crate::store::{NameChoice, WriteCondition};

/// The columns of [`entry_columns!`] as an `INSERT`/`UPDATE … RETURNING` of `entries` gives them:
/// the blob's chunk count and MIME type, which the row does not hold, are the parameters named.
macro_rules! returned_entry {
    ($chunks:literal, $mime:literal) => {
        concat!(
            "rowid, session, name, id, kind, blob, bytes, chars, lines, hash, preview, source, meta, turn, \
             created_at, updated_at, accessed_at, expires_at, pinned, version, CAST(",
            $chunks,
            " AS BIGINT), CAST(",
            $mime,
            " AS TEXT), profile, author"
        )
    };
}

impl<B: Backend> SqlStore<B> {
    pub(super) fn commit_write(&self, write: &EntryWrite, mut blob: PendingBlob) -> Result<Entry> {
        let dialect = self.dialect();
        let file = std::sync::Mutex::new(None);
        let settling = self.settling(&write.stats, &mut blob, &file)?;
        let attempt = || {
            self.backend
                .transaction(false, &mut |c| commit_entry(c, dialect, write, &settling))
        };
        let mut result = attempt();
        if let Err(TxError::Unsure(err)) = &result {
            // Was it applied? The fingerprint says; if it was not, running it again is safe,
            // because the transaction checks its condition again.
            result = match self.find_committed(write) {
                Ok(Some(entry)) => Ok(entry),
                Ok(None) => attempt(),
                Err(_) => Err(TxError::Failed(Error::Storage(format!(
                    "{err} (the connection broke while committing and the store could not be asked \
                     whether the write was applied: look for the entry before writing it again)"
                )))),
            };
        }
        let result = result.map_err(|e| match e {
            TxError::Failed(err) => err,
            TxError::Unsure(err) => Error::Storage(format!(
                "{err} (the connection broke while committing, so the entry may or may not have been \
                 saved: look for it before writing it again)"
            )),
        });
        if let (Err(_), content::SettlingContent::Staged(staged)) = (&result, &settling.content) {
            // Best effort (a no-op if the write did land): GC removes it later if this fails too.
            let staged = *staged;
            let _ = self.write(|c| {
                c.execute(
                    "DELETE FROM blobs WHERE id = ?1 AND state = 0",
                    &[Param::Int(staged)],
                )?;
                Ok(())
            });
        }
        // A replaced entry may have left a side file to remove.
        if result.as_ref().is_ok_and(|entry| entry.info.version > 1) {
            let _ = self.remove_doomed_files();
        }
        result
    }

    /// After a commit whose outcome is unknown: the entry this write would have produced, if it is
    /// there. Its fingerprint is the session, the content hash and the write's own timestamp.
    fn find_committed(&self, write: &EntryWrite) -> Result<Option<Entry>> {
        let name = match &write.name {
            NameChoice::Given(name) => Some(name.as_str()),
            NameChoice::Auto { .. } => None,
        };
        self.read(|c| {
            c.first(
                concat!(
                    select_entries!(),
                    " WHERE e.session = ?1 AND e.hash = ?2 AND e.updated_at = ?3 AND (?4 IS NULL OR e.name = ?4) \
                     ORDER BY e.rowid DESC LIMIT 1"
                ),
                &[
                    Param::Text(&write.session),
                    Param::Text(&write.stats.hash),
                    Param::Int(write.now),
                    Param::OptText(name),
                ],
                entry_from_row,
            )
            .map(|found| found.map(|(_, entry)| entry))
        })
    }
}

/// `<stem>_<n>` with the session's next `n`; the counter's row stays locked until commit, so
/// automatic names never repeat.
fn next_auto_name(
    c: &mut dyn Conn,
    dialect: &Dialect,
    session: &str,
    stem: &str,
) -> Result<String, Fail> {
    loop {
        let seq = c.one(
            "INSERT INTO sessions (name, next_seq) VALUES (?1, 2) \
             ON CONFLICT (name) DO UPDATE SET next_seq = sessions.next_seq + 1 RETURNING next_seq - 1",
            &[Param::Text(session)],
            |r| r.int(0),
        )?;
        let name = format!("{stem}_{seq}");
        lock_name(c, dialect, session, &name)?;
        if find_named(c, dialect, session, &name)?.is_none() {
            return Ok(name);
        }
    }
}

fn commit_entry(
    c: &mut dyn Conn,
    dialect: &Dialect,
    write: &EntryWrite,
    blob: &Settling<'_>,
) -> Result<Entry, Fail> {
    let now = write.now;
    // Released at the end, once the entry points at its new content (see `Dropped`).
    let mut dropped = Dropped::default();
    let (name, existing) = match &write.name {
        NameChoice::Auto { stem } => (next_auto_name(c, dialect, &write.session, stem)?, None),
        NameChoice::Given(name) => {
            lock_name(c, dialect, &write.session, name)?;
            refuse_id_name(c, &write.session, name)?;
            let mut existing = find_named(c, dialect, &write.session, name)?;
            // An expired entry is gone for every purpose but disk space.
            if let Some((key, entry)) = existing.take_if(|(_, e)| e.info.is_expired(now)) {
                remove_row(c, dialect, key, entry.blob, &mut dropped)?;
            }
            (name.clone(), existing)
        }
    };
    match (write.condition, &existing) {
        (WriteCondition::Any, _) | (WriteCondition::CreateOnly, None) => {}
        (WriteCondition::CreateOnly, Some((_, e))) => {
            return Err(Fail::App(Error::Conflict(ConflictKind::Exists {
                name,
                version: e.info.version,
            })));
        }
        (WriteCondition::IfVersion(v), Some((_, e))) => check_version(e, Some(v))?,
        (WriteCondition::IfVersion(v), None) => {
            return Err(Fail::App(Error::Conflict(ConflictKind::Version {
                name,
                expected: v,
                current: None,
            })));
        }
    }
    check_lease(c, dialect, &write.session, &name, write.writer.lease)?;
    let blob_id = settle_blob(c, dialect, &write.stats, blob)?;
    let source = serde_json::to_string(&write.source).unwrap_or_else(|_| "{}".into());
    let meta = serde_json::to_string(&write.meta).unwrap_or_else(|_| "null".into());
    let profile = write
        .profile
        .as_ref()
        .and_then(|p| serde_json::to_string(p).ok());
    let preview = storable(&write.preview);
    // A new entry was created, unless it brings back a removed one.
    let change = match (&existing, &write.restores) {
        (Some(_), _) | (None, Some(_)) => &write.change,
        (None, None) => &Change::Created,
    };
    let summary = serde_json::to_string(change).ok();
    let fields = [
        Param::Text(write.kind.as_str()),
        Param::Int(blob_id),
        Param::count(write.stats.bytes),
        Param::count(write.stats.chars),
        Param::count(write.stats.lines),
        Param::Text(&write.stats.hash),
        Param::Text(&preview),
        Param::OptText(write.source.tool.as_deref()),
        Param::Text(&source),
        Param::Text(&meta),
        Param::OptText(write.turn.as_deref()),
        Param::Int(now),
        Param::OptInt(write.expires_at),
        Param::Bool(write.pinned),
        Param::OptText(profile.as_deref()),
        Param::OptText(write.writer.author.as_deref()),
        Param::OptText(summary.as_deref()),
        Param::Bool(write.keeps_history),
        Param::OptText(write.preview_key.as_deref()),
        // What the entry's row does not hold but a reader needs of its blob.
        Param::Int(i64::from(write.stats.chunks)),
        Param::OptText(write.stats.mime.as_deref()),
    ];
    // The written row comes back whole from the statement that writes it.
    let (key, entry) = match &existing {
        Some((key, old)) => {
            keep_version(
                c,
                *key,
                Some(write.keeps_history),
                &write.writer.history,
                now,
                &mut dropped,
            )?;
            let mut params = vec![Param::Int(*key)];
            params.extend(fields);
            let written = c.one(
                concat!(
                    "UPDATE entries SET kind = ?2, blob = ?3, bytes = ?4, chars = ?5, lines = ?6, hash = ?7, \
                     preview = ?8, tool = ?9, source = ?10, meta = ?11, turn = ?12, updated_at = ?13, \
                     accessed_at = ?13, expires_at = ?14, pinned = ?15, profile = ?16, author = ?17, \
                     summary = ?18, keeps_history = ?19, preview_key = ?20, version = version + 1 \
                     WHERE rowid = ?1 RETURNING ",
                    returned_entry!("?21", "?22")
                ),
                &params,
                entry_from_row,
            )?;
            dropped.push(old.blob);
            written
        }
        None => {
            let id = new_id();
            let mut params = vec![
                Param::Text(&write.session),
                Param::Text(&name),
                Param::Text(&id),
            ];
            params.extend(fields);
            c.one(
                concat!(
                    "INSERT INTO entries (session, name, id, kind, blob, bytes, chars, lines, hash, preview, tool, \
                     source, meta, turn, created_at, updated_at, accessed_at, expires_at, pinned, profile, \
                     author, summary, keeps_history, preview_key, version) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?15, ?15, ?16, \
                     ?17, ?18, ?19, ?20, ?21, ?22, 1) RETURNING ",
                    returned_entry!("?23", "?24")
                ),
                &params,
                entry_from_row,
            )?
        }
    };
    if write.records_usage {
        record_usage(
            c,
            &UsageEvent {
                at: now,
                session: write.session.clone(),
                name: name.clone(),
                tool: write.source.tool.clone(),
                kind: write.kind,
                event: UsageKind::Stored,
                mode: None,
                content_bytes: write.stats.bytes,
                shown_bytes: write.preview.len() as u64,
            },
        )?;
    }
    // A restore is a create (`CreateOnly`): there is no existing entry to give the history to.
    let entry = match &write.restores {
        Some(id) if existing.is_none() => removed::bring_back(c, dialect, &write.session, id, key)?,
        Some(_) | None => entry,
    };
    let search = &write.search_text;
    let whole = matches!(blob.content, content::SettlingContent::Memory([only]) if only == search.as_bytes());
    let body = (!whole).then_some(search.as_str());
    let bytes = search.len() as u64;
    index_search(c, dialect, key, &name, body, bytes, existing.is_some())?;
    dropped.release(c, dialect)?;
    Ok(entry)
}
