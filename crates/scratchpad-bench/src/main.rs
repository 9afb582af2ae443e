//! `scratchpad-bench`: each scenario runs next to a physical baseline in the same process and the same
//! run, repeated, and prints min, median and the ratio of medians. Machines here are noisy; ratios
//! measured side by side are what the targets are stated in.

mod ui;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use scratchpad_core::{Config, ListFilter, PutOptions, ReadMode, Scratchpad};

#[derive(Debug, Parser)]
#[command(about = "Benchmarks against baselines measured in the same run")]
struct Args {
    /// Size of the large-entry scenarios in MB (1 for a quick run, 100 for the recorded figures).
    #[arg(long, default_value_t = 100)]
    mb: u64,
    /// Repetitions of each scenario (the 1 GB stream runs once).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Also stream 1 GB from a pipe (takes about 10 s and 1.2 GB of disk).
    #[arg(long)]
    gig: bool,
    /// Only run scenarios whose name contains this text, in any case.
    #[arg(long)]
    only: Option<String>,
    /// Also offload the log into this PostgreSQL store and grep it (a throwaway database: the
    /// scenario deletes what it wrote). `scripts/pg-cluster start` prints a URL to use.
    #[arg(long, value_name = "URL")]
    pg: Option<String>,
    /// Exit at once: the trivial binary the CLI cold start is compared with.
    #[arg(long, hide = true)]
    noop: bool,
}

/// A scenario's timings next to its baseline's.
struct Row {
    name: String,
    ours: Vec<Duration>,
    baseline_name: String,
    baseline: Vec<Duration>,
    target: Option<f64>,
    extra: String,
}

fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

fn min(times: &[Duration]) -> Duration {
    times.iter().min().copied().unwrap_or_default()
}

fn fmt_duration(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.0} µs")
    } else if us < 1_000_000.0 {
        format!("{:.1} ms", us / 1_000.0)
    } else {
        format!("{:.2} s", us / 1_000_000.0)
    }
}

fn time<T>(f: impl FnOnce() -> Result<T>) -> Result<(Duration, T)> {
    let start = Instant::now();
    let value = f()?;
    Ok((start.elapsed(), value))
}

/// Peak resident memory of this process since the last reset (KiB).
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Resets the peak so the next reading covers one scenario (Linux: clear_refs 5).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// A realistic service log, generated line by line so it never has to exist whole in memory.
struct LogSource {
    line: u64,
    remaining: u64,
    buf: Vec<u8>,
    pos: usize,
}

impl LogSource {
    fn new(bytes: u64) -> Self {
        Self {
            line: 0,
            remaining: bytes,
            buf: Vec::new(),
            pos: 0,
        }
    }
}

impl Read for LogSource {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.remaining == 0 {
            return Ok(0);
        }
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            while self.buf.len() < 64 * 1024 {
                self.line += 1;
                let i = self.line;
                if i.is_multiple_of(250_000) {
                    writeln!(
                        self.buf,
                        "2026-11-21T10:{:02}:{:02}Z ERROR db-3 query failed: deadlock detected (txn {i})",
                        (i / 60) % 60,
                        i % 60
                    )?;
                } else {
                    writeln!(
                        self.buf,
                        "2026-11-21T10:{:02}:{:02}Z INFO  api-2 GET /v1/orders/{i} 200 in {} ms",
                        (i / 60) % 60,
                        i % 60,
                        i % 97
                    )?;
                }
            }
        }
        let n = out
            .len()
            .min(self.buf.len() - self.pos)
            .min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        self.remaining -= n as u64;
        Ok(n)
    }
}

fn log_bytes(bytes: u64) -> Result<Vec<u8>> {
    let mut data = Vec::with_capacity(usize::try_from(bytes)?);
    LogSource::new(bytes).read_to_end(&mut data)?;
    // End on a whole line, as real logs do.
    if let Some(nl) = data.iter().rposition(|&b| b == b'\n') {
        data.truncate(nl + 1);
    }
    Ok(data)
}

fn json_bytes(bytes: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(usize::try_from(bytes).unwrap_or(0) + 1024);
    out.extend_from_slice(b"{\"items\":[");
    let mut i = 0u64;
    while (out.len() as u64) < bytes {
        if i > 0 {
            out.push(b',');
        }
        let _ = write!(
            out,
            "{{\"id\":{i},\"name\":\"item-{i}\",\"price\":{}.{:02},\"tags\":[\"a\",\"b\"],\"owner\":{{\"id\":{},\"email\":\"u{}@example.com\"}}}}",
            i % 1000,
            i % 100,
            i % 5000,
            i % 5000
        );
        i += 1;
    }
    let _ = write!(out, "],\"total\":{i}}}");
    out
}

