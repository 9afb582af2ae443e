//! Leases: one holder at a time may claim a name for a while, and every claim gets a fencing token
//! that only grows. A change that carries a token is refused by the store once a newer token was
//! issued for that name, so a holder that paused past its expiry cannot overwrite its successor's
//! work. Every time of a lease is the store's clock (PostgreSQL's on the shared backend), so hosts
//! whose clocks disagree still agree on who holds what.

use serde::Serialize;

/// A lease on a name, as the store last saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lease {
    pub name: String,
    /// Who holds or last held it; `None` once released.
    pub holder: Option<String>,
    /// The fencing token of the latest claim: one more than the claim before, never reused.
    pub token: u64,
    /// When the latest claim was made (unix ms, the store's clock).
    pub acquired_at: i64,
    /// When it ends unless renewed (unix ms, the store's clock).
    pub expires_at: i64,
    /// The store's clock when this was read: the lease has `expires_at - now` left, whatever the
    /// reader's own clock says.
    pub now: i64,
}

impl Lease {
    /// Claimed, not released, and not yet expired by the store's clock.
    pub fn is_held(&self) -> bool {
        self.holder.is_some() && self.expires_at > self.now
    }

    /// Milliseconds left by the store's clock (0 once expired or released).
    pub fn remaining_ms(&self) -> i64 {
        if self.holder.is_some() {
            (self.expires_at - self.now).max(0)
        } else {
            0
        }
    }

    /// The holder, whether the lease is still held or has lapsed.
    pub fn state(&self) -> LeaseState {
        match (&self.holder, self.is_held()) {
            (None, _) => LeaseState::Released,
            (Some(_), true) => LeaseState::Held,
            (Some(_), false) => LeaseState::Expired,
        }
    }
}

/// Where a lease stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LeaseState {
    Held,
    Expired,
    Released,
}

impl LeaseState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Held => "held",
            Self::Expired => "expired",
            Self::Released => "released",
        }
    }
}

/// What to do with a lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseOp<'a> {
    /// Claim it for `ttl_ms` unless someone holds it: a new token.
    Acquire { holder: &'a str, ttl_ms: i64 },
    /// Extend the claim that `token` made to `ttl_ms` from now, unless a newer token was issued.
    Renew { token: u64, ttl_ms: i64 },
    /// Give up the claim that `token` made (again: no change).
    Release { token: u64 },
}
