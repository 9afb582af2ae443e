//! `diff` of two 100 MB entries stays within a memory bound far below the size of either: the
//! peak resident memory of the process is measured while it runs.

use std::io::Write as _;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::Pad;

/// Bytes of each entry.
const ENTRY_BYTES: usize = 100 * 1024 * 1024;
/// The most resident memory the diffing process may reach (KiB): half of one entry, so holding
/// either side whole fails it.
const PEAK_RSS_KIB: u64 = 50 * 1024;

/// A test run's log: `lines` lines, the ones in `failed` (0-based) failing, `inserted` extra lines
/// after line `insert_at`.
fn write_log(path: &std::path::Path, failed: &[usize], insert_at: usize, inserted: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut written = 0;
    let mut i = 0;
    while written < ENTRY_BYTES {
        let line = if failed.contains(&i) {
            format!("test suite::case_{i:08} ... FAILED (took 12ms)\n")
        } else {
            format!("test suite::case_{i:08} ... ok (took 12ms)\n")
        };
        out.write_all(line.as_bytes()).unwrap();
        written += line.len();
        if i == insert_at {
            for j in 0..inserted {
                let line = format!("warning: slow test detected ({j} of {inserted})\n");
                out.write_all(line.as_bytes()).unwrap();
                written += line.len();
            }
        }
        i += 1;
    }
    out.flush().unwrap();
}

/// The highest `VmHWM` (peak resident set, KiB) seen while the process runs.
fn peak_rss_kib(child: &mut std::process::Child) -> u64 {
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&status)
            && let Some(kib) = text
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        {
            peak = peak.max(kib);
        }
        if child.try_wait().unwrap().is_some() {
            return peak;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the diff did not finish"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn diff_of_two_100_mb_entries_stays_within_its_memory_bound() {
    let pad = Pad::new();
    let (before, after) = (
        pad.dir.path().join("run_1.log"),
        pad.dir.path().join("run_2.log"),
    );
    write_log(&before, &[], usize::MAX, 0);
    write_log(&after, &[1_000_000, 2_000_000], 1_500_000, 3_000);
    for (name, path) in [("run_1", &before), ("run_2", &after)] {
        pad.ok(&["put", name, "--file", path.to_str().unwrap()]);
    }
    std::fs::remove_file(&before).unwrap();
    std::fs::remove_file(&after).unwrap();

    let (first, peak) = diff(&pad, &["diff", "run_1", "run_2", "--budget", "4000"]);
    assert!(
        first.contains(
            "-test suite::case_01000000 ... ok (took 12ms)\n+test suite::case_01000000 ... FAILED (took 12ms)\n"
        ),
        "{first}"
    );
    let next = first
        .lines()
        .find_map(|line| line.strip_prefix("[more differences; continue with: `scratchpad "))
        .and_then(|rest| rest.strip_suffix("`]"))
        .unwrap_or_else(|| panic!("no continuation: {first}"));
    assert!(
        next.starts_with("diff run_1 run_2 --from 1 --to 1 --cursor "),
        "{next}"
    );
    let args: Vec<&str> = next.split(' ').chain(["--budget", "4000"]).collect();
    let (second, peak_2) = diff(&pad, &args);
    assert!(
        second.contains(" test suite::case_01500000 ... ok (took 12ms)\n+warning: slow test detected (0 of 3000)\n"),
        "the inserted block is found where it was inserted, not shown as a rewrite: {second}"
    );
    for peak in [peak, peak_2] {
        assert!(
            peak > 0 && peak < PEAK_RSS_KIB,
            "peak resident memory {peak} KiB; the bound is {PEAK_RSS_KIB} KiB for two entries of {} MiB",
            ENTRY_BYTES >> 20
        );
    }
    eprintln!(
        "diff of two {} MiB entries: peak RSS {peak} KiB, {peak_2} KiB going on from the cursor",
        ENTRY_BYTES >> 20
    );
}

/// Runs a diff; its output and the peak resident memory of its process (KiB).
fn diff(pad: &Pad, args: &[&str]) -> (String, u64) {
    let mut child = pad
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reply is small: reading it after the exit cannot block the child.
    let peak = peak_rss_kib(&mut child);
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (String::from_utf8_lossy(&output.stdout).into_owned(), peak)
}