fn open_pad(dir: &Path) -> Result<Scratchpad> {
    let config = Config {
        quota_bytes: None,
        ..Config::default()
    };
    Ok(Scratchpad::open_with(
        Some(&format!("sqlite://{}", dir.join("pad.db").display())),
        config,
    )?)
}

fn put_named(pad: &Scratchpad, name: &str, input: &mut dyn Read) -> Result<()> {
    pad.put(
        input,
        PutOptions {
            name: Some(name.into()),
            ..PutOptions::default()
        },
    )?;
    Ok(())
}

fn raw_sqlite(dir: &Path) -> Result<rusqlite::Connection> {
    let conn = rusqlite::Connection::open(dir.join("raw.db"))?;
    // The same page size and journal as the store, so the baseline differs only in what is written.
    conn.pragma_update(None, "page_size", scratchpad_core::store::sqlite::PAGE_SIZE)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, name TEXT, data BLOB)",
    )?;
    Ok(conn)
}

fn main() -> Result<()> {
    let args = Args::parse();
    if args.noop {
        return Ok(());
    }
    // Any case: the rows print "JSON", the scenario keys are "json".
    let only = args.only.as_deref().map(str::to_lowercase);
    let want = |name: &str| {
        only.as_deref()
            .is_none_or(|o| name.to_lowercase().contains(o))
    };
    let mb = args.mb.max(1);
    let size = mb * 1_000_000;
    let reps = args.reps.max(1);
    let mut rows = Vec::new();
    println!(
        "scratchpad-bench: {mb} MB entries, {reps} repetitions, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    // First, so its peak memory is not inflated by what earlier scenarios left in the heap.
    if args.gig && want("stream") {
        rows.push(stream_gig()?);
    }
    if args.gig && want("cli") {
        rows.push(cli_pipe_gig()?);
    }
    if want("offload-5k") {
        rows.push(offload_small_entries(reps.min(3))?);
    }
    let log = log_bytes(size)?;
    if want("offload-large") {
        rows.extend(offload_large(&log, reps)?);
    }
    if want("cli") {
        rows.extend(cli_put_file(&log, reps)?);
    }
    if want("read") || want("grep") || want("dedup") || want("cold") {
        let dir = tempfile::tempdir()?;
        let pad = open_pad(dir.path())?;
        put_named(&pad, "log", &mut log.as_slice())?;
        if want("read") {
            rows.extend(slice_reads(&pad, dir.path(), reps)?);
        }
        if want("grep") {
            rows.extend(grep_vs_ripgrep(&pad, &log, reps)?);
        }
        if want("dedup") {
            rows.push(dedup(&pad, &log, reps)?);
        }
        if want("cold") {
            rows.push(cold_start(dir.path(), reps)?);
        }
    }
    if [
        "classify every line, INFO-heavy log",
        "classify every line, unleveled test run",
        "text preview (classify, group, head, tail)",
        "summary read (every line templated)",
    ]
    .iter()
    .any(|name| want(name))
    {
        rows.extend(line_profiles(&log, reps, &want)?);
    }
    if let Some(url) = &args.pg
        && want("postgres")
    {
        rows.extend(postgres_rows(url, &log, reps)?);
    }
    drop(log);
    if want("note edits") {
        rows.push(note_edits(size.min(NOTE_EDIT_BYTES))?);
    }
    if want("json") {
        rows.push(json_preview(size, reps)?);
    }
    if want("list") || want("gc") {
        rows.extend(list_and_gc(size, reps.min(3))?);
    }
    if want("ui") {
        // The view's figures are stated for a 1 GB entry: `--gig` gives it that size.
        let entry = if args.gig { 1_000_000_000 } else { size };
        rows.extend(ui::rows(entry, reps)?);
    }
    print_rows(&rows);
    Ok(())
}

fn print_rows(rows: &[Row]) {
    println!();
    println!(
        "{:<44} {:>10} {:>10}   {:<30} {:>10} {:>8}  target",
        "scenario", "min", "median", "baseline", "median", "ratio"
    );
    for row in rows {
        let ours = median(&row.ours);
        let base = median(&row.baseline);
        let ratio = if row.baseline.is_empty() || base.is_zero() {
            "-".to_owned()
        } else {
            format!("{:.2}×", ours.as_secs_f64() / base.as_secs_f64())
        };
        let ratio_value = ours.as_secs_f64() / base.as_secs_f64().max(f64::MIN_POSITIVE);
        let target = match row.target {
            Some(t) if ratio_value <= t => format!("≤ {t} met"),
            Some(t) => format!("≤ {t} NOT met"),
            None => String::new(),
        };
        println!(
            "{:<44} {:>10} {:>10}   {:<30} {:>10} {:>8}  {}{}",
            row.name,
            fmt_duration(min(&row.ours)),
            fmt_duration(ours),
            row.baseline_name,
            if row.baseline.is_empty() {
                "-".into()
            } else {
                fmt_duration(base)
            },
            ratio,
            target,
            if row.extra.is_empty() {
                String::new()
            } else {
                format!("  ({})", row.extra)
            }
        );
    }
}

/// 10,000 offloads of 5 KB each vs 10,000 raw SQLite inserts (one transaction each, as offloads commit).
fn offload_small_entries(reps: usize) -> Result<Row> {
    const ENTRIES: usize = 10_000;
    let bodies: Vec<Vec<u8>> = (0..ENTRIES)
        .map(|i| log_bytes(5_000 + i as u64 % 7).unwrap_or_default())
        .map(|mut b| {
            b.extend_from_slice(
                format!("unique {}\n", blake3::hash(&b.len().to_le_bytes())).as_bytes(),
            );
            b
        })
        .enumerate()
        .map(|(i, mut b)| {
            b.extend_from_slice(format!("entry {i}\n").as_bytes());
            b
        })
        .collect();
    let mut ours = Vec::new();
    let mut baseline = Vec::new();
    for _ in 0..reps {
        let dir = tempfile::tempdir()?;
        let pad = open_pad(dir.path())?;
        let (t, ()) = time(|| {
            for (i, body) in bodies.iter().enumerate() {
                put_named(&pad, &format!("e{i}"), &mut body.as_slice())?;
            }
            Ok(())
        })?;
        ours.push(t);
        let conn = raw_sqlite(dir.path())?;
        let (t, ()) = time(|| {
            let mut stmt = conn.prepare("INSERT INTO t (name, data) VALUES (?1, ?2)")?;
            for (i, body) in bodies.iter().enumerate() {
                stmt.execute(rusqlite::params![format!("e{i}"), body])?;
            }
            Ok(())
        })?;
        baseline.push(t);
    }
    Ok(Row {
        name: "offload-5k: 10,000 × 5 KB entries".into(),
        ours,
        baseline_name: "raw SQLite inserts".into(),
        baseline,
        target: Some(3.0),
        extra: String::new(),
    })
}

/// One large offload vs the same bytes written to a file with fdatasync, and vs one raw SQLite insert.
fn offload_large(log: &[u8], reps: usize) -> Result<Vec<Row>> {
    let mut ours = Vec::new();
    let mut file = Vec::new();
    let mut raw = Vec::new();
    let mut peak = 0;
    for _ in 0..reps {
        let dir = tempfile::tempdir()?;
        let pad = open_pad(dir.path())?;
        reset_peak_rss();
        let before = peak_rss_kib();
        let (t, ()) = time(|| put_named(&pad, "log", &mut &log[..]))?;
        peak = peak.max(peak_rss_kib().saturating_sub(before));
        ours.push(t);
        let (t, ()) = time(|| {
            let mut f = std::fs::File::create(dir.path().join("plain.log"))?;
            f.write_all(log)?;
            f.sync_data()?;
            Ok(())
        })?;
        file.push(t);
        let conn = raw_sqlite(dir.path())?;
        let (t, ()) = time(|| {
            conn.execute("INSERT INTO t (name, data) VALUES ('log', ?1)", [log])?;
            Ok(())
        })?;
        raw.push(t);
    }
    let mb = log.len() / 1_000_000;
    Ok(vec![
        Row {
            name: format!("offload-large: {mb} MB (hash, index, preview)"),
            ours: ours.clone(),
            baseline_name: "file write + fdatasync".into(),
            baseline: file,
            target: Some(1.5),
            extra: format!("peak memory above baseline {} MB", peak / 1024),
        },
        Row {
            name: format!("offload-large: {mb} MB"),
            ours,
            baseline_name: "one raw SQLite insert".into(),
            baseline: raw,
            target: None,
            extra: String::new(),
        },
    ])
}

/// Writes `bytes` to a new file and syncs its data: the floor of every whole-process write.
fn file_floor(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.sync_data()?;
    Ok(())
}

/// Lets the disk catch up with earlier writes, so that they do not slow the next measurement.
fn sync_everything() {
    let _ = Command::new("sync").status();
}

/// The peak resident memory of a running child, read until it exits (KiB).
fn watch_peak_rss(pid: u32) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let status = format!("/proc/{pid}/status");
        let mut peak = 0;
        while let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok());
            match hwm {
                Some(kib) => peak = peak.max(kib),
                None => break, // exited: a zombie has no memory figures
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        peak
    })
}

