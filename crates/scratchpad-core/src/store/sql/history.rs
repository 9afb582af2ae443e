//! Teams of agents: leases with fencing tokens, checked inside the writes that carry them, and the
//! versions a change replaces, kept as references to blobs like entries are.

use super::content::release_blob;
use super::*;
use crate::lease::LeaseState;

/// Times a claim is tried again when the lease it lost to was let go in the meantime.
const LEASE_CLAIM_ATTEMPTS: usize = 8;

/// The columns a [`Lease`] is read from, with the store's clock last.
pub(super) fn lease_sql(dialect: &Dialect, lock: bool) -> String {
    format!(
        "SELECT name, holder, token, acquired_at, expires_at, released_at, {} FROM leases \
         WHERE session = ?1 AND name = ?2{}",
        dialect.now_ms,
        if lock { dialect.lock } else { "" }
    )
}

pub(super) fn lease_from_row(row: &dyn Row) -> Result<Lease, Fail> {
    Ok(Lease {
        name: row.text(0)?,
        holder: row.opt_text(1)?,
        token: row.count(2)?,
        acquired_at: row.int(3)?,
        expires_at: row.int(4)?,
        released_at: row.opt_int(5)?,
        now: row.int(6)?,
    })
}

pub(super) fn find_lease(
    c: &mut dyn Conn,
    dialect: &Dialect,
    session: &str,
    name: &str,
    lock: bool,
) -> Result<Option<Lease>, Fail> {
    c.first(
        &lease_sql(dialect, lock),
        &[Param::Text(session), Param::Text(name)],
        lease_from_row,
    )
}

/// The fencing rule: a change carrying lease `token` goes ahead only while no newer token was
/// issued for `name` and its claim was not released. The lease row stays locked until the change
/// commits, so a new claim waits for it and a change never lands after its successor's claim.
pub(super) fn check_lease(
    c: &mut dyn Conn,
    dialect: &Dialect,
    session: &str,
    name: &str,
    token: Option<u64>,
) -> Result<(), Fail> {
    let Some(token) = token else {
        return Ok(());
    };
    match find_lease(c, dialect, session, name, true)? {
        None => Err(Fail::App(Error::Conflict(ConflictKind::NoLease {
            name: name.to_owned(),
            token,
        }))),
        Some(lease) if lease.token > token => {
            Err(Fail::App(Error::Conflict(ConflictKind::Fenced {
                token,
                lease,
            })))
        }
        Some(lease) if lease.token < token => Err(never_issued(token, &lease)),
        Some(lease) if lease.state() == LeaseState::Released => {
            Err(Fail::App(Error::Conflict(ConflictKind::Released {
                token,
                lease,
            })))
        }
        Some(_) => Ok(()),
    }
}

pub(super) fn never_issued(token: u64, lease: &Lease) -> Fail {
    Fail::App(Error::invalid(format!(
        "lease token {token} was never issued for `{}` (the newest is {}); pass the token that \
         acquiring the lease printed",
        lease.name, lease.token
    )))
}

