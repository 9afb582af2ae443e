//! What only the shared backend has to prove: migrations under concurrent starts, GC on another
//! host with a skewed clock, and lost connections or a server restart in the middle of a large write.

use std::io::Read;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use scratchpad_core::lease::LeaseOp;
use scratchpad_core::store::postgres::PostgresStore;
use scratchpad_core::store::{GcPolicy, Store};
use scratchpad_core::{
    ConflictKind, Error, ListFilter, PutOptions, ReadMode, Scratchpad, WriteOptions,
};

use crate::common::{Backend, NO_PG, TestStore, spawn_child};

/// Staged chunks of writes in progress, seen from outside.
fn staged_chunks(store: &TestStore) -> i64 {
    store
        .admin()
        .query_one(
            "SELECT COUNT(*) FROM chunks c JOIN blobs b ON b.id = c.blob WHERE b.state = 0",
            &[],
        )
        .map(|r| r.get(0))
        .unwrap_or(0)
}

fn wait_for_staged(store: &TestStore, at_least: i64) {
    let started = Instant::now();
    while staged_chunks(store) < at_least {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the writer never staged {at_least} chunks"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A log of a known size, made on the fly: line `i` is `line {i} of a long log\n`.
struct Log {
    next: u64,
    lines: u64,
    pending: Vec<u8>,
}

impl Log {
    fn new(lines: u64) -> Self {
        Self {
            next: 1,
            lines,
            pending: Vec::new(),
        }
    }

    fn line(i: u64) -> String {
        format!("line {i} of a long log that is written while the server goes away\n")
    }
}

impl Read for Log {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pending.len() < buf.len() && self.next <= self.lines {
            self.pending
                .extend_from_slice(Self::line(self.next).as_bytes());
            self.next += 1;
        }
        let n = self.pending.len().min(buf.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

/// A reader that yields `before` bytes, then waits for a signal, then yields `after` more.
struct Gated {
    before: u64,
    after: u64,
    sent: u64,
    gate: Option<mpsc::Receiver<()>>,
}

impl Read for Gated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.sent == self.before
            && let Some(gate) = self.gate.take()
        {
            let _ = gate.recv();
        }
        let limit = if self.gate.is_some() {
            self.before
        } else {
            self.before + self.after
        };
        let n = usize::try_from(limit - self.sent)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        for (i, b) in buf[..n].iter_mut().enumerate() {
            let at = self.sent + i as u64;
            *b = if at % 64 == 63 {
                b'\n'
            } else {
                b'a' + (at % 26) as u8
            };
        }
        self.sent += n as u64;
        Ok(n)
    }
}

#[test]
fn the_suite_fails_without_a_server() {
    // Not a skip: a missing server is a failed run, and the message says how to get one.
    assert!(
        std::env::var("SCRATCHPAD_TEST_PG_URL").is_ok_and(|u| !u.is_empty()),
        "SCRATCHPAD_TEST_PG_URL is not set; {NO_PG}"
    );
    let mut admin = crate::common::pg_admin();
    let version: String = admin.query_one("SHOW server_version", &[]).unwrap().get(0);
    assert!(!version.is_empty());
}

#[test]
fn processes_starting_at_once_migrate_once() {
    let store = Backend::Postgres.store();
    let url = store.url.clone();
    let opened: Vec<_> = (0..6)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || Scratchpad::open(&url).map(|_| ()))
        })
        .collect();
    for handle in opened {
        handle.join().unwrap().unwrap();
    }
    let rows: i64 = store
        .admin()
        .query_one("SELECT COUNT(*) FROM schema_migrations", &[])
        .unwrap()
        .get(0);
    let migrations = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/postgres"))
        .unwrap()
        .count() as i64;
    assert_eq!(rows, migrations, "each migration is applied exactly once");
}

#[test]
fn a_newer_schema_is_refused_plainly() {
    let store = Backend::Postgres.store();
    drop(Scratchpad::open(&store.url).unwrap());
    store
        .admin()
        .execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES (99990101000000, 0)",
            &[],
        )
        .unwrap();
    let err = Scratchpad::open(&store.url).unwrap_err().to_string();
    assert!(
        err.contains("newer scratchpad") && err.contains("upgrade"),
        "{err}"
    );
}