/// `scratchpad put --file` of the log into a new store, whole process, and the same again into
/// that store (a dedup hit), both against writing the same bytes to a file with fdatasync.
fn cli_put_file(log: &[u8], reps: usize) -> Result<Vec<Row>> {
    let cli = sibling_binary("scratchpad")?;
    let input = tempfile::NamedTempFile::new()?;
    std::fs::write(input.path(), log)?;
    let (mut first, mut again, mut floor) = (Vec::new(), Vec::new(), Vec::new());
    let mut peak = 0;
    for _ in 0..reps {
        let dir = tempfile::tempdir()?;
        let store = format!("sqlite://{}", dir.path().join("pad.db").display());
        let put = |name: &str| -> Result<u64> {
            let mut child = Command::new(&cli)
                .args(["--store", &store, "put", name, "--file"])
                .arg(input.path())
                .stdout(Stdio::null())
                .spawn()
                .context("running scratchpad")?;
            let watch = watch_peak_rss(child.id());
            if !child.wait()?.success() {
                bail!("scratchpad put --file failed");
            }
            Ok(watch.join().unwrap_or(0))
        };
        // The floor first: each measurement starts with the previous one's writes on disk.
        let (t, ()) = time(|| file_floor(&dir.path().join("plain.log"), log))?;
        floor.push(t);
        sync_everything();
        let (t, rss) = time(|| put("log"))?;
        peak = peak.max(rss);
        first.push(t);
        sync_everything();
        let (t, _) = time(|| put("again"))?;
        again.push(t);
        sync_everything();
    }
    let mb = log.len() / 1_000_000;
    Ok(vec![
        Row {
            name: format!("cli: `put --file` of {mb} MB, new store"),
            ours: first,
            baseline_name: "file write + fdatasync".into(),
            baseline: floor.clone(),
            target: Some(1.5),
            extra: format!("peak memory {} MB", peak / 1024),
        },
        Row {
            name: format!("cli: the same {mb} MB again (dedup)"),
            ours: again,
            baseline_name: "file write + fdatasync".into(),
            baseline: floor,
            target: Some(0.75),
            extra: String::new(),
        },
    ])
}

