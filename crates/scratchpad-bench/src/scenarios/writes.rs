//! How fast offloads are written, and how much they take, against a synced file or raw SQLite.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use scratchpad_core::{Config, PutOptions, ReadMode, Scratchpad};

use crate::data::{LogSource, log_bytes, open_pad, put_named, raw_sqlite};
use crate::harness::{
    Row, dir_bytes, file_floor, fmt_duration, peak_rss_kib, reset_peak_rss, sibling_binary,
    sync_everything, time, watch_peak_rss,
};

/// 10,000 offloads of 5 KB each vs 10,000 raw SQLite inserts (one transaction each, as offloads commit).
pub(crate) fn offload_small_entries(reps: usize) -> Result<Row> {
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
pub(crate) fn offload_large(log: &[u8], reps: usize) -> Result<Vec<Row>> {
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

/// `scratchpad put --file` of the log into a new store, whole process, and the same again into
/// that store (a dedup hit), both against writing the same bytes to a file with fdatasync.
pub(crate) fn cli_put_file(log: &[u8], reps: usize) -> Result<Vec<Row>> {
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
pub(crate) fn cli_pipe_gig() -> Result<Row> {
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
pub(crate) fn postgres_rows(url: &str, log: &[u8], reps: usize) -> Result<Vec<Row>> {
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

pub(crate) fn dedup(pad: &Scratchpad, log: &[u8], reps: usize) -> Result<Row> {
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
pub(crate) const NOTE_EDIT_BYTES: u64 = 51_000_000;
/// One-line edits the scenario makes.
const NOTE_EDITS: usize = 20;

/// 20 one-line edits of a large note, each its own version: what the store grows by against the
/// note's size, what sharing chunks between versions would keep of it (the bytes of chunks no
/// earlier version has), and the time of an edit against writing the note to a plain file.
pub(crate) fn note_edits(bytes: u64) -> Result<Row> {
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

pub(crate) fn stream_gig() -> Result<Row> {
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