/// Acquires, renews or releases a lease in one transaction, every time by the store's clock: read
/// once per statement, so a lease lasts exactly what was asked from the moment it is judged.
pub(super) fn change_lease(
    c: &mut dyn Conn,
    dialect: &Dialect,
    session: &str,
    name: &str,
    op: LeaseOp<'_>,
) -> Result<Lease, Fail> {
    let clock = format!("SELECT {}", dialect.now_ms);
    // The clock is ?5; a new expiry ?4.
    let returning =
        "RETURNING name, holder, token, acquired_at, expires_at, released_at, CAST(?5 AS BIGINT)";
    let key = [Param::Text(session), Param::Text(name)];
    match op {
        LeaseOp::Acquire { holder, ttl_ms } => {
            c.execute(
                "INSERT INTO leases (session, name, holder, token, acquired_at, expires_at, released_at) \
                 VALUES (?1, ?2, NULL, 0, 0, 0, 0) ON CONFLICT (session, name) DO NOTHING",
                &key,
            )?;
            // The row's lock first, the clock after it: a claim that waited for a holder's release
            // reads a clock that is past the release (PostgreSQL; SQLite's write lock is the whole
            // store, taken at the start).
            c.first(
                &format!(
                    "SELECT e.token FROM leases e WHERE e.session = ?1 AND e.name = ?2{}",
                    dialect.lock_entries
                ),
                &key,
                |r| r.int(0),
            )?;
            let sql = format!(
                "UPDATE leases SET token = token + 1, holder = ?3, acquired_at = ?5, expires_at = ?4, \
                 released_at = NULL WHERE session = ?1 AND name = ?2 \
                 AND (released_at IS NOT NULL OR holder IS NULL OR expires_at <= ?5) {returning}"
            );
            // The lease may lapse between the claim and the look at who holds it (the clock moves
            // on): then claim again.
            for _ in 0..LEASE_CLAIM_ATTEMPTS {
                let now = c.one(&clock, &[], |r| r.int(0))?;
                let params = [
                    key[0],
                    key[1],
                    Param::Text(holder),
                    Param::Int(now.saturating_add(ttl_ms)),
                    Param::Int(now),
                ];
                if let Some(lease) = c.first(&sql, &params, lease_from_row)? {
                    return Ok(lease);
                }
                match find_lease(c, dialect, session, name, false)? {
                    Some(lease) if lease.is_held() => {
                        return Err(Fail::App(Error::Conflict(ConflictKind::Leased(lease))));
                    }
                    _ => {}
                }
            }
            Err(Fail::App(Error::Raced(name.to_owned())))
        }
        LeaseOp::Renew {
            token,
            holder,
            ttl_ms,
        } => {
            let now = c.one(&clock, &[], |r| r.int(0))?;
            let sql = format!(
                "UPDATE leases SET expires_at = ?4 \
                 WHERE session = ?1 AND name = ?2 AND token = ?3 AND holder = ?6 \
                 AND released_at IS NULL {returning}"
            );
            let params = [
                key[0],
                key[1],
                Param::count(token),
                Param::Int(now.saturating_add(ttl_ms)),
                Param::Int(now),
                Param::Text(holder),
            ];
            if let Some(lease) = c.first(&sql, &params, lease_from_row)? {
                return Ok(lease);
            }
            Err(lease_refused(c, dialect, session, name, token, holder)?)
        }
        LeaseOp::Release { token, holder } => {
            let now = c.one(&clock, &[], |r| r.int(0))?;
            let sql = "UPDATE leases SET released_at = ?4, expires_at = ?4 \
                 WHERE session = ?1 AND name = ?2 AND token = ?3 AND holder = ?5 \
                 AND released_at IS NULL \
                 RETURNING name, holder, token, acquired_at, expires_at, released_at, CAST(?4 AS BIGINT)";
            let params = [
                key[0],
                key[1],
                Param::count(token),
                Param::Int(now),
                Param::Text(holder),
            ];
            if let Some(lease) = c.first(sql, &params, lease_from_row)? {
                return Ok(lease);
            }
            // Released already by its holder, with this very token: nothing to do.
            match find_lease(c, dialect, session, name, false)? {
                Some(lease)
                    if lease.token == token
                        && lease.state() == LeaseState::Released
                        && lease.is_holder(holder) =>
                {
                    Ok(lease)
                }
                _ => Err(lease_refused(c, dialect, session, name, token, holder)?),
            }
        }
    }
}

/// Why a renewal or release with `token`, by `caller`, found nothing to change.
pub(super) fn lease_refused(
    c: &mut dyn Conn,
    dialect: &Dialect,
    session: &str,
    name: &str,
    token: u64,
    caller: &str,
) -> Result<Fail, Fail> {
    Ok(match find_lease(c, dialect, session, name, false)? {
        None => Fail::App(Error::Conflict(ConflictKind::NoLease {
            name: name.to_owned(),
            token,
        })),
        Some(lease) if lease.token > token => {
            Fail::App(Error::Conflict(ConflictKind::Fenced { token, lease }))
        }
        Some(lease) if lease.token < token => never_issued(token, &lease),
        Some(lease) if !lease.is_holder(caller) => {
            Fail::App(Error::Conflict(ConflictKind::NotHolder {
                caller: caller.trim().to_owned(),
                lease: Box::new(lease),
            }))
        }
        Some(lease) if lease.state() == LeaseState::Released => {
            Fail::App(Error::Conflict(ConflictKind::Released { token, lease }))
        }
        // The row matched what the change asked for, yet it changed nothing: it moved meanwhile.
        Some(_) => Fail::App(Error::Raced(name.to_owned())),
    })
}

