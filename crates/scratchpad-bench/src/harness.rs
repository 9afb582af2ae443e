//! How a scenario and its baseline are timed, their memory read and their rows printed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

/// A scenario's timings next to its baseline's.
pub(crate) struct Row {
    pub(crate) name: String,
    pub(crate) ours: Vec<Duration>,
    pub(crate) baseline_name: String,
    pub(crate) baseline: Vec<Duration>,
    pub(crate) target: Option<f64>,
    pub(crate) extra: String,
}

pub(crate) fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

pub(crate) fn min(times: &[Duration]) -> Duration {
    times.iter().min().copied().unwrap_or_default()
}

pub(crate) fn fmt_duration(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.0} µs")
    } else if us < 1_000_000.0 {
        format!("{:.1} ms", us / 1_000.0)
    } else {
        format!("{:.2} s", us / 1_000_000.0)
    }
}

pub(crate) fn time<T>(f: impl FnOnce() -> Result<T>) -> Result<(Duration, T)> {
    let start = Instant::now();
    let value = f()?;
    Ok((start.elapsed(), value))
}

/// Peak resident memory of this process since the last reset (KiB).
pub(crate) fn peak_rss_kib() -> u64 {
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
pub(crate) fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

pub(crate) fn print_rows(rows: &[Row]) {
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

/// Writes `bytes` to a new file and syncs its data: the floor of every whole-process write.
pub(crate) fn file_floor(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.sync_data()?;
    Ok(())
}

/// Lets the disk catch up with earlier writes, so that they do not slow the next measurement.
pub(crate) fn sync_everything() {
    let _ = Command::new("sync").status();
}

/// The peak resident memory of a running child, read until it exits (KiB).
pub(crate) fn watch_peak_rss(pid: u32) -> std::thread::JoinHandle<u64> {
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

/// Bytes of every file under `dir`: the database, its log and its side files.
pub(crate) fn dir_bytes(dir: &Path) -> Result<u64> {
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

pub(crate) fn sibling_binary(name: &str) -> Result<PathBuf> {
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
pub(crate) fn measure<T>(
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
pub(crate) fn rates(bytes: usize, reps: usize, wall: &[Duration], cpu: Duration) -> String {
    let on_cpu = (bytes * reps) as f64 / 1e6 / cpu.as_secs_f64().max(f64::MIN_POSITIVE);
    format!(
        "{:.0} MB/s wall (median), {on_cpu:.0} MB/s on CPU",
        throughput(bytes, wall)
    )
}
