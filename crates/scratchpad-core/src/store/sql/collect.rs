//! Collection: expired entries, content nothing refers to, writes whose writer is gone, the quota;
//! and the check of a whole store. Deleting works on a full disk: the backend's reserve is given up
//! for it.

use super::content::{FILE_REFERRED, release_blob, release_pieces};
use super::history::Dropped;
use super::removed::drop_removal;
use super::{Backend, Conn, Fail, Param, SqlStore, delete_row};
use crate::error::{Error, Result};
use crate::store::{GcPolicy, GcReport, USAGE_KEEP_ROWS};

impl<B: Backend> SqlStore<B> {
    /// Runs a write that frees space. On a full disk, the backend's reserve is given up and the
    /// write runs again; the reserve is set aside again once space was freed.
    pub(super) fn freeing<T>(
        &self,
        mut f: impl FnMut(&mut dyn Conn) -> Result<T, Fail>,
    ) -> Result<T> {
        match self.write(&mut f) {
            Err(Error::DiskFull(_)) if self.backend.make_room() => self.write(&mut f),
            other => other,
        }
    }

    /// After space was freed: side files of deleted blobs removed, the reserve set aside again.
    pub(super) fn after_freeing(&self) {
        let _ = self.remove_doomed_files();
        self.backend.restore_reserve();
    }

