//! The summary read over large inputs: a long log reads as its templates, and a gigabyte streams
//! through in bounded memory (measured in a child process, whose peak resident size is its own).

use std::io::{Read, Write};
use std::process::Command;
use std::time::Instant;

use scratchpad_core::preview::Level;
use scratchpad_core::read::summary::{SUMMARY_TEMPLATES_PER_LEVEL, SummaryOptions, summarize};

use super::corpus::Rng;

/// A service log generated on the fly: 30 forms of line in realistic proportions, plus (when
/// `novel` is set) one line in ten with two words never seen before, so templates never stop
/// coming (a new word in one place only is a name, and its lines share one template).
struct GeneratedLog {
    rng: Rng,
    remaining: u64,
    line: u64,
    novel: bool,
    buf: Vec<u8>,
    pos: usize,
}

impl GeneratedLog {
    fn new(bytes: u64, novel: bool) -> GeneratedLog {
        GeneratedLog {
            rng: Rng::new(42),
            remaining: bytes,
            line: 0,
            novel,
            buf: Vec::with_capacity(64 * 1024),
            pos: 0,
        }
    }

    fn refill(&mut self) {
        self.buf.clear();
        self.pos = 0;
        while self.buf.len() < 60 * 1024 {
            self.line += 1;
            let i = self.line;
            let r = self.rng.next();
            let ts = format!(
                "2026-11-21T10:{:02}:{:02}.{:03}Z",
                (i / 600) % 60,
                (i / 10) % 60,
                i % 1000
            );
            let _ = match r % 1_000 {
                _ if i.is_multiple_of(700_001) => writeln!(
                    self.buf,
                    "{ts} FATAL ledger-{} checksum mismatch at batch {i}",
                    r % 7
                ),
                0..=2 => writeln!(
                    self.buf,
                    "{ts} ERROR payments-{} charge failed: card processor returned 502 (order=ord_{:x})",
                    r % 3,
                    r >> 20
                ),
                3..=4 => writeln!(
                    self.buf,
                    "{ts} ERROR inventory-{} upstream timeout after {} ms",
                    r % 5,
                    r % 3_000
                ),
                5..=40 => writeln!(
                    self.buf,
                    "{ts} WARN  db-{} slow query {}ms: SELECT id FROM carts WHERE id = $1",
                    r % 4,
                    r % 3_000
                ),
                41..=200 => writeln!(
                    self.buf,
                    "{ts} DEBUG cart-cache hit key=cart:{} ttl={}s",
                    r % 999_999,
                    r % 600
                ),
                201..=300 if self.novel => writeln!(
                    self.buf,
                    "{ts} INFO  feature {} flag {} evaluated",
                    novel_word(r),
                    novel_word(r.rotate_left(29))
                ),
                _ => {
                    let route = [
                        "GET /v1/carts/",
                        "POST /v1/orders/",
                        "GET /v1/products/SKU-",
                        "PATCH /v1/carts/",
                        "DELETE /v1/items/",
                    ][(r % 5) as usize];
                    let status = [200, 201, 204, 304, 404][(r >> 8) as usize % 5];
                    let service = [
                        "checkout-api",
                        "cart-api",
                        "catalog-api",
                        "orders-api",
                        "search-api",
                    ][(r >> 16) as usize % 5];
                    writeln!(
                        self.buf,
                        "{ts} INFO  {service} {route}{} {status} {}ms",
                        r % 999_999,
                        r % 250
                    )
                }
            };
        }
    }
}

/// A letters-only word (no digits, so templates keep it): a new form of line.
fn novel_word(mut r: u64) -> String {
    let mut word = String::new();
    for _ in 0..10 {
        word.push(char::from(b'a' + (r % 26) as u8));
        r /= 26;
    }
    word
}

