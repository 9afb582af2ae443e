//! `scratchpad-soak`: N worker processes on one store for D minutes, with a random worker killed
//! (SIGKILL) every K seconds and restarted; then throughput, latency, memory and errors by kind,
//! `scratchpad check`, and a check that every version a worker saw committed is still there.
//!
//! Workers are this executable in `worker` mode, each a long-lived process calling the library: a
//! server (MCP over stdio or HTTP, the proxy) is one long-lived process with one open store, so its
//! memory over time, its connections and its transactions cut anywhere by a kill are what this
//! measures; the CLI is a thin layer over the same calls, and its process start would dominate the
//! latencies. The end-of-run integrity check is the real `scratchpad check` binary.
//!
//! Each worker appends one JSON line per finished operation to its journal (one `write` per line,
//! so a kill never leaves half a line). A version is journaled only after the call that wrote it
//! returned: an operation a kill cuts short writes nothing and is not counted, and everything the
//! journal says committed must still be there, with the content that was written.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use scratchpad_core::{
    Config, ConflictKind, Error, PutOptions, ReadMode, Scratchpad, Source, WriteOptions,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Parser)]
#[command(
    about = "Soak: worker processes on one store, one killed (SIGKILL) and restarted every few \
             seconds; then throughput, latency, memory, errors, `scratchpad check` and a check \
             that nothing committed was lost",
    long_about = "Soak: worker processes on one store, one killed (SIGKILL) and restarted every \
                  few seconds; then throughput, latency, memory, errors, `scratchpad check` and a \
                  check that nothing committed was lost.\n\n\
                  Each worker mixes offloads (logs of a few lines to a few MB), reads of slices, \
                  note writes under a lease with its fencing token, deletes and `gc`, and journals \
                  every version the store said it committed. At the end every journaled version \
                  must read back with the content that was written (or have been deleted on \
                  purpose, or pruned from a note's history by the kept-versions limit), and \
                  `scratchpad check` must find no damage. Exits non-zero otherwise.\n\n\
                  Example: scratchpad-soak --workers 16 --minutes 10 --kill-every 30 \
                  --store \"$SCRATCHPAD_TEST_PG_URL\""
)]
struct Args {
    #[command(subcommand)]
    mode: Option<Mode>,
    /// Worker processes running at once (count).
    #[arg(long, default_value_t = 16, value_name = "N")]
    workers: usize,
    /// How long the workers run (minutes; fractions allowed, e.g. 0.5).
    #[arg(long, default_value_t = 10.0, value_name = "MINUTES")]
    minutes: f64,
    /// Seconds between two kills (SIGKILL) of a random worker, which is restarted at once; 0: no
    /// kills.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    kill_every: u64,
    /// The store: `sqlite:///abs/path.db` or `postgres://user@host:port/db`. Default: a new SQLite
    /// store in `--dir`. The run works in a session of its own, so a shared database is fine.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// Where the SQLite store (by default) and the workers' journals go. Default: a temporary
    /// directory, removed at the end.
    #[arg(long, value_name = "PATH")]
    dir: Option<PathBuf>,
    /// The `scratchpad` executable that runs `check` (default: next to this one).
    #[arg(long, value_name = "PATH")]
    cli: Option<PathBuf>,
    /// Seed of the random choices (default: the clock); printed, so the same choices can be made
    /// again (the timing of the processes still differs).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Debug, Subcommand)]
enum Mode {
    /// One worker (started by the soak itself).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        store: String,
        #[arg(long)]
        session: String,
        #[arg(long)]
        id: usize,
        #[arg(long)]
        workers: usize,
        #[arg(long)]
        journal: PathBuf,
        /// Unix ms at which to stop.
        #[arg(long)]
        until: u64,
        #[arg(long)]
        seed: u64,
    },
}

/// Workers per note (count): enough sharing that leases are contended, few enough notes that each
/// collects many versions and its history is pruned.
const WORKERS_PER_NOTE: usize = 2;

/// How long a worker's lease lasts: a killed holder's lease must end well within the run.
const LEASE_TTL: Duration = Duration::from_secs(10);

/// How often a worker records its resident memory.
const RSS_EVERY: Duration = Duration::from_secs(5);

