//! How the store stays within bounds: collection passes on open, amortized over writes, and when
//! the quota is crossed.

use std::sync::atomic::Ordering;

use super::Scratchpad;
use crate::error::Result;
use crate::model::now_ms;
use crate::store::{GcPolicy, GcReport};

/// Writes between two amortized collection passes.
const GC_EVERY_WRITES: u64 = 256;
/// A pass on open runs at most this often (ms).
const GC_ON_OPEN_INTERVAL_MS: i64 = 10 * 60 * 1000;
/// Staged writes with no progress for this long are abandoned (ms).
const STALE_WRITE_MS: i64 = 60 * 60 * 1000;

impl Scratchpad {
    /// Expires, evicts over quota, drops abandoned writes and returns disk space, store-wide.
    pub fn gc(&self) -> Result<GcReport> {
        self.collect(true)
    }

    /// A collection pass; `compact` gives back even a little free space (see
    /// [`GcPolicy::compact`]).
    fn collect(&self, compact: bool) -> Result<GcReport> {
        let now = now_ms();
        // Old versions first: the pass then counts what they freed against the quota.
        let (versions_removed, freed) = self
            .store
            .prune_history(&self.config.history_policy(), now)?;
        let mut report = self.store.gc(&GcPolicy {
            now,
            quota_bytes: self.config.quota_bytes,
            stale_after_ms: STALE_WRITE_MS,
            compact,
        })?;
        report.versions_removed = versions_removed;
        report.bytes_freed += freed;
        Ok(report)
    }

    /// Reads every content of the store back (all sessions) and verifies it; `progress` hears the
    /// bytes checked so far.
    pub fn check(&self, progress: &mut dyn FnMut(u64)) -> Result<crate::store::CheckReport> {
        self.store.check(progress)
    }

    pub(super) fn gc_if_due(&self) -> Result<()> {
        let due = self
            .store
            .last_gc_at()?
            .is_none_or(|at| now_ms() - at > GC_ON_OPEN_INTERVAL_MS);
        if due {
            self.collect(false)?;
        }
        Ok(())
    }

    /// Upkeep after a write that committed: its failure (a full disk) is not the write's, so it
    /// is not reported; the next pass tries again.
    pub(super) fn after_write(&self, bytes: u64) {
        let writes = self.writes.fetch_add(1, Ordering::Relaxed) + 1;
        // Summing the store is not free: check the quota once a hundredth of it has been written.
        let over_quota = match self.config.quota_bytes {
            Some(quota) => {
                let written = self.written_since_check.fetch_add(bytes, Ordering::Relaxed) + bytes;
                if written >= quota / 100 {
                    self.written_since_check.store(0, Ordering::Relaxed);
                    self.store.stored_bytes().is_ok_and(|stored| stored > quota)
                } else {
                    false
                }
            }
            None => false,
        };
        if over_quota || writes.is_multiple_of(GC_EVERY_WRITES) {
            let _ = self.collect(false);
        }
    }
}
