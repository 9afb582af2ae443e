//! Leases with fencing tokens, on every backend: one holder at a time, tokens that only grow, and
//! a holder whose lease lapsed cannot overwrite its successor's work.

use std::time::{Duration, Instant};

use scratchpad_core::{ConflictKind, Error, LeaseState, ReadMode, Scratchpad, WriteOptions};

use crate::common::{Backend, spawn_child};

const RACERS: usize = 3;
const CLAIMS: usize = 12;

/// Runs in each child: claims `job` again and again; while holding it, writes it with the token
/// and checks that nobody else wrote in between, then logs the claim's interval by the store's
/// clock and releases it.
#[test]
#[ignore = "runs only as the child of racing_processes_hold_a_lease_one_at_a_time"]
fn lease_child_claims() {
    let url = std::env::var("SCRATCHPAD_TEST_STORE").unwrap();
    let me = std::env::var("SCRATCHPAD_TEST_WRITER").unwrap();
    let pad = Scratchpad::open(&url).unwrap().with_author(&me).unwrap();
    let mut claims = 0;
    let started = Instant::now();
    while claims < CLAIMS {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{me} never got its claims"
        );
        let lease = match pad.acquire_lease("job", &me, Duration::from_secs(30)) {
            Ok(lease) => lease,
            Err(Error::Conflict(ConflictKind::Leased(held))) => {
                assert!(held.is_held() && held.holder.as_deref() != Some(""));
                std::thread::sleep(Duration::from_millis(3));
                continue;
            }
            Err(err) => panic!("{me}: {err}"),
        };
        let body = format!("{me} holds token {}", lease.token);
        pad.with_lease(Some(lease.token))
            .write("job", &body, WriteOptions::default())
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
        let seen = pad
            .read("job", &ReadMode::Full { force: true }, None)
            .unwrap()
            .text;
        assert_eq!(seen, body, "someone wrote `job` while {me} held it");
        let released = pad.release_lease("job", lease.token, &me).unwrap();
        pad.append(
            "claims",
            &format!(
                "{} {} {} {me}\n",
                lease.token, lease.acquired_at, released.expires_at
            ),
            WriteOptions::default(),
        )
        .unwrap();
        claims += 1;
    }
}