/// 1 GiB of log piped into `scratchpad put` vs into `cat > file && sync file`.
fn cli_pipe_gig() -> Result<Row> {
    const GIG: u64 = 1 << 30;
    let cli = sibling_binary("scratchpad")?;
    let dir = tempfile::tempdir()?;
    let store = format!("sqlite://{}", dir.path().join("pad.db").display());
    let plain = dir.path().join("plain.log");
    let pipe = |command: &mut Command| -> Result<u64> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()?;
        let watch = watch_peak_rss(child.id());
        let mut stdin = child.stdin.take().context("no stdin")?;
        std::io::copy(&mut LogSource::new(GIG), &mut stdin)?;
        drop(stdin);
        if !child.wait()?.success() {
            bail!("{command:?} failed");
        }
        Ok(watch.join().unwrap_or(0))
    };
    let (ours, peak) = time(|| pipe(Command::new(&cli).args(["--store", &store, "put", "gig"])))?;
    let (floor, _) = time(|| {
        pipe(
            Command::new("sh")
                .args(["-c", "cat > \"$1\" && sync \"$1\"", "sh"])
                .arg(&plain),
        )
    })?;
    let floor_mb_s = GIG as f64 / 1e6 / floor.as_secs_f64();
    let mb_s = GIG as f64 / 1e6 / ours.as_secs_f64();
    Ok(Row {
        name: "cli: 1 GiB piped into `put`".into(),
        ours: vec![ours],
        baseline_name: "cat > file && sync".into(),
        baseline: vec![floor],
        // At least 0.7 of the floor's throughput: at most 1/0.7 of its time.
        target: Some(1.43),
        extra: format!(
            "{mb_s:.0} MB/s vs {floor_mb_s:.0} MB/s, peak memory {} MB (limit 64)",
            peak / 1024
        ),
    })
}

/// The log offloaded into PostgreSQL and grepped there, against the targets of the write-path work
/// (1.5 s and 150 ms for 100 MB).
fn postgres_rows(url: &str, log: &[u8], reps: usize) -> Result<Vec<Row>> {
    let pad =
        Scratchpad::open_with(Some(url), Config::default())?.with_session("bench-postgres")?;
    let (mut offload, mut grep) = (Vec::new(), Vec::new());
    let mode = ReadMode::grep("ERROR", 2);
    for i in 0..reps {
        // Each repetition new content (a dedup hit would store nothing).
        let mut content = format!("repetition {i}\n").into_bytes();
        content.extend_from_slice(log);
        let name = format!("log{i}");
        let (t, ()) = time(|| put_named(&pad, &name, &mut content.as_slice()))?;
        offload.push(t);
        let (t, _) = time(|| Ok(pad.read(&name, &mode, None)?))?;
        grep.push(t);
        pad.delete(&name, None)?;
    }
    pad.gc()?;
    let mb = log.len() / 1_000_000;
    let target = |name: &str, times: Vec<Duration>, limit: Duration| Row {
        name: format!("postgres: {name}"),
        ours: times,
        baseline_name: format!("target {}", fmt_duration(limit)),
        baseline: vec![limit],
        target: Some(1.0),
        extra: String::new(),
    };
    Ok(vec![
        target(
            &format!("offload {mb} MB"),
            offload,
            Duration::from_millis(1_500),
        ),
        target(
            &format!("grep -C2 ERROR over {mb} MB"),
            grep,
            Duration::from_millis(150),
        ),
    ])
}

