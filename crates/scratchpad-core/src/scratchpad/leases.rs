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

    /// Extends the claim that `token` made to `ttl` from now. Refused once a newer token was
    /// issued for the name ([`ConflictKind::Fenced`](crate::ConflictKind::Fenced)); a lapsed
    /// lease nobody claimed since is renewed.
    pub fn renew_lease(&self, name: &str, token: u64, ttl: Duration) -> Result<Lease> {
        validate_name("name", name)?;
        self.store.lease(
            &self.session,
            name,
            LeaseOp::Renew {
                token,
                ttl_ms: ttl_ms(ttl)?,
            },
        )
    }

    /// Gives up the claim that `token` made, so another holder may acquire the name at once.
    /// Releasing again changes nothing.
    pub fn release_lease(&self, name: &str, token: u64) -> Result<Lease> {
        validate_name("name", name)?;
        self.store
            .lease(&self.session, name, LeaseOp::Release { token })
    }

    /// The lease on `name` as the store sees it now, if it was ever acquired.
    pub fn lease(&self, name: &str) -> Result<Option<Lease>> {
        validate_name("name", name)?;
        self.store.lease_info(&self.session, name)
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
