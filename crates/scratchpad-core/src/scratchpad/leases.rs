//! Who may change a name for a while: leases with fencing tokens, judged by the store's clock.

use std::time::Duration;

use super::Scratchpad;
use crate::error::{Error, Result};
use crate::lease::{Lease, LeaseOp};
use crate::model::{validate_author, validate_name};

impl Scratchpad {
    /// Claims `name` for `holder` for `ttl` and returns the lease with its new fencing token. A
    /// lease someone holds, unexpired by the store's clock, is a conflict naming the holder and
    /// when it expires ([`ConflictKind::Leased`](crate::ConflictKind::Leased)). Carry the token
    /// on the changes the lease guards ([`with_lease`](Self::with_lease)).
    ///
    /// ```
    /// use std::time::Duration;
    /// use scratchpad_core::{ConflictKind, Error, Scratchpad, WriteOptions};
    ///
    /// # fn main() -> scratchpad_core::Result<()> {
    /// # let dir = tempfile::tempdir()?;
    /// let pad = Scratchpad::open(&format!("sqlite://{}/pad.db", dir.path().display()))?;
    /// let a = pad.with_author("agent-a")?;
    /// let lease = a.acquire_lease("plan", "agent-a", Duration::from_millis(50))?;
    /// a.with_lease(Some(lease.token))
    ///     .write("plan", "1. profile the parser", WriteOptions::default())?;
    ///
    /// // While it lasts, nobody else gets it.
    /// let held = pad.acquire_lease("plan", "agent-b", Duration::from_secs(60));
    /// assert!(matches!(held, Err(Error::Conflict(ConflictKind::Leased(_)))));
    ///
    /// // Once it lapsed, B takes over and writes; A's late write with its old token is refused.
    /// std::thread::sleep(Duration::from_millis(60));
    /// let b = pad.with_author("agent-b")?;
    /// let next = b.acquire_lease("plan", "agent-b", Duration::from_secs(60))?;
    /// b.with_lease(Some(next.token))
    ///     .write("plan", "1. cache tokens", WriteOptions::default())?;
    /// let late = a
    ///     .with_lease(Some(lease.token))
    ///     .write("plan", "1. rewrite the lexer", WriteOptions::default());
    /// assert!(matches!(late, Err(Error::Conflict(ConflictKind::Fenced { .. }))));
    /// assert_eq!(pad.history("plan")?.versions.len(), 2);
    /// # Ok(()) }
    /// ```
    pub fn acquire_lease(&self, name: &str, holder: &str, ttl: Duration) -> Result<Lease> {
        validate_name("name", name)?;
        validate_author(holder)?;
        self.store.lease(
            &self.session,
            name,
            LeaseOp::Acquire {
                holder: holder.trim(),
                ttl_ms: ttl_ms(ttl)?,
            },
        )
    }

    /// Extends the claim that `token` made to `ttl` from now; only `holder`, who made the claim,
    /// may ([`ConflictKind::NotHolder`](crate::ConflictKind::NotHolder) names who holds it).
    /// Refused once a newer token was issued for the name
    /// ([`ConflictKind::Fenced`](crate::ConflictKind::Fenced)) or the claim was released
    /// ([`ConflictKind::Released`](crate::ConflictKind::Released)); a lapsed lease nobody claimed
    /// since is renewed.
    pub fn renew_lease(
        &self,
        name: &str,
        token: u64,
        holder: &str,
        ttl: Duration,
    ) -> Result<Lease> {
        validate_name("name", name)?;
        validate_author(holder)?;
        self.store.lease(
            &self.session,
            name,
            LeaseOp::Renew {
                token,
                holder: holder.trim(),
                ttl_ms: ttl_ms(ttl)?,
            },
        )
    }

    /// Gives up the claim that `token` made, so another holder may acquire the name at once; only
    /// `holder`, who made the claim, may. Its token guards no change from then on. Releasing
    /// again changes nothing.
    pub fn release_lease(&self, name: &str, token: u64, holder: &str) -> Result<Lease> {
        validate_name("name", name)?;
        validate_author(holder)?;
        self.store.lease(
            &self.session,
            name,
            LeaseOp::Release {
                token,
                holder: holder.trim(),
            },
        )
    }

    /// The lease on `name` as the store sees it now, if it was ever acquired.
    pub fn lease(&self, name: &str) -> Result<Option<Lease>> {
        validate_name("name", name)?;
        self.store.lease_info(&self.session, name)
    }
    /// The leases held on names of this session now (not lapsed, not released), by name.
    pub fn held_leases(&self) -> Result<Vec<Lease>> {
        Ok(self
            .store
            .leases(&self.session)?
            .into_iter()
            .filter(Lease::is_held)
            .collect())
    }
}

/// A lease's length in milliseconds: at least one, at most a year.
fn ttl_ms(ttl: Duration) -> Result<i64> {
    const YEAR_MS: u128 = 365 * 86_400_000;
    match ttl.as_millis() {
        0 => Err(Error::invalid(
            "a lease must last at least a millisecond; give a duration such as 60s or 10m",
        )),
        ms if ms > YEAR_MS => Err(Error::invalid(
            "a lease lasts at most a year; renew it instead of asking for longer",
        )),
        ms => Ok(i64::try_from(ms).unwrap_or(i64::MAX)),
    }
}