fn slice_reads(pad: &Scratchpad, dir: &Path, reps: usize) -> Result<Vec<Row>> {
    let info = pad.get("log")?;
    let mid_char = info.chars / 2;
    let mid_line = info.lines / 2;
    let range = ReadMode::Range {
        start: mid_char,
        end: Some(mid_char + 2_000),
    };
    let lines = ReadMode::Lines {
        from: mid_line,
        to: Some(mid_line + 49),
    };
    let mut rows = Vec::new();
    for (name, mode) in [("2,000-char range", &range), ("50-line range", &lines)] {
        // Warm: the engine is open and the pages are cached, as in a running server.
        pad.read("log", mode, None)?;
        let mut ours = Vec::new();
        for _ in 0..reps.max(20) {
            let (t, _) = time(|| Ok(pad.read("log", mode, None)?))?;
            ours.push(t);
        }
        let url = format!("sqlite://{}", dir.join("pad.db").display());
        let fresh = (0..reps)
            .map(|_| Ok(time(|| Ok(Scratchpad::open(&url)?.read("log", mode, None)?))?.0))
            .collect::<Result<Vec<_>>>()?;
        rows.push(Row {
            name: format!("read: {name} from the middle, warm"),
            ours,
            baseline_name: "target 100 µs".into(),
            baseline: vec![Duration::from_micros(100)],
            target: Some(1.0),
            extra: format!("entry {} MB", info.bytes / 1_000_000),
        });
        rows.push(Row {
            name: format!("read: {name}, open + read"),
            ours: fresh,
            baseline_name: "target 1 ms".into(),
            baseline: vec![Duration::from_millis(1)],
            target: None,
            extra: "includes opening the store".into(),
        });
    }
    Ok(rows)
}

fn grep_vs_ripgrep(pad: &Scratchpad, log: &[u8], reps: usize) -> Result<Vec<Row>> {
    let file = tempfile::NamedTempFile::new()?;
    std::fs::write(file.path(), log)?;
    let rg_available = Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok();
    if !rg_available {
        println!(
            "note: ripgrep (rg) is not installed; grep rows have no baseline (apt-get install ripgrep)"
        );
    }
    let mut rows = Vec::new();
    for (label, pattern) in [
        ("literal ERROR", "ERROR"),
        ("every-line regex", r"in \d{2} ms$"),
    ] {
        let mode = ReadMode::Grep {
            pattern: pattern.into(),
            context: 2,
            max_matches: None,
            ignore_case: false,
            from: None,
        };
        let mut ours = Vec::new();
        let mut base = Vec::new();
        for _ in 0..reps {
            let (t, _) = time(|| Ok(pad.read("log", &mode, None)?))?;
            ours.push(t);
            if rg_available {
                let (t, ()) = time(|| {
                    let status = Command::new("rg")
                        .args(["-n", "-C2", pattern])
                        .arg(file.path())
                        .stdout(Stdio::null())
                        .status()?;
                    if status.code() == Some(2) {
                        bail!("rg failed");
                    }
                    Ok(())
                })?;
                base.push(t);
            }
        }
        rows.push(Row {
            name: format!("grep -C2 {label} over {} MB", log.len() / 1_000_000),
            ours,
            baseline_name: "rg -n -C2 on a file".into(),
            baseline: base,
            target: Some(1.0),
            extra: "ours counts every match, shows the first 100".into(),
        });
    }
    Ok(rows)
}

fn dedup(pad: &Scratchpad, log: &[u8], reps: usize) -> Result<Row> {
    let mut ours = Vec::new();
    let mut base = Vec::new();
    for i in 0..reps {
        // As an offloaded tool output is stored: from memory, so a copy is found by its hash.
        let (t, _) = time(|| {
            Ok(pad.put_bytes(
                log,
                PutOptions {
                    name: Some(format!("copy{i}")),
                    ..PutOptions::default()
                },
            )?)
        })?;
        ours.push(t);
        let (t, _) = time(|| Ok(blake3::hash(log)))?;
        base.push(t);
    }
    Ok(Row {
        name: format!("dedup: identical {} MB output", log.len() / 1_000_000),
        ours,
        baseline_name: "blake3 of the bytes".into(),
        baseline: base,
        target: None,
        extra: "stores no new content, reads none again".into(),
    })
}

/// The note of the edit scenario (bytes): the size at which whole copies per version were seen to
/// take 973 MB for 20 edits.
const NOTE_EDIT_BYTES: u64 = 51_000_000;
/// One-line edits the scenario makes.
const NOTE_EDITS: usize = 20;

