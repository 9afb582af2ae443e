//! How long a writer that collided with another waits before it tries again: shared by the engine's
//! retries and the PostgreSQL store's, so both back off the same way.

/// How long the `retry`-th retry after a collision with another writer waits: nothing at first,
/// then a doubling pause (capped at 50 ms: 313 ms over a read's retries) cut by a random part of
/// up to half, so that processes that collided once do not collide again in step.
pub(crate) fn retry_pause(retry: u32) -> std::time::Duration {
    if retry == 0 {
        return std::time::Duration::ZERO;
    }
    let full_us = (1000u64 << (retry - 1).min(6)).min(50_000);
    let cut = getrandom::u64().map_or(0, |r| r % (full_us / 2));
    std::time::Duration::from_micros(full_us - cut)
}
