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
//! so a kill never leaves half a line). An operation a kill cuts short writes nothing and is not
//! counted: only what the journal says committed must still be there.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use scratchpad_core::{PutOptions, ReadMode, Scratchpad, Source, WriteOptions};
use serde::{Deserialize, Serialize};

#[derive(Debug, Parser)]
#[command(about = "Soak: worker processes on one store, killed and restarted; figures and a check")]
struct Args {
    #[command(subcommand)]
    mode: Option<Mode>,
    /// Worker processes (count).
    #[arg(long, default_value_t = 16)]
    workers: usize,
    /// How long the workers run (minutes; fractions allowed, e.g. 0.5).
    #[arg(long, default_value_t = 10.0)]
    minutes: f64,
    /// Seconds between two kills of a random worker (0: no kills).
    #[arg(long, default_value_t = 30)]
    kill_every: u64,
    /// The store (`sqlite://…` or `postgres://…`); default: a new SQLite store in `--dir`.
    #[arg(long)]
    store: Option<String>,
    /// Where the store (when SQLite) and the workers' journals go; default: a temporary directory.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The `scratchpad` executable that runs `check` (default: next to this one).
    #[arg(long)]
    cli: Option<PathBuf>,
    /// Seed of the random choices (default: the clock).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Debug, Subcommand)]
enum Mode {
    /// One worker (started by the soak itself).
    Worker {
        #[arg(long)]
        store: String,
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

/// Notes every worker writes to, each under a lease (count per two workers): enough sharing that
/// leases are contended, few enough that a note collects many versions.
const WORKERS_PER_NOTE: usize = 2;

/// How long a worker's lease lasts (ms): a killed holder's lease must end within the run.
const LEASE_TTL: Duration = Duration::from_secs(10);

/// How often a worker records its resident memory (ms of wall clock).
const RSS_EVERY: Duration = Duration::from_secs(5);

/// One line of a worker's journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum Line {
    /// A worker process started (its resident memory then, KiB).
    Start { pid: u32, rss_kib: u64 },
    /// Resident memory, now and then (KiB).
    Rss { pid: u32, rss_kib: u64 },
    /// An operation ended: its kind, how long it took (µs) and its error, if any.
    Op {
        kind: String,
        micros: u64,
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
            id,
            workers,
            ref journal,
            until,
            seed,
        }) => worker(store, id, workers, journal, until, seed),
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

/// Resident memory of this process (KiB), from /proc; 0 where there is none.
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

// ---------------------------------------------------------------------------------------------------
// A worker

/// A generated log of `lines` lines, different for every seed.
fn log(rng: &mut Rng, lines: u64) -> String {
    const LEVELS: [&str; 4] = ["INFO", "DEBUG", "WARN", "ERROR"];
    let mut out = String::new();
    for i in 0..lines {
        let level = LEVELS[(rng.below(20) as usize).min(3)];
        let value = rng.next();
        out.push_str(&format!(
            "2026-11-25T22:{:02}:{:02}.{:03}Z {level} request {i} handled in {} ms (id {value:016x})\n",
            i / 3600 % 60,
            i / 60 % 60,
            i % 1000,
            value % 900
        ));
    }
    out
}

struct Journal(File);

impl Journal {
    fn line(&mut self, line: &Line) -> Result<()> {
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        // One write per line: a kill lands between lines, never inside one.
        self.0.write_all(text.as_bytes())?;
        Ok(())
    }
}

fn worker(
    store: &str,
    id: usize,
    workers: usize,
    journal: &Path,
    until: u64,
    seed: u64,
) -> Result<()> {
    let mut journal = Journal(
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(journal)
            .context("opening the journal")?,
    );
    let pid = std::process::id();
    journal.line(&Line::Start {
        pid,
        rss_kib: rss_kib(pid),
    })?;
    let pad = Scratchpad::open(store)?;
    let holder = format!("worker-{id}");
    let mut rng = Rng::new(seed ^ (u64::from(pid) << 32) ^ now_ms());
    let notes = workers.div_ceil(WORKERS_PER_NOTE).max(1) as u64;
    // The logs this process put and has not deleted (a restarted worker starts afresh: names carry
    // the pid so two processes of one worker never write the same log).
    let mut logs: Vec<String> = Vec::new();
    let mut next_log = 0u64;
    let mut last_rss = Instant::now();
    while now_ms() < until {
        if last_rss.elapsed() >= RSS_EVERY {
            journal.line(&Line::Rss {
                pid,
                rss_kib: rss_kib(pid),
            })?;
            last_rss = Instant::now();
        }
        let roll = rng.below(100);
        let started = Instant::now();
        let (kind, outcome): (&str, Result<()>) = match roll {
            // Offloads: logs from a few lines to a few MB, most small, as tool outputs are.
            0..=24 => {
                let lines = match rng.below(10) {
                    0 => 20_000 + rng.below(30_000),
                    1..=3 => 500 + rng.below(2_000),
                    _ => 5 + rng.below(200),
                };
                let text = log(&mut rng, lines);
                let name = format!("w{id}-p{pid}-log{next_log}");
                next_log += 1;
                let hash = blake3::hash(text.as_bytes()).to_hex().to_string();
                let put = pad.put_bytes(
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
                    Ok(info) => {
                        journal.line(&Line::Committed {
                            name: name.clone(),
                            version: info.version,
                            hash,
                        })?;
                        logs.push(name);
                        Ok(())
                    }
                    Err(err) => Err(err.into()),
                };
                ("put", outcome)
            }
            // Reads of a log this process put: head, tail, grep, lines.
            25..=59 if !logs.is_empty() => {
                let name = &logs[rng.below(logs.len() as u64) as usize];
                let (kind, mode) = match rng.below(4) {
                    0 => ("read head", ReadMode::Head { n: Some(2_000) }),
                    1 => ("read tail", ReadMode::Tail { n: Some(2_000) }),
                    2 => ("read grep", ReadMode::grep("ERROR", 2)),
                    _ => {
                        let from = 1 + rng.below(100);
                        (
                            "read lines",
                            ReadMode::Lines {
                                from,
                                to: Some(from + 49),
                            },
                        )
                    }
                };
                (
                    kind,
                    pad.read(name, &mode, None).map(drop).map_err(Into::into),
                )
            }
            // A note written under a lease: acquire, write with the token, release.
            25..=84 => {
                let name = format!("note-{}", rng.below(notes));
                match pad.acquire_lease(&name, &holder, LEASE_TTL) {
                    Ok(lease) => {
                        let text = format!(
                            "{holder} at {}: step {} — {}\n",
                            now_ms(),
                            rng.next(),
                            "reproduce with the smallest input; ".repeat(1 + rng.below(8) as usize)
                        );
                        let hash = blake3::hash(text.as_bytes()).to_hex().to_string();
                        let written = pad.with_lease(Some(lease.token)).write(
                            &name,
                            &text,
                            WriteOptions::default(),
                        );
                        let outcome = match written {
                            Ok(info) => {
                                journal.line(&Line::Committed {
                                    name: name.clone(),
                                    version: info.version,
                                    hash,
                                })?;
                                pad.release_lease(&name, lease.token)
                                    .map(drop)
                                    .map_err(Into::into)
                            }
                            Err(err) => {
                                let _ = pad.release_lease(&name, lease.token);
                                Err(err.into())
                            }
                        };
                        ("note write (leased)", outcome)
                    }
                    // Another worker holds it: what a lease is for, not an error.
                    Err(scratchpad_core::Error::Conflict(
                        scratchpad_core::ConflictKind::Leased(_),
                    )) => ("lease busy", Ok(())),
                    Err(err) => ("note write (leased)", Err(err.into())),
                }
            }
            // Deletes of a log this process put.
            85..=96 if !logs.is_empty() => {
                let name = logs.swap_remove(rng.below(logs.len() as u64) as usize);
                journal.line(&Line::Deleting { name: name.clone() })?;
                (
                    "delete",
                    pad.delete(&name, None).map(drop).map_err(Into::into),
                )
            }
            85..=96 => ("idle", Ok(())),
            _ => ("gc", pad.gc().map(drop).map_err(Into::into)),
        };
        journal.line(&Line::Op {
            kind: kind.to_owned(),
            micros: started.elapsed().as_micros() as u64,
            error: outcome.err().map(|e| format!("{e:#}")),
        })?;
    }
    journal.line(&Line::Rss {
        pid,
        rss_kib: rss_kib(pid),
    })?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------------
// The soak

fn spawn_worker(
    args: &Args,
    store: &str,
    id: usize,
    dir: &Path,
    until: u64,
    seed: u64,
) -> Result<Child> {
    Command::new(std::env::current_exe()?)
        .args(["worker", "--store", store])
        .args([
            "--id",
            &id.to_string(),
            "--workers",
            &args.workers.to_string(),
        ])
        .arg("--journal")
        .arg(dir.join(format!("worker-{id}.jsonl")))
        .args(["--until", &until.to_string(), "--seed", &seed.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(File::create(dir.join(format!("worker-{id}.stderr")))?)
        .spawn()
        .context("starting a worker")
}

fn soak(args: &Args) -> Result<()> {
    let temp = tempfile::tempdir()?;
    let dir = args.dir.clone().unwrap_or_else(|| temp.path().to_owned());
    std::fs::create_dir_all(&dir)?;
    let store = args
        .store
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}/soak.db", dir.display()));
    // Opening once here creates the store before the workers race to.
    drop(Scratchpad::open(&store)?);
    let seed = args.seed.unwrap_or_else(now_ms);
    let mut rng = Rng::new(seed);
    let duration = Duration::from_secs_f64(args.minutes * 60.0);
    let started = Instant::now();
    let until = now_ms() + duration.as_millis() as u64;
    eprintln!(
        "soak: {} workers for {:.1} min on {}, a kill every {} s, seed {seed}, journals in {}",
        args.workers,
        args.minutes,
        scheme(&store),
        args.kill_every,
        dir.display()
    );
    let mut children = (0..args.workers)
        .map(|id| spawn_worker(args, &store, id, &dir, until, rng.next()))
        .collect::<Result<Vec<_>>>()?;
    let mut kills = 0u64;
    let mut next_kill = Instant::now() + Duration::from_secs(args.kill_every);
    while started.elapsed() < duration {
        std::thread::sleep(Duration::from_millis(200));
        if args.kill_every > 0 && Instant::now() >= next_kill {
            next_kill += Duration::from_secs(args.kill_every);
            let id = rng.below(args.workers as u64) as usize;
            let child = &mut children[id];
            if child.try_wait()?.is_none() {
                child.kill()?;
                child.wait()?;
                kills += 1;
                children[id] = spawn_worker(args, &store, id, &dir, until, rng.next())?;
            }
        }
    }
    let mut exits = Vec::new();
    for (id, child) in children.iter_mut().enumerate() {
        // Each stops on its own at `until`, after the operation it is in.
        let status = child.wait()?;
        if !status.success() {
            let stderr = std::fs::read_to_string(dir.join(format!("worker-{id}.stderr")))
                .unwrap_or_default();
            exits.push(format!("worker {id}: {status}: {}", stderr.trim()));
        }
    }
    let elapsed = started.elapsed();
    let report = Report::read(&dir, args.workers)?;
    report.print(args, &store, elapsed, kills, &exits);

    let check = run_check(args, &store)?;
    println!("\n`scratchpad check`: {check}");
    let verified = verify(&store, &report)?;
    println!(
        "\ncommitted versions recorded: {}; verified readable with their content: {}; \
         excused (deleted on purpose or pruned by the history limit): {}; lost: {}; damaged: {}",
        verified.recorded,
        verified.intact,
        verified.excused,
        verified.lost.len(),
        verified.damaged.len()
    );
    for problem in verified.lost.iter().chain(&verified.damaged).take(20) {
        println!("  {problem}");
    }
    if !verified.lost.is_empty() || !verified.damaged.is_empty() || !exits.is_empty() {
        bail!("the soak found lost or damaged data, or a worker that failed");
    }
    Ok(())
}

fn scheme(store: &str) -> &str {
    store.split("://").next().unwrap_or(store)
}

/// `scratchpad check` on the store: its last line, and whether it passed.
fn run_check(args: &Args, store: &str) -> Result<String> {
    let cli = match &args.cli {
        Some(cli) => cli.clone(),
        None => std::env::current_exe()?.with_file_name("scratchpad"),
    };
    let output = Command::new(&cli)
        .arg("check")
        .env("SCRATCHPAD_STORE", store)
        .output()
        .with_context(|| format!("running {}", cli.display()))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    let summary = text.trim().replace('\n', " / ");
    if !output.status.success() {
        bail!("`scratchpad check` failed ({}): {summary}", output.status);
    }
    Ok(format!("passed: {summary}"))
}

// ---------------------------------------------------------------------------------------------------
// Figures

#[derive(Default)]
struct Report {
    /// Latencies by kind (µs), and errors by kind and message.
    micros: BTreeMap<String, Vec<u64>>,
    errors: BTreeMap<String, BTreeMap<String, u64>>,
    /// Per worker: (process lifetime's first, last RSS KiB, readings) of its longest-lived process.
    rss: Vec<(u64, u64, usize)>,
    commits: Vec<(String, u64, String)>,
    deleting: HashSet<String>,
}

impl Report {
    fn read(dir: &Path, workers: usize) -> Result<Self> {
        let mut report = Self::default();
        for id in 0..workers {
            let file = File::open(dir.join(format!("worker-{id}.jsonl")))?;
            let mut by_pid: HashMap<u32, Vec<u64>> = HashMap::new();
            let mut order = Vec::new();
            for line in BufReader::new(file).lines() {
                let Ok(line) = serde_json::from_str::<Line>(&line?) else {
                    continue;
                };
                match line {
                    Line::Start { pid, rss_kib } | Line::Rss { pid, rss_kib } => {
                        if !by_pid.contains_key(&pid) {
                            order.push(pid);
                        }
                        by_pid.entry(pid).or_default().push(rss_kib);
                    }
                    Line::Op {
                        kind,
                        micros,
                        error,
                    } => {
                        if let Some(error) = error {
                            *report
                                .errors
                                .entry(kind.clone())
                                .or_default()
                                .entry(error)
                                .or_default() += 1;
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
            let longest = order
                .iter()
                .filter_map(|pid| by_pid.get(pid))
                .max_by_key(|readings| readings.len());
            report
                .rss
                .push(longest.map_or((0, 0, 0), |r| (r[0], r[r.len() - 1], r.len())));
        }
        Ok(report)
    }

    fn print(&self, args: &Args, store: &str, elapsed: Duration, kills: u64, exits: &[String]) {
        let seconds = elapsed.as_secs_f64();
        println!(
            "\n{} workers, {:.1} min on {}, {kills} kills (SIGKILL, restarted)",
            args.workers,
            seconds / 60.0,
            scheme(store)
        );
        println!("\n| operation | count | ops/s | p50 | p99 | errors |");
        println!("|---|---|---|---|---|---|");
        let mut total = 0usize;
        for (kind, micros) in &self.micros {
            let mut sorted = micros.clone();
            sorted.sort_unstable();
            let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
            let errors: u64 = self.errors.get(kind).map_or(0, |e| e.values().sum());
            total += sorted.len();
            println!(
                "| {kind} | {} | {:.1} | {} | {} | {errors} |",
                sorted.len(),
                sorted.len() as f64 / seconds,
                ms(at(0.5)),
                ms(at(0.99)),
            );
        }
        println!("| all | {total} | {:.1} | | | |", total as f64 / seconds);
        println!("\nerrors by kind:");
        if self.errors.is_empty() {
            println!("  none");
        }
        for (kind, messages) in &self.errors {
            for (message, count) in messages {
                println!("  {kind}: {count} × {message}");
            }
        }
        println!("\nresident memory of each worker's longest-lived process (MiB, start → end):");
        let row: Vec<String> = self
            .rss
            .iter()
            .map(|(start, end, _)| {
                format!("{:.0}→{:.0}", *start as f64 / 1024.0, *end as f64 / 1024.0)
            })
            .collect();
        println!("  {}", row.join(", "));
        for exit in exits {
            println!("  failed: {exit}");
        }
    }
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

struct Verified {
    recorded: usize,
    intact: usize,
    excused: usize,
    lost: Vec<String>,
    damaged: Vec<String>,
}

/// Every version a worker recorded as committed is readable with the content it wrote, unless it
/// was deleted on purpose or is older than the versions a note keeps.
fn verify(store: &str, report: &Report) -> Result<Verified> {
    let pad = Scratchpad::open(store)?;
    let keep = u64::from(pad.config().history_versions);
    let mut verified = Verified {
        recorded: report.commits.len(),
        intact: 0,
        excused: 0,
        lost: Vec::new(),
        damaged: Vec::new(),
    };
    let mut current: HashMap<String, Option<u64>> = HashMap::new();
    for (name, version, hash) in &report.commits {
        if report.deleting.contains(name) {
            verified.excused += 1;
            continue;
        }
        let latest = *current
            .entry(name.clone())
            .or_insert_with(|| pad.get(name).ok().map(|info| info.version));
        let Some(latest) = latest else {
            verified
                .lost
                .push(format!("{name} v{version}: the entry is gone"));
            continue;
        };
        let content = if *version == latest {
            pad.open_content(name).and_then(|(_, mut reader)| {
                let mut bytes = Vec::new();
                reader
                    .read_to_end(&mut bytes)
                    .map_err(Into::into)
                    .map(|_| bytes)
            })
        } else {
            pad.read_version(
                name,
                *version,
                &ReadMode::Full { force: true },
                Some(usize::MAX),
            )
            .map(|reply| reply.text.into_bytes())
        };
        match content {
            Ok(bytes) if blake3::hash(&bytes).to_hex().as_str() == hash => verified.intact += 1,
            Ok(bytes) => verified.damaged.push(format!(
                "{name} v{version}: {} bytes read, not what was written",
                bytes.len()
            )),
            Err(_) if latest.saturating_sub(*version) >= keep => verified.excused += 1,
            Err(err) => verified.lost.push(format!("{name} v{version}: {err}")),
        }
    }
    Ok(verified)
}