/// 20 one-line edits of a large note, each its own version: what the store grows by against the
/// note's size, what sharing chunks between versions would keep of it (the bytes of chunks no
/// earlier version has), and the time of an edit against writing the note to a plain file.
fn note_edits(bytes: u64) -> Result<Row> {
    let log = log_bytes(bytes)?;
    let lines = log.iter().filter(|&&b| b == b'\n').count();
    let dir = tempfile::tempdir()?;
    let plain = tempfile::tempdir()?;
    let pad = open_pad(dir.path())?;
    pad.put(
        &mut log.as_slice(),
        PutOptions {
            name: Some("note".into()),
            ..PutOptions::default()
        },
    )?;
    sync_everything();
    let before = dir_bytes(dir.path())?;
    let (mut ours, mut file) = (Vec::new(), Vec::new());
    let mut changed = 0;
    for edit in 0..NOTE_EDITS {
        // Spread over the note; each line names its own order, so the old text is found once.
        let order = (edit + 1) * lines / (NOTE_EDITS + 1);
        let old = format!("/v1/orders/{order} 200 ");
        let new = format!("/v1/orders/{order} 503 (retried after an upstream timeout) ");
        changed += new.len();
        let (t, outcome) = time(|| Ok(pad.edit("note", &old, &new, false, None)?))?;
        if outcome.replacements != 1 {
            bail!("edit {edit} replaced {} times", outcome.replacements);
        }
        ours.push(t);
        let (t, ()) = time(|| file_floor(&plain.path().join("note.log"), &log))?;
        file.push(t);
    }
    sync_everything();
    let grown = dir_bytes(dir.path())?.saturating_sub(before);
    let versions = pad.history("note")?.versions.len();
    let unshared = unshared_chunk_bytes(&dir.path().join("pad.db"))?;
    let note = log.len() as f64;
    Ok(Row {
        name: format!(
            "note edits: {NOTE_EDITS} one-line edits of a {:.1} MB note",
            log.len() as f64 / 1e6
        ),
        ours,
        baseline_name: "file write + fdatasync".into(),
        baseline: file,
        target: None,
        extra: format!(
            "store grew {:.1} MB = {:.2}× the note ({versions} versions kept, {changed} bytes \
             changed); chunks of later versions no earlier one has: {:.1} MB = {:.3}× the note",
            grown as f64 / 1e6,
            grown as f64 / note,
            unshared as f64 / 1e6,
            unshared as f64 / note,
        ),
    })
}

/// Bytes of every file under `dir`: the database, its log and its side files.
fn dir_bytes(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        total += if meta.is_dir() {
            dir_bytes(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

/// Bytes of the chunks of later contents that no content stored before them holds (the same
/// length and checksum): what a store sharing chunks between contents adds for them.
fn unshared_chunk_bytes(db: &Path) -> Result<u64> {
    let conn = rusqlite::Connection::open(db)?;
    let mut statement = conn.prepare(
        "SELECT c.blob, c.len, c.checksum FROM chunks c JOIN blobs b ON b.id = c.blob \
         WHERE b.state = 1 ORDER BY c.blob, c.seq",
    )?;
    let rows = statement.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, Option<i64>>(2)?,
        ))
    })?;
    let mut seen = std::collections::HashSet::new();
    let mut first = None;
    let mut unshared = 0u64;
    for row in rows {
        let (blob, len, sum) = row?;
        let first = *first.get_or_insert(blob);
        if seen.insert((len, sum)) && blob != first {
            unshared += u64::try_from(len)?;
        }
    }
    Ok(unshared)
}

fn sibling_binary(name: &str) -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let path = exe.with_file_name(name);
    if !path.exists() {
        bail!(
            "{} not found; build it first: cargo build --release -p scratchpad",
            path.display()
        );
    }
    Ok(path)
}

fn cold_start(dir: &Path, reps: usize) -> Result<Row> {
    let cli = sibling_binary("scratchpad")?;
    let me = std::env::current_exe()?;
    let store = format!("sqlite://{}", dir.join("pad.db").display());
    let mut ours = Vec::new();
    let mut base = Vec::new();
    for _ in 0..reps.max(10) {
        let (t, ()) = time(|| {
            let out = Command::new(&cli)
                .args(["--store", &store, "read", "log", "--lines", "10-20"])
                .stdout(Stdio::null())
                .status()
                .context("running scratchpad")?;
            if !out.success() {
                bail!("scratchpad read failed");
            }
            Ok(())
        })?;
        ours.push(t);
        let (t, ()) = time(|| {
            Command::new(&me).arg("--noop").status()?;
            Ok(())
        })?;
        base.push(t);
    }
    Ok(Row {
        name: "cold start: `scratchpad read --lines 10-20`".into(),
        ours,
        baseline_name: "a trivial Rust binary".into(),
        baseline: base,
        target: None,
        extra: String::new(),
    })
}

