//! The check of a whole store: every content read back chunk by chunk, each chunk against its
//! checksum, the chunks against the index (no gap, no overlap, the count the blob records), and
//! the whole against its blake3 hash. What is damaged is reported with the entries it hits.

use super::content::FILE_REFERRED;
use super::{Backend, Param, SqlStore};
use crate::error::{Error, Result};
use crate::store::{CheckProblem, CheckReport};

impl<B: Backend> SqlStore<B> {
    pub(super) fn check_all(&self, progress: &mut dyn FnMut(u64)) -> Result<CheckReport> {
        let mut report = CheckReport::default();
        let blobs = self.read(|c| {
            c.rows(
                "SELECT id, hash, bytes, chunks FROM blobs WHERE state = 1 ORDER BY id",
                &[],
                |r| Ok((r.int(0)?, r.text(1)?, r.count(2)?, r.count(3)?)),
            )
        })?;
        for (blob, hash, bytes, chunk_count) in blobs {
            let problem =
                match self.check_blob(blob, &hash, bytes, chunk_count, &mut report, progress) {
                    Ok(()) => continue,
                    // Gone since it was listed: replaced or collected, nothing to check.
                    Err(Error::Raced(_)) => continue,
                    Err(Error::Corrupt(what)) => what,
                    Err(other) => return Err(other),
                };
            let entries = self.read(|c| {
                c.rows(
                    "SELECT session, name FROM entries WHERE blob = ?1 \
                     UNION SELECT e.session, e.name || ' (version ' || v.version || ')' \
                     FROM versions v JOIN entries e ON e.rowid = v.entry WHERE v.blob = ?1 \
                     UNION SELECT r.session, r.name || ' (removed ' || r.id || ', version ' || v.version || ')' \
                     FROM removed_versions v JOIN removed r ON r.rowid = v.removal WHERE v.blob = ?1",
                    &[Param::Int(blob)],
                    |r| Ok((r.text(0)?, r.text(1)?)),
                )
            })?;
            report.problems.push(CheckProblem {
                what: problem,
                entries,
            });
        }
        if let Some(side) = self.backend.side_files() {
            let survey = side.survey()?;
            for (hash, bytes) in survey.committed {
                let referred =
                    self.read(|c| c.first(FILE_REFERRED, &[Param::Text(&hash)], |_| Ok(())))?;
                if referred.is_none() {
                    report.unreferenced_files += 1;
                    report.unreferenced_bytes += bytes;
                }
            }
            report.unexpected = survey.unexpected.iter().map(ToString::to_string).collect();
        }
        report.unexpected.extend(self.backend.unexpected_files());
        Ok(report)
    }

    fn check_blob(
        &self,
        blob: i64,
        hash: &str,
        bytes: u64,
        chunk_count: u64,
        report: &mut CheckReport,
        progress: &mut dyn FnMut(u64),
    ) -> Result<()> {
        let index = self.read(|c| {
            c.rows(
                "SELECT c.seq, c.byte_start, COALESCE(p.checksum, c.checksum) IS NULL \
                 FROM chunks c LEFT JOIN pieces p ON p.id = c.piece WHERE c.blob = ?1 ORDER BY c.seq",
                &[Param::Int(blob)],
                |r| Ok((r.count(0)?, r.count(1)?, r.flag(2)?)),
            )
        })?;
        if index.len() as u64 != chunk_count {
            return Err(Error::Corrupt(format!(
                "content {hash:.16}… has {} chunks where {chunk_count} were written",
                index.len()
            )));
        }
        let mut hasher = blake3::Hasher::new();
        let mut at = 0u64;
        for (expected_seq, (seq, byte_start, unverified)) in index.into_iter().enumerate() {
            if seq != expected_seq as u64 || byte_start != at {
                return Err(Error::Corrupt(format!(
                    "the index of content {hash:.16}… has a gap or an overlap at chunk {seq} (byte {at})"
                )));
            }
            let data = self.read_chunk(blob, u32::try_from(seq).unwrap_or(u32::MAX))?;
            hasher.update(&data);
            at += data.len() as u64;
            report.chunks += 1;
            report.bytes += data.len() as u64;
            if unverified {
                report.chunks_without_checksum += 1;
            }
            progress(report.bytes);
        }
        if at != bytes {
            return Err(Error::Corrupt(format!(
                "content {hash:.16}… holds {at} bytes where {bytes} were written"
            )));
        }
        if hasher.finalize().to_hex().as_str() != hash {
            return Err(Error::Corrupt(format!(
                "content {hash:.16}… does not match its blake3 hash"
            )));
        }
        report.blobs += 1;
        Ok(())
    }
}