/// How long the workers get, after the end of the run, to finish the operation they are in before
/// they count as hung and are killed.
const STOP_GRACE: Duration = Duration::from_secs(120);

/// How often the soak looks at its workers (and at the load average).
const TICK: Duration = Duration::from_millis(200);

/// One line of a worker's journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum Line {
    /// A worker process opened the store (its resident memory then, KiB).
    Start { pid: u32, rss_kib: u64 },
    /// Resident memory, now and then (KiB).
    Rss { pid: u32, rss_kib: u64 },
    /// An operation ended: its kind, how long it took (µs), and how it ended when not plainly
    /// (`outcome`: an expected refusal, or an error's kind; `error`: its message).
    Op {
        kind: String,
        micros: u64,
        #[serde(default)]
        outcome: Option<String>,
        #[serde(default)]
        error: Option<String>,
    },
    /// A version the store said it committed, and the blake3 of what was written.
    Committed {
        name: String,
        version: u64,
        hash: String,
    },
    /// A delete is about to be asked for: from here on the entry may be gone.
    Deleting { name: String },
}

fn main() -> Result<()> {
    let args = Args::parse();
    match args.mode {
        Some(Mode::Worker {
            ref store,
            ref session,
            id,
            workers,
            ref journal,
            until,
            seed,
        }) => worker(store, session, id, workers, journal, until, seed),
        None => soak(&args),
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// xorshift64*: enough randomness to pick operations, reproducible from `--seed`.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Resident memory of a process (KiB), from /proc; 0 where there is none.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The machine's load average over the last minute, from /proc.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

// ---------------------------------------------------------------------------------------------------
// A worker

/// A generated log of `lines` lines, different for every seed.
fn log(rng: &mut Rng, lines: u64) -> String {
    use std::fmt::Write as _;
    const LEVELS: [&str; 4] = ["INFO", "DEBUG", "WARN", "ERROR"];
    let mut out = String::with_capacity(lines as usize * 90);
    for i in 0..lines {
        // Mostly INFO, one line in twenty an ERROR, as in a service's log.
        let level = match rng.below(20) {
            0..=14 => LEVELS[0],
            15..=17 => LEVELS[1],
            18 => LEVELS[2],
            _ => LEVELS[3],
        };
        let value = rng.next();
        let _ = writeln!(
            out,
            "2026-11-25T22:{:02}:{:02}.{:03}Z {level} request {i} handled in {} ms (id {value:016x})",
            i / 3600 % 60,
            i / 60 % 60,
            i % 1000,
            value % 900
        );
    }
    out
}

/// The kind of an error, to count by; refusals the lease protocol expects are not errors.
fn error_kind(err: &Error) -> &'static str {
    match err {
        Error::NotFound { .. } => "not found",
        Error::InvalidName { .. } => "invalid name",
        Error::Conflict(conflict) => match conflict {
            ConflictKind::Version { .. } => "version conflict",
            ConflictKind::Exists { .. } => "exists",
            ConflictKind::Leased(_) => "leased",
            ConflictKind::Fenced { .. } => "fenced",
            ConflictKind::NoLease { .. } => "no lease",
            ConflictKind::Released { .. } => "released",
            ConflictKind::NotHolder { .. } => "not holder",
        },
        Error::InvalidArgument(_) => "invalid argument",
        Error::TooLarge(_) => "too large",
        Error::WrongKind(_) => "wrong kind",
        Error::Stopped(_) => "stopped (timeout)",
        Error::Config(_) => "config",
        Error::Storage(_) => "storage",
        Error::Corrupt(_) => "CORRUPT",
        Error::DiskFull(_) => "disk full",
        Error::Raced(_) => "raced",
        Error::Io(_) => "i/o",
        // The engine's error type is open to new kinds.
        _ => "other",
    }
}

/// How an operation ended.
enum Outcome {
    Done,
    /// A refusal the protocol expects (a lease someone else holds; a write fenced off because the
    /// lease lapsed and another worker claimed the name): counted, not an error.
    Expected(&'static str),
    Failed(&'static str, String),
}

impl From<Error> for Outcome {
    fn from(err: Error) -> Self {
        Self::Failed(error_kind(&err), err.to_string())
    }
}

impl<T> From<scratchpad_core::Result<T>> for Outcome {
    fn from(result: scratchpad_core::Result<T>) -> Self {
        result.map_or_else(Self::from, |_| Self::Done)
    }
}

struct Journal(File);

impl Journal {
    fn line(&mut self, line: &Line) -> Result<()> {
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        // One write per line (O_APPEND): a kill lands between lines, never inside one.
        self.0.write_all(text.as_bytes())?;
        Ok(())
    }
}

struct Worker {
    pad: Scratchpad,
    journal: Journal,
    rng: Rng,
    holder: String,
    id: usize,
    pid: u32,
    notes: u64,
    /// The logs this process put and has not deleted, with their lines. A restarted worker starts
    /// afresh: names carry the pid, so two processes of one worker never write the same log.
    logs: Vec<(String, u64)>,
    next_log: u64,
}

fn worker(
    store: &str,
    session: &str,
    id: usize,
    workers: usize,
    journal: &Path,
    until: u64,
    seed: u64,
) -> Result<()> {
    let journal = Journal(
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(journal)
            .context("opening the journal")?,
    );
    let pid = std::process::id();
    let config = Config {
        session: Some(session.to_owned()),
        ..Config::default()
    };
    let holder = format!("worker-{id}");
    let pad = Scratchpad::open_with(Some(store), config)?.with_author(&holder)?;
    let mut worker = Worker {
        pad,
        journal,
        rng: Rng::new(seed),
        holder,
        id,
        pid,
        notes: workers.div_ceil(WORKERS_PER_NOTE).max(1) as u64,
        logs: Vec::new(),
        next_log: 0,
    };
    worker.journal.line(&Line::Start {
        pid,
        rss_kib: rss_kib(pid),
    })?;
    let mut last_rss = Instant::now();
    while now_ms() < until {
        if last_rss.elapsed() >= RSS_EVERY {
            worker.journal.line(&Line::Rss {
                pid,
                rss_kib: rss_kib(pid),
            })?;
            last_rss = Instant::now();
        }
        let started = Instant::now();
        let (kind, outcome) = worker.one_operation()?;
        let micros = started.elapsed().as_micros() as u64;
        let (outcome, error) = match outcome {
            Outcome::Done => (None, None),
            Outcome::Expected(what) => (Some(what.to_owned()), None),
            Outcome::Failed(what, message) => (Some(what.to_owned()), Some(message)),
        };
        worker.journal.line(&Line::Op {
            kind: kind.to_owned(),
            micros,
            outcome,
            error,
        })?;
    }
    worker.journal.line(&Line::Rss {
        pid,
        rss_kib: rss_kib(pid),
    })?;
    Ok(())
}

impl Worker {
    /// One operation, picked at random: a third reads, a quarter offloads, a quarter note writes,
    /// the rest deletes and one in a hundred a collection pass (compacting, as `scratchpad gc`).
    fn one_operation(&mut self) -> Result<(&'static str, Outcome)> {
        let roll = self.rng.below(100);
        Ok(match roll {
            25..=59 if !self.logs.is_empty() => self.read(),
            60..=84 => self.note()?,
            85..=98 if !self.logs.is_empty() => self.delete()?,
            99 => ("gc", self.pad.gc().into()),
            _ => self.offload()?,
        })
    }

    /// A log from a few lines to a few MB, most small, as tool outputs are.
    fn offload(&mut self) -> Result<(&'static str, Outcome)> {
        let lines = match self.rng.below(20) {
            0 => 20_000 + self.rng.below(30_000),
            1..=5 => 500 + self.rng.below(2_000),
            _ => 5 + self.rng.below(200),
        };
        let text = log(&mut self.rng, lines);
        let name = format!("w{}-p{}-log{}", self.id, self.pid, self.next_log);
        self.next_log += 1;
        let hash = blake3::hash(text.as_bytes()).to_hex().to_string();
        let put = self.pad.put_bytes(
            text.as_bytes(),
            PutOptions {
                name: Some(name.clone()),
                source: Source {
                    tool: Some("soak_logs".into()),
                    ..Source::default()
                },
                ..PutOptions::default()
            },
        );
        let outcome = match put {
            Ok(info) if info.hash != hash => Outcome::Failed(
                "DAMAGED (hash differs)",
                format!("{name}: stored {} for {hash}", info.hash),
            ),
            Ok(info) => {
                self.journal.line(&Line::Committed {
                    name: name.clone(),
                    version: info.version,
                    hash,
                })?;
                self.logs.push((name, lines));
                Outcome::Done
            }
            Err(err) => err.into(),
        };
        Ok(("offload", outcome))
    }

    /// A slice of a log this process put: head, tail, grep, lines.
    fn read(&mut self) -> (&'static str, Outcome) {
        let (name, lines) = &self.logs[self.rng.below(self.logs.len() as u64) as usize];
        let (kind, mode) = match self.rng.below(4) {
            0 => ("read head", ReadMode::Head { n: Some(2_000) }),
            1 => ("read tail", ReadMode::Tail { n: Some(2_000) }),
            2 => ("read grep", ReadMode::grep("ERROR", 2)),
            _ => {
                let from = 1 + self.rng.below(*lines);
                (
                    "read lines",
                    ReadMode::Lines {
                        from,
                        to: Some(from + 49),
                    },
                )
            }
        };
        // The slice must hold the lines asked for: every line names its number in the log.
        let expected = match &mode {
            ReadMode::Head { .. } => Some(" request 0 handled ".to_owned()),
            ReadMode::Tail { .. } => Some(format!(" request {} handled ", lines - 1)),
            ReadMode::Lines { from, .. } => Some(format!(" request {} handled ", from - 1)),
            _ => None,
        };
        let outcome = match self.pad.read(name, &mode, None) {
            Ok(reply)
                if expected
                    .as_ref()
                    .is_some_and(|line| !reply.text.contains(line)) =>
            {
                Outcome::Failed(
                    "DAMAGED (wrong slice)",
                    format!(
                        "{name}: {kind} has no line with `{}`",
                        expected.unwrap_or_default().trim()
                    ),
                )
            }
            Ok(_) => Outcome::Done,
            Err(err) => err.into(),
        };
        (kind, outcome)
    }

    /// A note written under a lease: acquire, write with the fencing token, release.
    fn note(&mut self) -> Result<(&'static str, Outcome)> {
        let name = format!("note-{}", self.rng.below(self.notes));
        let lease = match self.pad.acquire_lease(&name, &self.holder, LEASE_TTL) {
            Ok(lease) => lease,
            // Another worker holds it: what a lease is for, not an error.
            Err(Error::Conflict(ConflictKind::Leased(_))) => {
                return Ok(("note lease", Outcome::Expected("held by another worker")));
            }
            Err(err) => return Ok(("note lease", err.into())),
        };
        let text = format!(
            "{} at {}: step {} — {}\n",
            self.holder,
            now_ms(),
            self.rng.next(),
            "reproduce with the smallest input; ".repeat(1 + self.rng.below(8) as usize)
        );
        let hash = blake3::hash(text.as_bytes()).to_hex().to_string();
        let written =
            self.pad
                .with_lease(Some(lease.token))
                .write(&name, &text, WriteOptions::default());
        let outcome = match written {
            Ok(info) => {
                self.journal.line(&Line::Committed {
                    name: name.clone(),
                    version: info.version,
                    hash,
                })?;
                match self.pad.release_lease(&name, lease.token, &self.holder) {
                    Ok(_) => Outcome::Done,
                    // Slow enough that the lease lapsed and another worker claimed the name.
                    Err(Error::Conflict(ConflictKind::Fenced { .. })) => {
                        Outcome::Expected("release after the lease lapsed and was claimed")
                    }
                    Err(err) => err.into(),
                }
            }
            Err(Error::Conflict(ConflictKind::Fenced { .. })) => {
                Outcome::Expected("write fenced off: the lease lapsed and was claimed")
            }
            Err(err) => {
                let _ = self.pad.release_lease(&name, lease.token, &self.holder);
                err.into()
            }
        };
        Ok(("note write (leased)", outcome))
    }

    /// Deletes a log this process put.
    fn delete(&mut self) -> Result<(&'static str, Outcome)> {
        let at = self.rng.below(self.logs.len() as u64) as usize;
        let (name, _) = self.logs.swap_remove(at);
        self.journal.line(&Line::Deleting { name: name.clone() })?;
        Ok(("delete", self.pad.delete(&name, None).into()))
    }
}

// ---------------------------------------------------------------------------------------------------
// The soak

struct Run<'a> {
    args: &'a Args,
    store: String,
    session: String,
    dir: PathBuf,
    until: u64,
    rng: Rng,
}

impl Run<'_> {
    fn spawn(&mut self, id: usize) -> Result<Child> {
        let stderr = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(format!("worker-{id}.stderr")))?;
        Command::new(std::env::current_exe()?)
            .args(["worker", "--store", &self.store, "--session", &self.session])
            .args([
                "--id",
                &id.to_string(),
                "--workers",
                &self.args.workers.to_string(),
            ])
            .arg("--journal")
            .arg(self.dir.join(format!("worker-{id}.jsonl")))
            .args([
                "--until",
                &self.until.to_string(),
                "--seed",
                &self.rng.next().to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .context("starting a worker")
    }

    fn failure(&self, id: usize, status: ExitStatus) -> String {
        let stderr = std::fs::read_to_string(self.dir.join(format!("worker-{id}.stderr")))
            .unwrap_or_default();
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        format!(
            "worker {id}: {status}: {}",
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        )
    }
}

fn soak(args: &Args) -> Result<()> {
    if args.workers == 0 {
        bail!("--workers must be at least 1");
    }
    let temp = tempfile::tempdir()?;
    let dir = args.dir.clone().unwrap_or_else(|| temp.path().to_owned());
    std::fs::create_dir_all(&dir)?;
    let store = args
        .store
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}/soak.db", dir.display()));
    let seed = args.seed.unwrap_or_else(now_ms);
    // A session of its own: a database shared with other runs (or people) changes nothing here.
    let session = format!("soak-{seed}");
    // Opening once here creates the store before the workers race to.
    drop(Scratchpad::open(&store)?);
    let cli = match &args.cli {
        Some(cli) => cli.clone(),
        None => std::env::current_exe()?.with_file_name("scratchpad"),
    };
    if !cli.exists() {
        bail!(
            "no `scratchpad` executable at {} to run `check` with: build it \
             (cargo build --release -p scratchpad) or pass --cli",
            cli.display()
        );
    }
    let duration = Duration::from_secs_f64(args.minutes * 60.0);
    let started = Instant::now();
    let mut run = Run {
        args,
        store: store.clone(),
        session: session.clone(),
        dir: dir.clone(),
        until: now_ms() + duration.as_millis() as u64,
        rng: Rng::new(seed),
    };
    eprintln!(
        "soak: {} workers for {:.1} min on {}, a kill every {} s, seed {seed}, journals in {}",
        args.workers,
        args.minutes,
        scheme(&store),
        args.kill_every,
        dir.display()
    );
    let mut children = (0..args.workers)
        .map(|id| run.spawn(id))
        .collect::<Result<Vec<_>>>()?;
    let mut kills = 0u64;
    let mut failures = Vec::new();
    // Workers that ended near the end of the run, accounted for already.
    let mut reaped = HashSet::new();
    let mut loads = Vec::new();
    let mut last_load = Instant::now();
    let kill_every = Duration::from_secs(args.kill_every);
    let mut next_kill = Instant::now() + kill_every;
    while started.elapsed() < duration {
        std::thread::sleep(TICK);
        if last_load.elapsed() >= RSS_EVERY {
            loads.extend(load_average());
            last_load = Instant::now();
        }
        // A worker that died on its own before the end is a finding: note it and restart it.
        for (id, child) in children.iter_mut().enumerate() {
            if reaped.contains(&id) {
                continue;
            }
            if let Some(status) = child.try_wait()? {
                if !status.success() {
                    failures.push(run.failure(id, status));
                }
                if now_ms() + 1_000 < run.until {
                    *child = run.spawn(id)?;
                } else {
                    reaped.insert(id);
                }
            }
        }
        if args.kill_every > 0 && Instant::now() >= next_kill {
            next_kill += kill_every;
            let id = run.rng.below(args.workers as u64) as usize;
            if !reaped.contains(&id) && children[id].try_wait()?.is_none() {
                children[id].kill()?;
                children[id].wait()?;
                kills += 1;
                children[id] = run.spawn(id)?;
            }
        }
    }
    // Each stops on its own at the end, after the operation it is in; one that does not is hung.
    let stop_by = Instant::now() + STOP_GRACE;
    let mut running: Vec<usize> = (0..children.len())
        .filter(|id| !reaped.contains(id))
        .collect();
    while !running.is_empty() {
        let mut still = Vec::new();
        for id in running {
            match children[id].try_wait()? {
                Some(status) if !status.success() => failures.push(run.failure(id, status)),
                Some(_) => {}
                None if Instant::now() >= stop_by => {
                    children[id].kill()?;
                    children[id].wait()?;
                    failures.push(format!(
                        "worker {id}: still running {} s after the end (hung), killed",
                        STOP_GRACE.as_secs()
                    ));
                }
                None => still.push(id),
            }
        }
        running = still;
        std::thread::sleep(TICK);
    }
    let elapsed = started.elapsed();
    let report = Report::read(&dir, args.workers)?;
    report.print(args, &store, elapsed, kills, &loads, &failures);

    let check = run_check(&cli, &store)?;
    println!("\n`scratchpad check`: {}", check.summary);
    let verified = verify(&store, &session, &report)?;
    verified.print();
    if verified.lost() > 0 || verified.damaged() > 0 || check.damaged > 0 || !failures.is_empty() {
        bail!("the soak found lost or damaged data, or a worker that failed or hung");
    }
    if args.dir.is_none() {
        temp.close()?;
    }
    Ok(())
}

fn scheme(store: &str) -> &str {
    store.split("://").next().unwrap_or(store)
}

struct Check {
    summary: String,
    damaged: usize,
}

/// `scratchpad check` on the store (every session): how many contents it checked, and the damage.
fn run_check(cli: &Path, store: &str) -> Result<Check> {
    let started = Instant::now();
    let output = Command::new(cli)
        .args(["--json", "check"])
        .env("SCRATCHPAD_STORE", store)
        .output()
        .with_context(|| format!("running {}", cli.display()))?;
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).with_context(|| {
        format!(
            "`scratchpad check` ({}) printed no report: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )
    })?;
    let count = |key: &str| report[key].as_u64().unwrap_or(0);
    let list = |key: &str| report[key].as_array().map_or(0, Vec::len);
    let damaged = list("problems");
    let mut summary = format!(
        "{} ({:.1} s): {} contents, {} chunks, {:.1} MB read; damaged: {damaged}; \
         not made by the store: {}; unreferenced side files: {}",
        if output.status.success() {
            "passed"
        } else {
            "FAILED"
        },
        started.elapsed().as_secs_f64(),
        count("blobs"),
        count("chunks"),
        count("bytes") as f64 / 1e6,
        list("unexpected"),
        count("unreferenced_files"),
    );
    if let Some(problems) = report["problems"].as_array() {
        for problem in problems.iter().take(20) {
            summary.push_str(&format!("\n  DAMAGED: {problem}"));
        }
    }
    Ok(Check {
        summary,
        damaged: damaged + list("unexpected"),
    })
}

// ---------------------------------------------------------------------------------------------------
// Figures

#[derive(Default)]
struct Report {
    /// Latencies by operation (µs).
    micros: BTreeMap<String, Vec<u64>>,
    /// Ends other than plain success, by operation and kind: expected refusals and errors.
    expected: BTreeMap<(String, String), u64>,
    errors: BTreeMap<(String, String), (u64, String)>,
    /// Per worker: resident memory of its longest-lived process (KiB: first, peak, last reading).
    rss: Vec<(u64, u64, u64)>,
    processes: usize,
    commits: Vec<(String, u64, String)>,
    deleting: HashSet<String>,
}

impl Report {
    fn read(dir: &Path, workers: usize) -> Result<Self> {
        let mut report = Self::default();
        for id in 0..workers {
            let file = File::open(dir.join(format!("worker-{id}.jsonl")))?;
            let mut by_pid: HashMap<u32, Vec<u64>> = HashMap::new();
            for line in BufReader::new(file).lines() {
                let Ok(line) = serde_json::from_str::<Line>(&line?) else {
                    continue;
                };
                match line {
                    Line::Start { pid, rss_kib } | Line::Rss { pid, rss_kib } => {
                        by_pid.entry(pid).or_default().push(rss_kib);
                    }
                    Line::Op {
                        kind,
                        micros,
                        outcome,
                        error,
                    } => {
                        match (outcome, error) {
                            (Some(what), Some(message)) => {
                                let entry = report
                                    .errors
                                    .entry((kind.clone(), what))
                                    .or_insert((0, message));
                                entry.0 += 1;
                            }
                            (Some(what), None) => {
                                *report.expected.entry((kind.clone(), what)).or_default() += 1;
                            }
                            (None, _) => {}
                        }
                        report.micros.entry(kind).or_default().push(micros);
                    }
                    Line::Committed {
                        name,
                        version,
                        hash,
                    } => report.commits.push((name, version, hash)),
                    Line::Deleting { name } => {
                        report.deleting.insert(name);
                    }
                }
            }
            report.processes += by_pid.len();
            let longest = by_pid.values().max_by_key(|readings| readings.len());
            report.rss.push(longest.map_or((0, 0, 0), |r| {
                (r[0], r.iter().copied().max().unwrap_or(0), r[r.len() - 1])
            }));
        }
        Ok(report)
    }

    fn print(
        &self,
        args: &Args,
        store: &str,
        elapsed: Duration,
        kills: u64,
        loads: &[f64],
        failures: &[String],
    ) {
        let seconds = elapsed.as_secs_f64();
        println!(
            "\n{} workers, {:.1} min on {}, {kills} kills (SIGKILL, restarted), {} worker \
             processes in all",
            args.workers,
            seconds / 60.0,
            scheme(store),
            self.processes
        );
        if !loads.is_empty() {
            let mean = loads.iter().sum::<f64>() / loads.len() as f64;
            let max = loads.iter().copied().fold(0.0, f64::max);
            println!(
                "machine: {} cores, load average (1 min) during the run: mean {mean:.1}, max {max:.1}",
                std::thread::available_parallelism().map_or(0, usize::from)
            );
        }
        println!("\n| operation | count | ops/s | p50 | p99 | max | expected refusals | errors |");
        println!("|---|--:|--:|--:|--:|--:|--:|--:|");
        let mut total = 0usize;
        let mut all = Vec::new();
        for (kind, micros) in &self.micros {
            let mut sorted = micros.clone();
            sorted.sort_unstable();
            let expected: u64 = self
                .expected
                .iter()
                .filter(|((k, _), _)| k == kind)
                .map(|(_, n)| n)
                .sum();
            let errors: u64 = self
                .errors
                .iter()
                .filter(|((k, _), _)| k == kind)
                .map(|(_, (n, _))| n)
                .sum();
            total += sorted.len();
            println!(
                "| {kind} | {} | {:.1} | {} | {} | {} | {expected} | {errors} |",
                sorted.len(),
                sorted.len() as f64 / seconds,
                ms(quantile(&sorted, 0.5)),
                ms(quantile(&sorted, 0.99)),
                ms(sorted.last().copied().unwrap_or(0)),
            );
            all.extend(sorted);
        }
        all.sort_unstable();
        println!(
            "| all | {total} | {:.1} | {} | {} | {} | {} | {} |",
            total as f64 / seconds,
            ms(quantile(&all, 0.5)),
            ms(quantile(&all, 0.99)),
            ms(all.last().copied().unwrap_or(0)),
            self.expected.values().sum::<u64>(),
            self.errors.values().map(|(n, _)| n).sum::<u64>(),
        );
        println!("\nexpected refusals (the lease protocol at work, not errors):");
        if self.expected.is_empty() {
            println!("  none");
        }
        for ((kind, what), count) in &self.expected {
            println!("  {kind}: {count} × {what}");
        }
        println!("\nerrors by kind (first message of each):");
        if self.errors.is_empty() {
            println!("  none");
        }
        for ((kind, what), (count, message)) in &self.errors {
            println!("  {kind}: {count} × {what}: {message}");
        }
        let mib = |kib: u64| kib as f64 / 1024.0;
        let column = |pick: fn(&(u64, u64, u64)) -> u64| {
            let mut values: Vec<u64> = self.rss.iter().map(pick).collect();
            values.sort_unstable();
            format!(
                "median {:.1}, max {:.1}",
                mib(quantile(&values, 0.5)),
                mib(values.last().copied().unwrap_or(0))
            )
        };
        println!("\nresident memory (VmRSS) of each worker's longest-lived process, MiB:");
        println!("  at start (store open): {}", column(|r| r.0));
        println!("  peak:                  {}", column(|r| r.1));
        println!("  at the end:            {}", column(|r| r.2));
        println!("\nworkers that failed or hung:");
        if failures.is_empty() {
            println!("  none");
        }
        for failure in failures {
            println!("  {failure}");
        }
    }
}

fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn ms(micros: u64) -> String {
    if micros >= 10_000 {
        format!("{:.0} ms", micros as f64 / 1000.0)
    } else {
        format!("{:.2} ms", micros as f64 / 1000.0)
    }
}

// ---------------------------------------------------------------------------------------------------
// Nothing lost

#[derive(Default)]
struct Tally {
    recorded: usize,
    intact: usize,
    /// Deleted on purpose, or pruned from a note's history by the kept-versions limit.
    excused: usize,
    lost: Vec<String>,
    damaged: Vec<String>,
}

struct Verified {
    logs: Tally,
    notes: Tally,
}

impl Verified {
    fn lost(&self) -> usize {
        self.logs.lost.len() + self.notes.lost.len()
    }
    fn damaged(&self) -> usize {
        self.logs.damaged.len() + self.notes.damaged.len()
    }
    fn print(&self) {
        println!("\ncommitted versions the workers journaled, read back after the run:");
        for (what, excuse, tally) in [
            ("offloads", "deleted on purpose", &self.logs),
            (
                "note versions",
                "pruned by the kept-versions limit",
                &self.notes,
            ),
        ] {
            println!(
                "  {what}: {} journaled; {} read back with the content written; {} {excuse}; \
                 lost: {}; damaged: {}",
                tally.recorded,
                tally.intact,
                tally.excused,
                tally.lost.len(),
                tally.damaged.len()
            );
            for problem in tally.lost.iter().chain(&tally.damaged).take(20) {
                println!("    {problem}");
            }
        }
    }
}

/// Every version a worker journaled as committed is readable with the content it wrote, unless it
/// was deleted on purpose or is older than the versions a note keeps.
fn verify(store: &str, session: &str, report: &Report) -> Result<Verified> {
    let config = Config {
        session: Some(session.to_owned()),
        ..Config::default()
    };
    let pad = Scratchpad::open_with(Some(store), config)?;
    let keep = u64::from(pad.config().history_versions);
    let mut verified = Verified {
        logs: Tally::default(),
        notes: Tally::default(),
    };
    let mut latest: HashMap<String, Option<u64>> = HashMap::new();
    for (name, version, hash) in &report.commits {
        let tally = if name.starts_with("note-") {
            &mut verified.notes
        } else {
            &mut verified.logs
        };
        tally.recorded += 1;
        if report.deleting.contains(name) {
            tally.excused += 1;
            continue;
        }
        let current = *latest
            .entry(name.clone())
            .or_insert_with(|| pad.get(name).ok().map(|info| info.version));
        let Some(current) = current else {
            tally
                .lost
                .push(format!("{name} v{version}: the entry is gone"));
            continue;
        };
        if current < *version {
            tally.lost.push(format!(
                "{name} v{version}: the entry is at v{current}, older than a committed version"
            ));
            continue;
        }
        let content = if *version == current {
            pad.open_content(name)
                .and_then(|(_, reader)| read_all(reader))
        } else {
            pad.open_version_content(name, *version)
                .and_then(|(_, reader)| read_all(reader))
        };
        match content {
            Ok(bytes) if blake3::hash(&bytes).to_hex().as_str() == hash => tally.intact += 1,
            Ok(bytes) => tally.damaged.push(format!(
                "{name} v{version}: {} bytes read, not what was written",
                bytes.len()
            )),
            // An older version than the history keeps is refused with advice, not found.
            Err(Error::InvalidArgument(_)) if current - *version >= keep => tally.excused += 1,
            Err(err) => tally.lost.push(format!("{name} v{version}: {err}")),
        }
    }
    Ok(verified)
}

fn read_all(mut reader: Box<dyn std::io::Read + '_>) -> scratchpad_core::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes)?;
    Ok(bytes)
}