impl Read for GeneratedLog {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.remaining == 0 {
            return Ok(0);
        }
        if self.pos == self.buf.len() {
            self.refill();
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

/// Two million lines of a service log read as the few dozen forms they take.
#[test]
fn two_million_lines_read_as_their_templates() {
    let input = GeneratedLog::new(150 * 1024 * 1024, false);
    let summary = summarize(input, &SummaryOptions::default()).unwrap();
    assert!(summary.lines > 2_000_000, "{}", summary.lines);
    assert!(summary.templates <= 40, "{} templates", summary.templates);
    assert_eq!(summary.unlisted_lines, 0);
    assert_eq!(summary.rows[0].level, Some(Level::Fatal));
    assert_eq!(summary.rows[0].count, summary.levels.fatal);
    let text = summary.render();
    assert!(text.chars().count() <= 4_000, "{text}");
    assert!(text.contains("[fatal ×"), "{text}");
    assert_eq!(
        summary.rows.iter().map(|r| r.count).sum::<u64>() + sum_remaining(&summary),
        summary.lines
    );
}

/// Lines of the templates not on the first page, read by paging.
fn sum_remaining(first: &scratchpad_core::read::summary::Summary) -> u64 {
    let mut total = 0;
    let mut skip = first.next_skip();
    while let Some(next) = skip {
        let page = summarize(
            GeneratedLog::new(150 * 1024 * 1024, false),
            &SummaryOptions {
                skip: next,
                budget_chars: 4_000,
            },
        )
        .unwrap();
        total += page.rows.iter().map(|r| r.count).sum::<u64>();
        skip = page.next_skip();
    }
    total
}

const CHILD_BYTES: &str = "SCRATCHPAD_TEST_SUMMARY_BYTES";

/// 1 GiB with templates that never stop coming: the summary keeps its cap, counts the rest, and
/// the process's peak resident memory stays small.
#[test]
fn a_gigabyte_streams_through_the_summary_in_bounded_memory() {
    let started = Instant::now();
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "suite::summaries::summarize_generated_input_in_this_process",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_BYTES, (1u64 << 30).to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let field = |name: &str| -> u64 {
        let at = stdout
            .find(&format!("{name}="))
            .unwrap_or_else(|| panic!("{name} in {stdout}"));
        stdout[at + name.len() + 1..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let peak_kib = field("peak_kib");
    assert!(field("lines") > 10_000_000, "{stdout}");
    assert!(
        field("unlisted") > 1_000_000,
        "the cap was never reached: {stdout}"
    );
    assert_eq!(field("info_templates"), SUMMARY_TEMPLATES_PER_LEVEL as u64);
    assert!(peak_kib < 64 * 1024, "peak {peak_kib} KiB: {stdout}");
    eprintln!(
        "1 GiB summary: {stdout} (test wall clock {:.1}s)",
        started.elapsed().as_secs_f64()
    );
}

#[test]
#[ignore = "the child process of a_gigabyte_streams_through_the_summary_in_bounded_memory"]
fn summarize_generated_input_in_this_process() {
    let Some(bytes) = std::env::var(CHILD_BYTES).ok().and_then(|b| b.parse().ok()) else {
        return;
    };
    if std::env::var("SCRATCHPAD_TEST_GENERATE_ONLY").is_ok() {
        let started = Instant::now();
        let n = std::io::copy(&mut GeneratedLog::new(bytes, true), &mut std::io::sink()).unwrap();
        println!(
            "generated {n} bytes in {:.1}s",
            started.elapsed().as_secs_f64()
        );
        return;
    }
    let started = Instant::now();
    let summary = summarize(
        GeneratedLog::new(bytes, true),
        &SummaryOptions {
            skip: 0,
            budget_chars: usize::MAX,
        },
    )
    .unwrap();
    let secs = started.elapsed().as_secs_f64();
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let peak_kib: u64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap();
    let info_templates = summary
        .rows
        .iter()
        .filter(|r| r.level == Some(Level::Info))
        .count();
    println!(
        "peak_kib={peak_kib} lines={} templates={} unlisted={} info_templates={info_templates} secs={secs:.1} mb_per_s={:.0}",
        summary.lines,
        summary.templates,
        summary.unlisted_lines,
        bytes as f64 / 1e6 / secs
    );
}