#[test]
fn wrong_passwords_and_missing_databases_are_named_without_the_secret() {
    let base = crate::common::pg_base_url();
    let (head, tail) = base.rsplit_once('@').unwrap();
    let user = head
        .trim_start_matches("postgres://")
        .split(':')
        .next()
        .unwrap();
    let wrong = format!("postgres://{user}:not-the-password-x9@{tail}");
    let err = Scratchpad::open(&wrong).unwrap_err().to_string();
    assert!(err.contains("cannot connect to PostgreSQL"), "{err}");
    assert!(err.contains("password authentication failed"), "{err}");
    assert!(!err.contains("not-the-password-x9"), "{err}");
    let (rest, _db) = base.rsplit_once('/').unwrap();
    let missing = format!("{rest}/no_such_database_here");
    let err = Scratchpad::open(&missing).unwrap_err().to_string();
    assert!(err.contains("no_such_database_here"), "{err}");
    let password = head.rsplit_once(':').unwrap().1;
    assert!(!err.contains(password), "{err}");
    let shown = format!("{:?}", PostgresStore::open(&base).unwrap());
    assert!(!shown.contains(password), "{shown}");
}

/// Host B collects with a clock a day ahead while host A is in the middle of a large write:
/// staleness is judged by the server's clock, so A's staged chunks survive and its entry is whole.
#[test]
fn gc_on_another_host_spares_a_write_in_progress() {
    let store = Backend::Postgres.store();
    let writer = Scratchpad::open(&store.url).unwrap();
    let (open_gate, gate) = mpsc::channel();
    let before = 12 * 1024 * 1024;
    let after = 3 * 1024 * 1024;
    let handle = std::thread::spawn(move || {
        writer
            .put(
                &mut Gated {
                    before,
                    after,
                    sent: 0,
                    gate: Some(gate),
                },
                PutOptions {
                    name: Some("big".into()),
                    ..PutOptions::default()
                },
            )
            .map(|info| (writer, info))
    });
    wait_for_staged(&store, 8);
    let other_host = PostgresStore::open(&store.url).unwrap();
    let day_ms = 24 * 3_600_000;
    let report = other_host
        .gc(&GcPolicy {
            now: scratchpad_core::model::now_ms() + day_ms,
            quota_bytes: None,
            stale_after_ms: 3_600_000,
            compact: true,
        })
        .unwrap();
    assert_eq!(report.stale_writes_removed, 0, "{report:?}");
    open_gate.send(()).unwrap();
    let (writer, info) = handle.join().unwrap().unwrap();
    assert_eq!(info.bytes, before + after);
    let end = writer
        .read(
            "big",
            &ReadMode::Range {
                start: info.chars - 64,
                end: None,
            },
            None,
        )
        .unwrap();
    let expected: String = (info.bytes - 64..info.bytes)
        .map(|at| {
            if at % 64 == 63 {
                '\n'
            } else {
                char::from(b'a' + (at % 26) as u8)
            }
        })
        .collect();
    assert_eq!(end.text, expected);
    assert_eq!(staged_chunks(&store), 0, "nothing is left staged");
}

/// Runs in the child: streams forever into the store named by SCRATCHPAD_TEST_STORE.
#[test]
#[ignore = "runs only as the child of kill_9_during_a_large_put"]
fn pg_crash_child_endless_put() {
    let url = std::env::var("SCRATCHPAD_TEST_STORE").unwrap();
    let pad = Scratchpad::open(&url).unwrap();
    let _ = pad.put(
        &mut Log::new(u64::MAX),
        PutOptions {
            name: Some("partial".into()),
            ..PutOptions::default()
        },
    );
}

fn pieces(store: &TestStore) -> i64 {
    store
        .admin()
        .query_one("SELECT COUNT(*) FROM pieces", &[])
        .map(|r| r.get(0))
        .unwrap()
}