/// Unleveled lines, the classifier's slowest case: every word of every line is looked at.
fn test_run_bytes(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 100);
    let mut i = 0u64;
    while out.len() < bytes {
        let _ = writeln!(
            out,
            "test orders::pricing::tests::total_with_discount_{i} ... ok"
        );
        i += 1;
    }
    out
}

fn throughput(bytes: usize, times: &[Duration]) -> f64 {
    bytes as f64 / 1e6 / median(times).as_secs_f64().max(f64::MIN_POSITIVE)
}

/// The per-line work every offload does (classify, group, head and tail) and the summary read,
/// against counting the lines with memchr.
/// CPU time this thread has used (Linux, 10 ms resolution), so that throughput can be stated for
/// the CPU the work had, not for the wall clock of a machine that other builds share.
fn thread_cpu() -> Duration {
    let ticks = std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|stat| {
            let fields: Vec<u64> = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .skip(11)
                .take(2)
                .filter_map(|f| f.parse().ok())
                .collect();
            Some(fields.iter().sum::<u64>())
        })
        .unwrap_or(0);
    // USER_HZ is 100 on Linux.
    Duration::from_millis(ticks * 10)
}

/// Runs `ours` and `baseline` `reps` times each; returns their wall times and the CPU time all of
/// `ours` took.
fn measure<T>(
    reps: usize,
    mut ours: impl FnMut() -> Result<T>,
    mut baseline: impl FnMut() -> u64,
) -> Result<(Vec<Duration>, Vec<Duration>, Duration, T)> {
    let (mut ours_times, mut base_times) = (Vec::new(), Vec::new());
    let mut cpu = Duration::ZERO;
    let mut last = None;
    for _ in 0..reps {
        let cpu_before = thread_cpu();
        let (t, value) = time(&mut ours)?;
        cpu += thread_cpu().saturating_sub(cpu_before);
        ours_times.push(t);
        last = Some(value);
        let (t, _) = time(|| Ok(baseline()))?;
        base_times.push(t);
    }
    let value = last.ok_or_else(|| anyhow::anyhow!("no repetitions"))?;
    Ok((ours_times, base_times, cpu, value))
}

/// "612 MB/s wall (median), 1,040 MB/s on CPU".
fn rates(bytes: usize, reps: usize, wall: &[Duration], cpu: Duration) -> String {
    let on_cpu = (bytes * reps) as f64 / 1e6 / cpu.as_secs_f64().max(f64::MIN_POSITIVE);
    format!(
        "{:.0} MB/s wall (median), {on_cpu:.0} MB/s on CPU",
        throughput(bytes, wall)
    )
}

/// The per-line work every offload does (classify, group, head and tail) and the summary read,
/// against counting the lines with memchr.
fn line_profiles(log: &[u8], reps: usize, want: &dyn Fn(&str) -> bool) -> Result<Vec<Row>> {
    use scratchpad_core::preview::severity::classify;
    use scratchpad_core::preview::{PreviewConfig, TextPreviewBuilder};
    use scratchpad_core::read::summary::{SummaryOptions, summarize};

    let unleveled = test_run_bytes(log.len());
    let text = std::str::from_utf8(log)?;
    let mb = log.len() / 1_000_000;
    let mut rows = Vec::new();
    for (label, data) in [
        ("INFO-heavy log", log),
        ("unleveled test run", &unleveled[..]),
    ] {
        if !want(&format!("classify every line, {label}")) {
            continue;
        }
        let (ours, baseline, cpu, leveled) = measure(
            reps,
            || {
                let mut n = 0u64;
                let mut start = 0;
                for nl in memchr::memchr_iter(b'\n', data) {
                    n += u64::from(classify(&data[start..nl]).level.is_some());
                    start = nl + 1;
                }
                Ok(n)
            },
            || memchr_lines(data),
        )?;
        rows.push(Row {
            name: format!("classify every line, {mb} MB {label}"),
            extra: format!(
                "{}; {leveled} lines with a level",
                rates(data.len(), reps, &ours, cpu)
            ),
            ours,
            baseline_name: "count lines (memchr)".into(),
            baseline,
            target: None,
        });
    }
    if want("text preview (classify, group, head, tail)") {
        let (ours, baseline, cpu, _) = measure(
            reps,
            || {
                let mut builder = TextPreviewBuilder::new(&PreviewConfig::default());
                // The pieces ingestion pushes: 256 KiB chunks.
                let mut rest = text;
                while !rest.is_empty() {
                    let mut cut = rest.len().min(256 * 1024);
                    while !rest.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    builder.push(&rest[..cut]);
                    rest = &rest[cut..];
                }
                Ok(builder.finish())
            },
            || memchr_lines(log),
        )?;
        rows.push(Row {
            name: format!("text preview of {mb} MB (classify, group, head, tail)"),
            extra: rates(log.len(), reps, &ours, cpu),
            ours,
            baseline_name: "count lines (memchr)".into(),
            baseline,
            target: None,
        });
    }
    if want("summary read (every line templated)") {
        let (ours, baseline, cpu, summary) = measure(
            reps,
            || Ok(summarize(log, &SummaryOptions::default())?),
            || memchr_lines(log),
        )?;
        rows.push(Row {
            name: format!("summary read of {mb} MB (every line templated)"),
            extra: format!(
                "{}; {} templates",
                rates(log.len(), reps, &ours, cpu),
                summary.templates
            ),
            ours,
            baseline_name: "count lines (memchr)".into(),
            baseline,
            target: None,
        });
    }
    Ok(rows)
}