fn racing_processes_hold_a_lease_one_at_a_time(backend: Backend) {
    let store = backend.store();
    let pad = Scratchpad::open(&store.url).unwrap();
    let children: Vec<_> = (0..RACERS)
        .map(|i| {
            spawn_child(
                "suite::leases::lease_child_claims",
                &[
                    ("SCRATCHPAD_TEST_STORE", store.url.clone()),
                    ("SCRATCHPAD_TEST_WRITER", format!("racer-{i}")),
                ],
            )
        })
        .collect();
    for mut child in children {
        assert!(
            child.0.wait().unwrap().success(),
            "a racer failed; its panic is above"
        );
    }
    let log = pad
        .read("claims", &ReadMode::Full { force: true }, None)
        .unwrap()
        .text;
    let mut claims: Vec<(u64, i64, i64)> = log
        .lines()
        .map(|line| {
            let mut fields = line.split(' ');
            let mut next = || fields.next().unwrap();
            (
                next().parse().unwrap(),
                next().parse().unwrap(),
                next().parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(claims.len(), RACERS * CLAIMS);
    claims.sort();
    let tokens: Vec<u64> = claims.iter().map(|c| c.0).collect();
    let expected: Vec<u64> = (1..=(RACERS * CLAIMS) as u64).collect();
    assert_eq!(
        tokens, expected,
        "every claim got the next token, none twice"
    );
    for pair in claims.windows(2) {
        let ((token, _, released), (next, acquired, _)) = (pair[0], pair[1]);
        assert!(
            acquired >= released,
            "token {next} was acquired at {acquired}, before token {token} was released at {released}"
        );
    }
    let lease = pad.lease("job").unwrap().unwrap();
    assert_eq!(lease.token, (RACERS * CLAIMS) as u64);
    assert_eq!(lease.state(), LeaseState::Released);
}

fn a_stale_token_is_refused_after_its_successor_wrote(backend: Backend) {
    let (_store, pad) = backend.pad();
    let a = pad.with_author("agent-a").unwrap();
    let b = pad.with_author("agent-b").unwrap();
    let first = a
        .acquire_lease("plan", "agent-a", Duration::from_millis(600))
        .unwrap();
    assert_eq!((first.token, first.holder.as_deref()), (1, Some("agent-a")));
    assert!(first.is_held());
    a.with_lease(Some(first.token))
        .write("plan", "1. profile the parser\n", WriteOptions::default())
        .unwrap();

    // B is told who holds it and until when.
    let Err(Error::Conflict(ConflictKind::Leased(held))) =
        b.acquire_lease("plan", "agent-b", Duration::from_secs(60))
    else {
        panic!("a held lease was acquired twice");
    };
    assert_eq!(held.holder.as_deref(), Some("agent-a"));
    assert_eq!(held.expires_at, first.expires_at);
    let message = Error::Conflict(ConflictKind::Leased(held)).to_string();
    assert!(
        message.contains("leased to `agent-a` until") && message.contains("from now"),
        "{message}"
    );

    // A pauses past its expiry; B takes over and writes.
    std::thread::sleep(Duration::from_millis(700));
    let second = b
        .acquire_lease("plan", "agent-b", Duration::from_secs(60))
        .unwrap();
    assert_eq!(second.token, 2);
    b.with_lease(Some(second.token))
        .write(
            "plan",
            "1. profile the parser\n2. cache tokens\n",
            WriteOptions::default(),
        )
        .unwrap();

    // A wakes up and writes with its old token: refused, whatever it tries.
    let stale = a.with_lease(Some(first.token));
    let refusals = [
        stale
            .write("plan", "A's late plan\n", WriteOptions::default())
            .map(|_| ()),
        stale
            .append("plan", "A's late step\n", WriteOptions::default())
            .map(|_| ()),
        stale
            .edit("plan", "cache tokens", "A's edit", false, None)
            .map(|_| ()),
        stale.delete("plan", None).map(|_| ()),
        stale.rename("plan", "renamed", None).map(|_| ()),
        stale.restore("plan", 1, None).map(|_| ()),
        a.renew_lease("plan", first.token, "agent-a", Duration::from_secs(60))
            .map(|_| ()),
        a.release_lease("plan", first.token, "agent-a").map(|_| ()),
    ];
    for refusal in refusals {
        match refusal {
            Err(Error::Conflict(ConflictKind::Fenced { token, lease })) => {
                assert_eq!((token, lease.token), (1, 2));
                assert_eq!(lease.holder.as_deref(), Some("agent-b"));
            }
            other => panic!("a stale token was not fenced off: {other:?}"),
        }
    }
    let err = stale
        .write("plan", "again", WriteOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("lease token 1 on `plan` is stale, token 2 was issued since")
            && err.contains("held by `agent-b`"),
        "{err}"
    );
    let plan = pad
        .read("plan", &ReadMode::Full { force: true }, None)
        .unwrap();
    assert_eq!(plan.text, "1. profile the parser\n2. cache tokens\n");
    let authors: Vec<_> = pad
        .history("plan")
        .unwrap()
        .versions
        .into_iter()
        .map(|v| v.author.unwrap())
        .collect();
    assert_eq!(authors, ["agent-b", "agent-a"]);

    // B's own token still works, and writes without a token are not checked.
    b.with_lease(Some(second.token))
        .append("plan", "3. measure\n", WriteOptions::default())
        .unwrap();
    pad.append(
        "plan",
        "(a note from a bystander)\n",
        WriteOptions::default(),
    )
    .unwrap();
}

fn tokens_only_grow_per_name_and_session(backend: Backend) {
    let (_store, pad) = backend.pad();
    let ttl = Duration::from_secs(60);
    for expected in 1..=3 {
        let lease = pad.acquire_lease("plan", "me", ttl).unwrap();
        assert_eq!(lease.token, expected);
        let renewed = pad.renew_lease("plan", lease.token, "me", ttl).unwrap();
        assert_eq!(renewed.token, expected);
        assert!(renewed.expires_at >= lease.expires_at);
        pad.release_lease("plan", lease.token, "me").unwrap();
        // Releasing twice changes nothing.
        let again = pad.release_lease("plan", lease.token, "me").unwrap();
        assert_eq!(again.state(), LeaseState::Released);
    }
    assert_eq!(pad.acquire_lease("other", "me", ttl).unwrap().token, 1);
    let elsewhere = pad.with_session("elsewhere").unwrap();
    assert!(elsewhere.lease("plan").unwrap().is_none());
    assert_eq!(elsewhere.acquire_lease("plan", "me", ttl).unwrap().token, 1);
    let shown = pad.lease("plan").unwrap().unwrap();
    assert_eq!((shown.token, shown.state()), (3, LeaseState::Released));
    // A token that was never issued is an error that says so, not a silent pass.
    let err = pad
        .with_lease(Some(9))
        .write("plan", "x", WriteOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("never issued") && err.contains("the newest is 3"),
        "{err}"
    );
}

fn a_token_for_a_name_nobody_leased_is_refused(backend: Backend) {
    let (_store, pad) = backend.pad();
    let err = pad
        .with_lease(Some(1))
        .write("plan", "x", WriteOptions::default())
        .unwrap_err();
    assert!(
        matches!(&err, Error::Conflict(ConflictKind::NoLease { name, token: 1 }) if name == "plan"),
        "{err:?}"
    );
    assert!(pad.get("plan").is_err(), "the refused write left nothing");
    assert!(
        pad.acquire_lease("plan", "me", Duration::ZERO)
            .unwrap_err()
            .to_string()
            .contains("at least a millisecond")
    );
}

/// Regression: anyone could renew or release another holder's lease with the token `lease show`
/// prints, and a write carrying the token of a released lease still landed.
fn only_the_holder_renews_or_releases_and_a_released_token_fences(backend: Backend) {
    let (_store, pad) = backend.pad();
    let ttl = Duration::from_secs(60);
    let a = pad.with_author("agent-a").unwrap();
    let lease = a.acquire_lease("plan", "agent-a", ttl).unwrap();
    a.with_lease(Some(lease.token))
        .write("plan", "1. profile the parser\n", WriteOptions::default())
        .unwrap();

    // B reads the token off the lease and tries to renew and release it: refused, naming A.
    let shown = pad.lease("plan").unwrap().unwrap();
    assert_eq!(shown.token, lease.token);
    let refusals = [
        pad.renew_lease("plan", shown.token, "agent-b", Duration::from_secs(3_600)),
        pad.release_lease("plan", shown.token, "agent-b"),
    ];
    for refusal in refusals {
        let err = refusal.unwrap_err();
        let message = err.to_string();
        let Error::Conflict(ConflictKind::NotHolder {
            caller,
            lease: held,
        }) = err
        else {
            panic!("another holder's lease was renewed or released: {err:?}");
        };
        assert_eq!(caller, "agent-b");
        assert_eq!(held.holder.as_deref(), Some("agent-a"));
        assert!(
            message.contains("is held by `agent-a` until")
                && message.contains("this call came from `agent-b`"),
            "{message}"
        );
    }
    let after = pad.lease("plan").unwrap().unwrap();
    assert_eq!(after.state(), LeaseState::Held);
    assert_eq!(
        after.expires_at, lease.expires_at,
        "B's renewal changed nothing"
    );
    assert!(
        pad.acquire_lease("plan", "agent-b", ttl).is_err(),
        "B's release changed nothing"
    );

    // A renews and releases its own claim; then its token guards nothing.
    a.renew_lease("plan", lease.token, "agent-a", ttl).unwrap();
    let released = a.release_lease("plan", lease.token, "agent-a").unwrap();
    assert_eq!(released.state(), LeaseState::Released);
    assert_eq!(released.holder.as_deref(), Some("agent-a"));
    assert!(released.released_at.is_some());
    let late = a.with_lease(Some(lease.token));
    let refusals = [
        late.write("plan", "late\n", WriteOptions::default())
            .map(|_| ()),
        late.append("plan", "late\n", WriteOptions::default())
            .map(|_| ()),
        late.edit("plan", "profile", "rewrite", false, None)
            .map(|_| ()),
        late.pin("plan", true, None).map(|_| ()),
        late.delete("plan", None).map(|_| ()),
        a.renew_lease("plan", lease.token, "agent-a", ttl)
            .map(|_| ()),
    ];
    for refusal in refusals {
        let err = refusal.unwrap_err();
        let message = err.to_string();
        assert!(
            matches!(&err, Error::Conflict(ConflictKind::Released { token, .. }) if *token == lease.token),
            "a released token was not fenced off: {err:?}"
        );
        assert!(
            message.contains("was released at")
                && message.contains("by `agent-a`")
                && message.contains("acquire_lease(\"plan\""),
            "{message}"
        );
    }
    assert_eq!(
        pad.read("plan", &ReadMode::Full { force: true }, None)
            .unwrap()
            .text,
        "1. profile the parser\n"
    );
    // Releasing again changes nothing; another holder may acquire it now, with a new token.
    a.release_lease("plan", lease.token, "agent-a").unwrap();
    let next = pad.acquire_lease("plan", "agent-b", ttl).unwrap();
    assert_eq!(next.token, lease.token + 1);
}

backend_tests!(
    racing_processes_hold_a_lease_one_at_a_time,
    a_stale_token_is_refused_after_its_successor_wrote,
    tokens_only_grow_per_name_and_session,
    a_token_for_a_name_nobody_leased_is_refused,
    only_the_holder_renews_or_releases_and_a_released_token_fences,
);