    pub(super) fn collect(&self, policy: &GcPolicy) -> Result<GcReport> {
        let dialect = self.dialect();
        let before = self.backend.disk_bytes();
        let now = policy.now;
        // Side files of writers that are gone need no database, and free the most: first.
        let (abandoned_files, abandoned_bytes) = self
            .backend
            .side_files()
            .map_or((0, 0), |side| side.remove_abandoned());
        let expired_sql = format!(
            "SELECT rowid, blob FROM entries WHERE expires_at <= ?1 AND NOT pinned{}",
            dialect.lock_skip_locked
        );
        // Staging whose writer is gone (where the backend can tell), or untouched for
        // `stale_after_ms` by the store's clock (a writer refreshes it with every batch); a locked
        // row is one being written right now.
        let stale_sql = format!(
            "DELETE FROM blobs WHERE id IN (SELECT id FROM blobs b WHERE state = 0 \
             AND (touched_at < {} - ?1 OR {}){})",
            dialect.now_ms, dialect.staging_abandoned, dialect.lock_skip_locked
        );
        let past_retention_sql = format!(
            "SELECT rowid FROM removed WHERE keep_until <= ?1{}",
            dialect.lock_skip_locked
        );
        // Under the quota, removed entries go before any live one: they were asked to go.
        let removed_victims_sql = format!(
            "SELECT rowid FROM removed ORDER BY removed_at ASC LIMIT 64{}",
            dialect.lock_skip_locked
        );
        let victims_sql = format!(
            "SELECT rowid, blob FROM entries WHERE NOT pinned ORDER BY accessed_at ASC LIMIT 64{}",
            dialect.lock_skip_locked
        );
        let mut report = self.freeing(|c| {
            let mut report = GcReport::default();
            if let Some(lock) = dialect.lock_gc {
                // One pass at a time per store; a second host's pass waits, then finds little to do.
                c.execute(lock, &[])?;
            }
            let expired = c.rows(&expired_sql, &[Param::Int(now)], |r| {
                Ok((r.int(0)?, r.int(1)?))
            })?;
            for (row, blob) in &expired {
                report.bytes_freed += delete_row(c, dialect, *row, *blob)?;
            }
            report.expired = expired.len() as u64;
            let past_retention = c.rows(&past_retention_sql, &[Param::Int(now)], |r| r.int(0))?;
            for removal in &past_retention {
                let mut dropped = Dropped::default();
                drop_removal(c, *removal, &mut dropped)?;
                report.bytes_freed += dropped.release(c, dialect)?;
            }
            report.removed_purged = past_retention.len() as u64;
            report.stale_writes_removed =
                c.execute(&stale_sql, &[Param::Int(policy.stale_after_ms)])?;
            let orphans = c.rows(
                "SELECT id FROM blobs b WHERE state = 1 AND NOT EXISTS (SELECT 1 FROM entries WHERE blob = b.id) \
                 AND NOT EXISTS (SELECT 1 FROM versions WHERE blob = b.id) \
                 AND NOT EXISTS (SELECT 1 FROM removed_versions WHERE blob = b.id)",
                &[],
                |r| r.int(0),
            )?;
            for blob in orphans {
                let freed = release_blob(c, dialect, blob)?;
                if freed > 0 {
                    report.blobs_removed += 1;
                    report.bytes_freed += freed;
                }
            }
            // Pieces of staging that was abandoned or collected, or that a release left while a
            // writer held them.
            let orphan_pieces = c.rows(
                "SELECT id FROM pieces p WHERE NOT EXISTS (SELECT 1 FROM chunks WHERE piece = p.id)",
                &[],
                |r| r.int(0),
            )?;
            release_pieces(c, dialect, orphan_pieces)?;
            if let Some(quota) = policy.quota_bytes {
                let mut stored = c.one(
                    "SELECT CAST(COALESCE(SUM(bytes), 0) AS BIGINT) FROM blobs",
                    &[],
                    |r| r.count(0),
                )?;
                while stored > quota {
                    let removals = c.rows(&removed_victims_sql, &[], |r| r.int(0))?;
                    if removals.is_empty() {
                        break;
                    }
                    for removal in removals {
                        let mut dropped = Dropped::default();
                        drop_removal(c, removal, &mut dropped)?;
                        let freed = dropped.release(c, dialect)?;
                        report.removed_purged += 1;
                        report.bytes_freed += freed;
                        stored = stored.saturating_sub(freed);
                        if stored <= quota {
                            break;
                        }
                    }
                }
                while stored > quota {
                    let victims = c.rows(&victims_sql, &[], |r| Ok((r.int(0)?, r.int(1)?)))?;
                    if victims.is_empty() {
                        break;
                    }
                    for (row, blob) in victims {
                        let freed = delete_row(c, dialect, row, blob)?;
                        report.evicted += 1;
                        report.bytes_freed += freed;
                        stored = stored.saturating_sub(freed);
                        if stored <= quota {
                            break;
                        }
                    }
                }
            }
            // The usage record keeps its newest lines: enough for any chart, bounded on disk.
            c.execute(
                "DELETE FROM usage WHERE id <= (SELECT MAX(id) FROM usage) - ?1",
                &[Param::Int(USAGE_KEEP_ROWS)],
            )?;
            c.execute(
                "INSERT INTO store_meta (key, value) VALUES ('last_gc_at', ?1) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[Param::Text(&now.to_string())],
            )?;
            Ok(report)
        })?;
        report.stale_writes_removed += abandoned_files;
        report.bytes_freed += abandoned_bytes;
        self.remove_doomed_files()?;
        let (freed, unexpected) = self.remove_orphan_side_files()?;
        report.bytes_freed += freed;
        report.unexpected = unexpected;
        self.backend.reclaim_space(&report, policy.compact);
        self.backend.restore_reserve();
        report.unexpected.extend(self.backend.unexpected_files());
        report.disk_bytes_before = before;
        report.disk_bytes_after = self.backend.disk_bytes();
        Ok(report)
    }

    /// Removes committed side files no blob refers to: left by a writer that died between naming
    /// its file and committing, or by a crash before a deleted blob's file was removed. Under the
    /// write lock, which every naming of a side file holds too. Returns the bytes freed, and what
    /// the store did not make in its side-file folders (left alone).
    fn remove_orphan_side_files(&self) -> Result<(u64, Vec<String>)> {
        let Some(side) = self.backend.side_files() else {
            return Ok((0, Vec::new()));
        };
        let survey = side.survey()?;
        let unexpected = survey.unexpected.iter().map(ToString::to_string).collect();
        if survey.committed.is_empty() {
            return Ok((0, unexpected));
        }
        let freed = self.write(|c| {
            let mut freed = 0;
            for (hash, bytes) in &survey.committed {
                let referred = c
                    .first(FILE_REFERRED, &[Param::Text(hash)], |_| Ok(()))?
                    .is_some();
                if !referred {
                    side.remove(hash)?;
                    freed += bytes;
                }
            }
            Ok(freed)
        })?;
        Ok((freed, unexpected))
    }
}
