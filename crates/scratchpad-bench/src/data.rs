//! The inputs scenarios measure (generated logs, JSON and test output) and the stores they go into.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::Result;
use scratchpad_core::{Config, PutOptions, Scratchpad};

/// A realistic service log, generated line by line so it never has to exist whole in memory.
pub(crate) struct LogSource {
    line: u64,
    remaining: u64,
    buf: Vec<u8>,
    pos: usize,
}

impl LogSource {
    pub(crate) fn new(bytes: u64) -> Self {
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

pub(crate) fn log_bytes(bytes: u64) -> Result<Vec<u8>> {
    let mut data = Vec::with_capacity(usize::try_from(bytes)?);
    LogSource::new(bytes).read_to_end(&mut data)?;
    // End on a whole line, as real logs do.
    if let Some(nl) = data.iter().rposition(|&b| b == b'\n') {
        data.truncate(nl + 1);
    }
    Ok(data)
}

pub(crate) fn json_bytes(bytes: u64) -> Vec<u8> {
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

pub(crate) fn open_pad(dir: &Path) -> Result<Scratchpad> {
    let config = Config {
        quota_bytes: None,
        ..Config::default()
    };
    Ok(Scratchpad::open_with(
        Some(&format!("sqlite://{}", dir.join("pad.db").display())),
        config,
    )?)
}

pub(crate) fn put_named(pad: &Scratchpad, name: &str, input: &mut dyn Read) -> Result<()> {
    pad.put(
        input,
        PutOptions {
            name: Some(name.into()),
            ..PutOptions::default()
        },
    )?;
    Ok(())
}

pub(crate) fn raw_sqlite(dir: &Path) -> Result<rusqlite::Connection> {
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

/// Unleveled lines, the classifier's slowest case: every word of every line is looked at.
pub(crate) fn test_run_bytes(bytes: usize) -> Vec<u8> {
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
