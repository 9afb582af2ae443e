//! Running a step again after a collision with another writer, with a pause that grows.

use crate::error::{ConflictKind, Error, Result};
use crate::pause::retry_pause;

/// Times a read starts again after a concurrent overwrite freed what it was reading.
pub(super) const READ_RETRIES: u32 = 12;
/// Times an append or edit that gave no version starts again after another writer got in first:
/// about two seconds of pauses, enough for a writer that keeps losing to a few others in tight
/// loops on a loaded machine.
const UPDATE_RETRIES: u32 = 48;

/// Runs an update of a note again, after a pause, when another writer changed the note first,
/// unless the caller named the version it meant to change: then that is their conflict to see.
pub(super) fn retry_unversioned<T>(
    if_version: Option<u64>,
    mut update: impl FnMut() -> Result<T>,
) -> Result<T> {
    if if_version.is_some() {
        return update();
    }
    // Another writer's version is worth another look; a lease someone else holds is not.
    retry_while(
        UPDATE_RETRIES,
        |err| {
            matches!(
                err,
                Error::Conflict(ConflictKind::Version { .. } | ConflictKind::Exists { .. })
                    | Error::Raced(_)
            )
        },
        update,
    )
}

/// Runs `attempt` again, up to `retries` times with a growing pause, while it fails with an error
/// `retryable` accepts. Writers in a tight loop could win every immediate retry.
pub(super) fn retry_while<T>(
    retries: u32,
    retryable: impl Fn(&Error) -> bool,
    mut attempt: impl FnMut() -> Result<T>,
) -> Result<T> {
    let mut retry = 0;
    loop {
        match attempt() {
            Err(err) if retry < retries && retryable(&err) => {
                std::thread::sleep(retry_pause(retry));
                retry += 1;
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raced_reads_back_off_within_a_third_of_a_second() {
        use std::time::Duration;
        assert_eq!(retry_pause(0), Duration::ZERO);
        let pauses: Vec<Duration> = (1..READ_RETRIES).map(retry_pause).collect();
        assert!(pauses[0] >= Duration::from_micros(500) && pauses[0] <= Duration::from_millis(1));
        assert!(pauses.iter().all(|p| *p <= Duration::from_millis(50)));
        let total: Duration = pauses.iter().sum();
        assert!(total <= Duration::from_millis(313), "{total:?}");
        assert!(total >= Duration::from_millis(156), "{total:?}");
    }
}