/// Also pins the window between a staged batch storing its pieces and the commit that would refer
/// to them: the pieces of the killed write go with its staging, and those a committed entry shares
/// with it stay.
#[test]
fn kill_9_during_a_large_put() {
    let store = Backend::Postgres.store();
    let pad = Scratchpad::open(&store.url).unwrap();
    pad.write("before", "an earlier note", Default::default())
        .unwrap();
    // The start of what the killed writer writes: its first chunks are this entry's pieces.
    let mut shared = Vec::new();
    Log::new(100_000).read_to_end(&mut shared).unwrap();
    pad.put(
        &mut &shared[..],
        PutOptions {
            name: Some("shared".into()),
            ..PutOptions::default()
        },
    )
    .unwrap();
    let committed_pieces = pieces(&store);
    assert!(committed_pieces > 10, "{committed_pieces} pieces");
    let mut child = spawn_child(
        "suite::postgres::pg_crash_child_endless_put",
        &[("SCRATCHPAD_TEST_STORE", store.url.clone())],
    );
    // Past the chunks it shares with `shared`, into pieces of its own.
    wait_for_staged(&store, 120);
    child.0.kill().unwrap(); // SIGKILL
    child.0.wait().unwrap();
    assert!(pad.get("partial").is_err(), "no partial entry is visible");
    let mut names: Vec<String> = pad
        .list(&ListFilter::default(), None, 10)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.name)
        .collect();
    names.sort();
    assert_eq!(names, ["before", "shared"]);
    assert!(
        pieces(&store) > committed_pieces,
        "the killed write stored pieces"
    );
    // Regression: the abandoned staging was collected only once it was an hour old. The writer's
    // session marked it; with the session gone (the server closes it as the process dies), the
    // next pass takes it at once.
    let backend = PostgresStore::open(&store.url).unwrap();
    let started = std::time::Instant::now();
    let report = loop {
        let report = backend
            .gc(&GcPolicy {
                now: scratchpad_core::model::now_ms(),
                quota_bytes: None,
                stale_after_ms: 3_600_000,
                compact: true,
            })
            .unwrap();
        if report.stale_writes_removed > 0 || started.elapsed() > std::time::Duration::from_secs(10)
        {
            break report;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(report.stale_writes_removed, 1, "{report:?}");
    assert_eq!(staged_chunks(&store), 0);
    assert_eq!(pieces(&store), committed_pieces);
    let read = pad
        .read("shared", &ReadMode::Full { force: true }, None)
        .unwrap();
    assert_eq!(read.text.as_bytes(), &shared[..]);
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
    pad.write("after", "still fine", Default::default())
        .unwrap();
}

/// Cuts every connection of the store again and again while reads run over a 40 MB entry: each
/// read either gives the right answer (its chunk reads retried on new connections) or fails with a
/// clear error, never a wrong or partial one, and reads work again after.
#[test]
fn lost_connections_during_reads() {
    let store = Backend::Postgres.store();
    let app = format!("sp_cutr_{}", store.schema.as_deref().unwrap());
    let url = format!("{}&application_name={app}", store.url);
    let pad = Scratchpad::open(&url).unwrap();
    let lines = 600_000; // ~ 40 MB
    pad.put(
        &mut Log::new(lines),
        PutOptions {
            name: Some("big".into()),
            ..PutOptions::default()
        },
    )
    .unwrap();
    let reader = pad.clone();
    let handle = std::thread::spawn(move || {
        let mut outcomes = Vec::new();
        for _ in 0..12 {
            outcomes.push(
                reader
                    .read("big", &ReadMode::grep(r"line 5\d{5} ", 0), Some(100))
                    .map(|reply| reply.total_matches),
            );
        }
        outcomes
    });
    let mut admin = store.admin();
    let mut cuts = 0;
    while !handle.is_finished() {
        let killed: i64 = admin
            .query_one(
                "SELECT COUNT(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity \
                 WHERE application_name = $1",
                &[&app],
            )
            .unwrap()
            .get(0);
        cuts += usize::from(killed > 0);
        std::thread::sleep(Duration::from_millis(40));
    }
    let outcomes = handle.join().unwrap();
    assert!(cuts > 0, "no connection was cut; the test proved nothing");
    // Lines 500,000–599,999.
    let expected = 100_000;
    for outcome in &outcomes {
        match outcome {
            Ok(total) => assert_eq!(*total, Some(expected)),
            Err(err) => assert!(err.to_string().contains("PostgreSQL"), "{err}"),
        }
    }
    let after = pad
        .read("big", &ReadMode::grep(r"line 5\d{5} ", 0), Some(100))
        .unwrap();
    assert_eq!(after.total_matches, Some(expected));
}

/// Cuts every connection of the store again and again while a 40 MB write streams in. The write
/// either completes whole (its steps are retried on new connections) or fails with a clear error;
/// it never leaves a partial entry, and the store works afterwards.
#[test]
fn lost_connections_during_a_large_write() {
    let store = Backend::Postgres.store();
    let app = format!("sp_cut_{}", store.schema.as_deref().unwrap());
    let url = format!("{}&application_name={app}", store.url);
    let pad = Scratchpad::open(&url).unwrap();
    pad.write("before", "an earlier note", Default::default())
        .unwrap();
    let lines = 600_000; // ~ 40 MB
    let writer = pad.clone();
    let handle = std::thread::spawn(move || {
        writer.put(
            &mut Log::new(lines),
            PutOptions {
                name: Some("big".into()),
                ..PutOptions::default()
            },
        )
    });
    let mut admin = store.admin();
    let mut cuts = 0;
    wait_for_staged(&store, 16);
    while !handle.is_finished() && cuts < 5 {
        let killed: i64 = admin
            .query_one(
                "SELECT COUNT(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity \
                 WHERE application_name = $1",
                &[&app],
            )
            .unwrap()
            .get(0);
        cuts += usize::from(killed > 0);
        std::thread::sleep(Duration::from_millis(150));
    }
    assert!(cuts > 0, "no connection was cut; the test proved nothing");
    let outcome = handle.join().unwrap();
    eprintln!("after {cuts} cuts: {:?}", outcome.as_ref().map(|i| i.bytes));
    match outcome {
        Ok(info) => {
            assert_eq!(info.lines, lines);
            let last = pad
                .read(
                    "big",
                    &ReadMode::Lines {
                        from: lines,
                        to: Some(lines),
                    },
                    None,
                )
                .unwrap();
            assert!(
                last.text.contains(Log::line(lines).trim_end()),
                "{}",
                last.text
            );
        }
        Err(err) => {
            let msg = err.to_string();
            assert!(msg.contains("PostgreSQL"), "{msg}");
            assert!(pad.get("big").is_err(), "no partial entry after: {msg}");
        }
    }
    assert_eq!(
        pad.read("before", &ReadMode::Full { force: false }, None)
            .unwrap()
            .text,
        "an earlier note"
    );
    pad.write("after", "still fine", Default::default())
        .unwrap();
}

/// A real `pg_ctl restart` (fast: sessions are cut off) in the middle of a large write, on a
/// cluster of its own so the other tests keep theirs.
#[test]
fn server_restart_during_a_large_write() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/pg-cluster");
    let started = std::process::Command::new(script)
        .arg("start")
        .output()
        .unwrap();
    assert!(
        started.status.success(),
        "scripts/pg-cluster start failed: {}; {NO_PG}",
        String::from_utf8_lossy(&started.stderr)
    );
    let exports = String::from_utf8(started.stdout).unwrap();
    let var = |name: &str| {
        exports
            .lines()
            .find_map(|l| l.strip_prefix(&format!("export {name}=")))
            .map(|v| v.trim_matches('\'').to_owned())
            .unwrap()
    };
    struct Cluster(String, &'static str);
    impl Drop for Cluster {
        fn drop(&mut self) {
            let _ = std::process::Command::new(self.1)
                .args(["stop", &self.0])
                .output();
        }
    }
    let cluster = Cluster(var("SCRATCHPAD_TEST_PG_DIR"), script);
    let url = var("SCRATCHPAD_TEST_PG_URL");
    let pad = Scratchpad::open(&url).unwrap();
    pad.write("before", "an earlier note", Default::default())
        .unwrap();
    let lines = 600_000; // ~ 40 MB
    let writer = pad.clone();
    let handle = std::thread::spawn(move || {
        writer.put(
            &mut Log::new(lines),
            PutOptions {
                name: Some("big".into()),
                ..PutOptions::default()
            },
        )
    });
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let started = Instant::now();
    loop {
        let staged: i64 = admin
            .query_one(
                "SELECT COUNT(*) FROM chunks c JOIN blobs b ON b.id = c.blob WHERE b.state = 0",
                &[],
            )
            .map(|r| r.get(0))
            .unwrap_or(0);
        if staged >= 16 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(admin);
    let restarted = std::process::Command::new(script)
        .args(["restart", &cluster.0])
        .output()
        .unwrap();
    assert!(
        restarted.status.success(),
        "pg_ctl restart failed: {}",
        String::from_utf8_lossy(&restarted.stderr)
    );
    let outcome = handle.join().unwrap();
    eprintln!("after a restart: {:?}", outcome.as_ref().map(|i| i.bytes));
    match outcome {
        Ok(info) => assert_eq!(info.lines, lines),
        Err(err) => {
            let msg = err.to_string();
            assert!(msg.contains("PostgreSQL"), "{msg}");
            assert!(pad.get("big").is_err(), "no partial entry after: {msg}");
        }
    }
    // The pool reconnects on its own.
    assert_eq!(
        pad.read("before", &ReadMode::Full { force: false }, None)
            .unwrap()
            .text,
        "an earlier note"
    );
    pad.write("after", "still fine", Default::default())
        .unwrap();
    let listed: Vec<String> = pad
        .list(&ListFilter::default(), None, 10)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert!(listed.contains(&"after".to_owned()), "{listed:?}");
}

/// Purging a large entry frees its content and collection accounts for it; removing it keeps the
/// content while its versions are kept.
#[test]
fn gc_frees_deleted_content() {
    let (_store, pad) = Backend::Postgres.pad();
    let big = crate::common::log_with_errors(200_000, &[]);
    crate::common::put(&pad, "big", big.as_bytes());
    let stored = pad.stats().unwrap().store_bytes;
    assert!(stored > 10_000_000);
    let removed = pad.delete("big", None).unwrap();
    assert!(removed.kept.is_some(), "{removed:?}");
    assert_eq!(pad.stats().unwrap().store_bytes, stored);
    pad.purge("big", None).unwrap();
    assert_eq!(pad.stats().unwrap().store_bytes, 0);
    let report = pad.gc().unwrap();
    assert!(report.disk_bytes_before > 0, "{report:?}");
}

/// Three hosts share a lease: A's clock is right, B's runs an hour ahead, C's an hour behind. Every
/// time a lease is judged by is the server's, so B (for whom A's lease ended long ago) is refused
/// while it lasts, C (for whom it has an hour to go) takes it as soon as it ends, and A's late write
/// with its old token is refused.
#[test]
fn hosts_whose_clocks_disagree_agree_on_who_holds_a_lease() {
    let store = Backend::Postgres.store();
    let pad = Scratchpad::open(&store.url).unwrap();
    let hosts: Vec<PostgresStore> = (0..3)
        .map(|_| PostgresStore::open(&store.url).unwrap())
        .collect();
    let (a, b, c) = (&hosts[0], &hosts[1], &hosts[2]);
    let hour = 3_600_000;
    let acquire = |host: &PostgresStore, holder: &str| {
        host.lease(
            "default",
            "plan",
            LeaseOp::Acquire {
                holder,
                ttl_ms: 1_500,
            },
        )
    };
    let server_now = || -> i64 {
        store
            .admin()
            .query_one(
                "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
                &[],
            )
            .unwrap()
            .get(0)
    };
    let before = server_now();
    let first = acquire(a, "host-a").unwrap();
    let after = server_now();
    assert!(
        (before..=after).contains(&first.acquired_at),
        "acquired at {} by the server's clock, which read {before}..{after}",
        first.acquired_at
    );
    assert_eq!(first.expires_at - first.acquired_at, 1_500);

    // B, an hour ahead, collects with its own clock and claims: the lease still holds.
    b.gc(&GcPolicy {
        now: scratchpad_core::model::now_ms() + hour,
        quota_bytes: None,
        stale_after_ms: hour,
        compact: true,
    })
    .unwrap();
    match acquire(b, "host-b") {
        Err(Error::Conflict(ConflictKind::Leased(held))) => {
            assert_eq!(held.holder.as_deref(), Some("host-a"));
            assert!(held.remaining_ms() > 0 && held.remaining_ms() <= 1_500);
        }
        other => panic!("host B took a lease that had not ended: {other:?}"),
    }

    // C, an hour behind, claims as soon as the server says the lease ended.
    let started = Instant::now();
    while c.lease_info("default", "plan").unwrap().unwrap().is_held() {
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = acquire(c, "host-c").unwrap();
    assert_eq!(second.token, 2);
    assert!(second.acquired_at >= first.expires_at);
    pad.with_lease(Some(second.token))
        .write("plan", "C's plan", WriteOptions::default())
        .unwrap();

    // A's write with its old token is refused, by the store, after C's.
    let late = pad
        .with_lease(Some(first.token))
        .write("plan", "A's late plan", WriteOptions::default())
        .unwrap_err();
    assert!(
        matches!(&late, Error::Conflict(ConflictKind::Fenced { token: 1, lease }) if lease.token == 2),
        "{late:?}"
    );
    assert_eq!(
        pad.read("plan", &ReadMode::Full { force: true }, None)
            .unwrap()
            .text,
        "C's plan"
    );
}
