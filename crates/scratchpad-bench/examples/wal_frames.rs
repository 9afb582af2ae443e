//! Which pages a small offload writes: puts 5 KB logs into a fresh SQLite store, one commit each,
//! and counts the write-ahead log's frames per put by the b-tree (table or index) each page
//! belongs to; then the same for the raw-insert baseline of `offload-5k`. Each commit writes every
//! page it changed as a 4 KiB frame, and a checkpoint copies it again, so frames per put is what a
//! small write costs on disk.
//!
//! ```sh
//! cargo run --release -p scratchpad-bench --example wal_frames -- 250
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use scratchpad_core::store::sqlite::PAGE_SIZE;
use scratchpad_core::{Config, PutOptions, Scratchpad};

/// A WAL frame: a 24-byte header, then the page.
const FRAME: u64 = 24 + PAGE_SIZE as u64;
/// Puts before counting, so the counted ones find the b-trees as a used store has them.
const WARM_UP: usize = 200;

fn body(i: usize) -> Vec<u8> {
    let mut text = String::new();
    let mut n = 0;
    while text.len() < 5_000 {
        text += &format!(
            "2026-01-01T00:00:{:02}Z INFO worker {} handled request {} in {} ms\n",
            n % 60,
            i % 17,
            n * 7 + i,
            (n * 13 + i) % 500
        );
        n += 1;
    }
    text += &format!("entry {i}\n");
    text.into_bytes()
}

/// The log's length and its checkpoint sequence number (header bytes 12..16), which changes when
/// a checkpoint starts the log over.
fn wal_state(db: &Path) -> Result<(u64, u32)> {
    let log = std::fs::read(db.with_extension("db-wal"))?;
    let sequence = u32::from_be_bytes(log.get(12..16).context("no log header")?.try_into()?);
    Ok((log.len() as u64, sequence))
}

/// Frames per put in `from..to` of the log, by the b-tree their page belongs to.
fn frames_by_btree(db: &Path, from: u64, to: u64, puts: usize) -> Result<Vec<(String, f64)>> {
    let log = std::fs::read(db.with_extension("db-wal"))?;
    let conn = rusqlite::Connection::open(db)?;
    let mut owner = HashMap::new();
    let mut pages = conn.prepare("SELECT name, pageno FROM dbstat")?;
    for row in pages.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (name, page) = row?;
        owner.insert(page, name);
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut at = usize::try_from(from)?;
    while (at as u64) + FRAME <= to {
        let header: [u8; 4] = log[at..at + 4].try_into()?;
        let page = i64::from(u32::from_be_bytes(header));
        let name = match owner.get(&page) {
            Some(name) => name.clone(),
            // Pages no b-tree owns: the free list, and the pointer map of incremental vacuum.
            None => "(free list, pointer map)".into(),
        };
        *counts.entry(name).or_default() += 1;
        at += usize::try_from(FRAME)?;
    }
    let mut rows: Vec<(String, f64)> = counts
        .into_iter()
        .map(|(name, n)| (name, n as f64 / puts as f64))
        .collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    Ok(rows)
}

fn report(what: &str, elapsed: std::time::Duration, puts: usize, rows: &[(String, f64)]) {
    let total: f64 = rows.iter().map(|(_, n)| n).sum();
    println!(
        "{what}: {:.1} µs per put, {total:.1} frames per put",
        elapsed.as_secs_f64() * 1e6 / puts as f64
    );
    for (name, n) in rows {
        println!("  {n:>6.2}  {name}");
    }
}

fn main() -> Result<()> {
    let puts: usize = match std::env::args().nth(1) {
        Some(n) => n.parse().context("usage: wal_frames [PUTS]")?,
        None => 250,
    };
    let bodies: Vec<Vec<u8>> = (0..WARM_UP + puts).map(body).collect();
    let dir = tempfile::tempdir()?;

    let db = dir.path().join("pad.db");
    let config = Config {
        quota_bytes: None,
        ..Config::default()
    };
    let pad = Scratchpad::open_with(Some(&format!("sqlite://{}", db.display())), config)?;
    let put = |i: usize| {
        pad.put(
            &mut bodies[i].as_slice(),
            PutOptions {
                name: Some(format!("e{i}")),
                ..PutOptions::default()
            },
        )
    };
    for i in 0..WARM_UP {
        put(i)?;
    }
    let (from, before) = wal_state(&db)?;
    let started = Instant::now();
    for i in WARM_UP..WARM_UP + puts {
        put(i)?;
    }
    let elapsed = started.elapsed();
    let (to, after) = wal_state(&db)?;
    // A checkpoint in between starts the log over: the count would be wrong.
    ensure!(
        before == after,
        "the log was checkpointed while counting; ask for fewer puts"
    );
    report(
        "offload (Scratchpad::put)",
        elapsed,
        puts,
        &frames_by_btree(&db, from, to, puts)?,
    );

    let raw = dir.path().join("raw.db");
    let conn = rusqlite::Connection::open(&raw)?;
    conn.pragma_update(None, "page_size", PAGE_SIZE)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // Counting only: a checkpoint would start the log over.
    conn.pragma_update(None, "wal_autocheckpoint", 0)?;
    conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, data BLOB)")?;
    let mut insert = conn.prepare("INSERT INTO t (name, data) VALUES (?1, ?2)")?;
    for (i, body) in bodies.iter().enumerate().take(WARM_UP) {
        insert.execute(rusqlite::params![format!("e{i}"), body])?;
    }
    let (from, _) = wal_state(&raw)?;
    let started = Instant::now();
    for (i, body) in bodies.iter().enumerate().skip(WARM_UP) {
        insert.execute(rusqlite::params![format!("e{i}"), body])?;
    }
    let elapsed = started.elapsed();
    let (to, _) = wal_state(&raw)?;
    // Counted while the connection is open: the last one to close checkpoints and removes the log.
    let rows = frames_by_btree(&raw, from, to, puts)?;
    report("raw insert (the offload-5k baseline)", elapsed, puts, &rows);
    Ok(())
}
