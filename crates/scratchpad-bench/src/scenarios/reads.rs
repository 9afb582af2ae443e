//! How fast stored entries are read, searched, listed and collected, and how fast the CLI starts.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use scratchpad_core::{ListFilter, ReadMode, Scratchpad};

use crate::data::{LogSource, open_pad, put_named};
use crate::harness::{Row, sibling_binary, time};

pub(crate) fn slice_reads(pad: &Scratchpad, dir: &Path, reps: usize) -> Result<Vec<Row>> {
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

pub(crate) fn grep_vs_ripgrep(pad: &Scratchpad, log: &[u8], reps: usize) -> Result<Vec<Row>> {
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

pub(crate) fn cold_start(dir: &Path, reps: usize) -> Result<Row> {
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

pub(crate) fn list_and_gc(size: u64, reps: usize) -> Result<Vec<Row>> {
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
