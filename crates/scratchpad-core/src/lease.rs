//! Leases: one holder at a time may claim a name for a while, and every claim gets a fencing token
//! that only grows. A change that carries a token is refused by the store once a newer token was
//! issued for that name, or once the claim was released, so a holder that paused past its expiry
//! cannot overwrite its successor's work. Only the holder renews or releases its claim: the token
//! is no secret (anyone may look at a lease), the holder's name is what is checked. Every time of a
//! lease is the store's clock (PostgreSQL's on the shared backend), so hosts whose clocks disagree
//! still agree on who holds what.

use serde::Serialize;

/// A lease on a name, as the store last saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lease {
    pub name: String,
    /// Who holds or last held it (`None` for leases released before holders were kept).
    pub holder: Option<String>,
    /// The fencing token of the latest claim: one more than the claim before, never reused.
    pub token: u64,
    /// When the latest claim was made (unix ms, the store's clock).
    pub acquired_at: i64,
    /// When it ends unless renewed (unix ms, the store's clock); when it ended, once released.
    pub expires_at: i64,
    /// When its holder released it (unix ms, the store's clock); `None` while it is claimed.
    pub released_at: Option<i64>,
    /// The store's clock when this was read: the lease has `expires_at - now` left, whatever the
    /// reader's own clock says.
    pub now: i64,
}

impl Lease {
    /// Claimed, not released, and not yet expired by the store's clock.
    pub fn is_held(&self) -> bool {
        self.state() == LeaseState::Held
    }

    /// Milliseconds left by the store's clock (0 once expired or released).
    pub fn remaining_ms(&self) -> i64 {
        match self.state() {
            LeaseState::Held => self.expires_at - self.now,
            LeaseState::Expired | LeaseState::Released => 0,
        }
    }

    /// Held, lapsed, or released.
    pub fn state(&self) -> LeaseState {
        if self.released_at.is_some() || self.holder.is_none() {
            LeaseState::Released
        } else if self.expires_at > self.now {
            LeaseState::Held
        } else {
            LeaseState::Expired
        }
    }

    /// Whether `holder` made the latest claim (names compare as given, without surrounding blanks).
    pub fn is_holder(&self, holder: &str) -> bool {
        self.holder.as_deref() == Some(holder.trim())
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
    /// Extend the claim that `token` made to `ttl_ms` from now, unless a newer token was issued
    /// or the claim was released; only its holder may.
    Renew {
        token: u64,
        holder: &'a str,
        ttl_ms: i64,
    },
    /// Give up the claim that `token` made (again: no change); only its holder may.
    Release { token: u64, holder: &'a str },
}