/// Before an entry changes: keeps its current version (content by reference) when the entry keeps
/// history, then drops what the policy no longer keeps; their content is released with `dropped`.
/// `keep: None` asks the entry itself.
pub(super) fn keep_version(
    c: &mut dyn Conn,
    key: i64,
    keep: Option<bool>,
    policy: &HistoryPolicy,
    now: i64,
    dropped: &mut Dropped,
) -> Result<(), Fail> {
    let keep = match keep {
        Some(keep) => keep,
        None => c.one(
            "SELECT keeps_history FROM entries WHERE rowid = ?1",
            &[Param::Int(key)],
            |r| r.flag(0),
        )?,
    };
    if !keep {
        return Ok(());
    }
    if policy.versions > 0 {
        c.execute(
            "INSERT INTO versions (entry, version, blob, kind, bytes, chars, lines, hash, author, summary, \
             written_at, replaced_at) \
             SELECT rowid, version, blob, kind, bytes, chars, lines, hash, author, summary, updated_at, ?2 \
             FROM entries WHERE rowid = ?1 ON CONFLICT (entry, version) DO NOTHING",
            &[Param::Int(key), Param::Int(now)],
        )?;
    }
    let oldest_kept = policy
        .max_age_ms
        .map_or(i64::MIN, |age| now.saturating_sub(age));
    let trimmed = c.rows(
        "DELETE FROM versions WHERE entry = ?1 AND (replaced_at < ?3 OR version <= \
         (SELECT version FROM versions WHERE entry = ?1 ORDER BY version DESC LIMIT 1 OFFSET ?2)) \
         RETURNING blob",
        &[
            Param::Int(key),
            Param::Int(i64::from(policy.versions)),
            Param::Int(oldest_kept),
        ],
        |r| r.int(0),
    )?;
    dropped.0.extend(trimmed);
    Ok(())
}

/// Records who made the entry's current version and what the change did.
pub(super) fn record_change(
    c: &mut dyn Conn,
    key: i64,
    author: Option<&str>,
    change: &Change,
    keeps_history: Option<bool>,
) -> Result<(), Fail> {
    let summary = serde_json::to_string(change).ok();
    c.execute(
        "UPDATE entries SET author = ?2, summary = ?3, keeps_history = COALESCE(?4, keeps_history) \
         WHERE rowid = ?1",
        &[
            Param::Int(key),
            Param::OptText(author),
            Param::OptText(summary.as_deref()),
            match keeps_history {
                Some(keeps) => Param::Bool(keeps),
                None => Param::OptInt(None),
            },
        ],
    )?;
    Ok(())
}

/// What a metadata change did, and whether it changes the entry's keeping of history: a renamed
/// output becomes a note, which keeps its history.
pub(super) fn summarize(entry: &Entry, change: &EntryChange) -> (Change, Option<bool>) {
    match change {
        EntryChange::Rename(_) => (
            Change::Renamed {
                from: entry.info.name.clone(),
            },
            Some(true),
        ),
        EntryChange::Pin(true) => (Change::Pinned, None),
        EntryChange::Pin(false) => (Change::Unpinned, None),
        EntryChange::ExpiresAt(at) => (Change::Lifetime { expires_at: *at }, None),
        EntryChange::Meta(_) | EntryChange::CompleteMeta(_) => (Change::Meta, None),
    }
}

/// Removes an entry's kept versions; returns the blobs they pointed at, to release once the
/// entry itself is gone.
pub(super) fn drop_versions(c: &mut dyn Conn, key: i64) -> Result<Vec<i64>, Fail> {
    c.rows(
        "DELETE FROM versions WHERE entry = ?1 RETURNING blob",
        &[Param::Int(key)],
        |r| r.int(0),
    )
}

/// Blobs a transaction stopped pointing at, released together at its end, once every reference
/// the transaction makes is in place. Content is stored once per hash, so a write may drop a
/// reference to a blob (a version the history no longer keeps) and take one to the same blob (its
/// new content is that version's): released at once, the blob would be freed under the write.
#[derive(Debug, Default)]
pub(super) struct Dropped(pub Vec<i64>);

impl Dropped {
    pub(super) fn push(&mut self, blob: i64) {
        self.0.push(blob);
    }

    /// Frees what nothing points at any more; returns the bytes freed.
    pub(super) fn release(self, c: &mut dyn Conn, dialect: &Dialect) -> Result<u64, Fail> {
        release_blobs(c, dialect, self.0)
    }
}

/// Releases each blob once; returns the bytes freed.
pub(super) fn release_blobs(
    c: &mut dyn Conn,
    dialect: &Dialect,
    mut blobs: Vec<i64>,
) -> Result<u64, Fail> {
    blobs.sort_unstable();
    blobs.dedup();
    let mut freed = 0;
    for blob in blobs {
        freed += release_blob(c, dialect, blob)?;
    }
    Ok(freed)
}

/// Reads `version, kind, bytes, chars, lines, hash, author, summary, written_at`.
pub(super) fn version_from_row(row: &dyn Row) -> Result<VersionInfo, Fail> {
    let kind = row.text(1)?;
    Ok(VersionInfo {
        version: row.count(0)?,
        kind: Kind::parse(&kind).map_err(|_| {
            Fail::App(Error::Storage(format!(
                "a kept version of an unknown kind `{kind}`; the store is damaged"
            )))
        })?,
        bytes: row.count(2)?,
        chars: row.count(3)?,
        lines: row.count(4)?,
        hash: row.text(5)?,
        author: row.opt_text(6)?,
        change: row
            .opt_text(7)?
            .and_then(|json| serde_json::from_str(&json).ok()),
        written_at: row.int(8)?,
    })
}