fn memchr_lines(data: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', data).count() as u64
}

fn json_preview(size: u64, reps: usize) -> Result<Row> {
    let doc = json_bytes(size);
    let mut ours = Vec::new();
    let mut base = Vec::new();
    for _ in 0..reps {
        let (t, preview) = time(|| {
            Ok(scratchpad_core::preview::json_shape_preview(
                doc.as_slice(),
                1_500,
            )?)
        })?;
        if preview.is_none() {
            bail!("the generated document was not previewed as JSON");
        }
        ours.push(t);
        let (t, _) = time(|| Ok(serde_json::from_slice::<serde::de::IgnoredAny>(&doc)?))?;
        base.push(t);
    }
    Ok(Row {
        name: format!("JSON shape preview of {} MB", doc.len() / 1_000_000),
        ours,
        baseline_name: "serde validation (IgnoredAny)".into(),
        baseline: base,
        target: Some(2.0),
        extra: String::new(),
    })
}

fn list_and_gc(size: u64, reps: usize) -> Result<Vec<Row>> {
    let mut list = Vec::new();
    let mut gc_small = Vec::new();
    let mut gc_large = Vec::new();
    let mut returned = 0;
    for _ in 0..reps {
        let dir = tempfile::tempdir()?;
        let pad = open_pad(dir.path())?;
        for i in 0..10_000 {
            put_named(
                &pad,
                &format!("n{i}"),
                &mut format!("note {i}\n").as_bytes(),
            )?;
        }
        let (t, count) = time(|| {
            let mut count = 0;
            let mut cursor: Option<String> = None;
            loop {
                let page = pad.list(&ListFilter::default(), cursor.as_deref(), 1_000)?;
                count += page.entries.len();
                match page.next_cursor {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
            }
            Ok(count)
        })?;
        if count != 10_000 {
            bail!("listed {count} entries, expected 10,000");
        }
        list.push(t);
        // Half of them expire now; the amortized collection does not run on TTL changes.
        for i in 0..5_000 {
            pad.set_ttl(&format!("n{i}"), scratchpad_core::Ttl::After(1), None)?;
        }
        std::thread::sleep(Duration::from_millis(5));
        let (t, report) = time(|| Ok(pad.gc()?))?;
        if report.expired < 5_000 {
            bail!(
                "expected 5,000 expired entries, GC removed {}",
                report.expired
            );
        }
        gc_small.push(t);
        put_named(&pad, "big", &mut LogSource::new(size))?;
        pad.set_ttl("big", scratchpad_core::Ttl::After(1), None)?;
        std::thread::sleep(Duration::from_millis(5));
        let (t, report) = time(|| Ok(pad.gc()?))?;
        returned = report
            .disk_bytes_before
            .saturating_sub(report.disk_bytes_after);
        gc_large.push(t);
    }
    Ok(vec![
        Row {
            name: "list: page through 10,000 entries".into(),
            ours: list,
            baseline_name: String::new(),
            baseline: Vec::new(),
            target: None,
            extra: "1,000 per page".into(),
        },
        Row {
            name: "gc: 5,000 expired entries".into(),
            ours: gc_small,
            baseline_name: String::new(),
            baseline: Vec::new(),
            target: None,
            extra: String::new(),
        },
        Row {
            name: format!("gc: one expired {} MB entry", size / 1_000_000),
            ours: gc_large,
            baseline_name: String::new(),
            baseline: Vec::new(),
            target: None,
            extra: format!("{} MB of disk returned", returned / 1_000_000),
        },
    ])
}

fn stream_gig() -> Result<Row> {
    const GIG: u64 = 1 << 30;
    let dir = tempfile::tempdir()?;
    let pad = open_pad(dir.path())?;
    reset_peak_rss();
    let (t, ()) = time(|| put_named(&pad, "gig", &mut LogSource::new(GIG)))?;
    let peak = peak_rss_kib();
    let mb_s = GIG as f64 / 1e6 / t.as_secs_f64();
    Ok(Row {
        name: "stream 1 GiB from a generator".into(),
        ours: vec![t],
        baseline_name: String::new(),
        baseline: Vec::new(),
        target: None,
        extra: format!("{mb_s:.0} MB/s, peak memory {} MB (limit 128)", peak / 1024),
    })
}
