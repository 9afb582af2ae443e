//! The summary read: an entry's lines as the forms they take (templates: numbers, ids, paths and
//! timestamps masked), each with its level, count, first and last line and its first occurrence,
//! most severe first. A two-million-line log reads as its few dozen templates.
//!
//! One streaming pass with bounded memory: at most [`SUMMARY_TEMPLATES_PER_LEVEL`] templates per
//! level (and as many without a level), each holding one example cut to [`SUMMARY_EXAMPLE_CHARS`];
//! lines of further templates are counted per level and reported as not listed. The output is data
//! ([`Summary`], a page of [`SummaryRow`]s) with [`Summary::render`]; a caller pages with `skip`.
//!
//! ```
//! use scratchpad_core::read::summary::{SummaryOptions, summarize};
//!
//! let log: String = (1..=10_000)
//!     .map(|i| match i {
//!         4_321 => "2026-11-21T10:00:00Z FATAL pool db-main exhausted\n".to_owned(),
//!         i if i % 100 == 0 => format!("2026-11-21T10:00:00Z ERROR upstream timeout after {i} ms\n"),
//!         i => format!("2026-11-21T10:00:00Z INFO GET /v1/orders/{i} 200\n"),
//!     })
//!     .collect();
//! let summary = summarize(log.as_bytes(), &SummaryOptions::default()).unwrap();
//! assert_eq!(summary.templates, 3);
//! assert_eq!(summary.rows[0].count, 1);
//! assert_eq!(summary.rows[0].example.line, 4_321);
//! assert_eq!(summary.rows[1].count, 100);
//! assert!(summary.render().contains("[error ×100, lines 100–10,000]"));
//! ```

use std::io::{self, ErrorKind, Read};

use serde::{Deserialize, Serialize};

use crate::figures::thousands;
use crate::preview::profile::{Group, LevelCounts, NumberedLine, Profiler, Track};
use crate::preview::severity::{Level, LineKind};

/// Templates kept per level (and for lines without a level).
pub const SUMMARY_TEMPLATES_PER_LEVEL: usize = 1_024;
/// Characters kept of each template's example line.
pub const SUMMARY_EXAMPLE_CHARS: usize = 160;
/// Read buffer (bytes).
const READ_BYTES: usize = 256 * 1024;
/// A line longer than this is classified by its start; the rest is skipped (bytes).
const MAX_LINE_BYTES: usize = 64 * 1024;

/// What to summarise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryOptions {
    /// Templates to skip, in summary order (a continuation's offset).
    pub skip: usize,
    /// Characters [`Summary::render`] may take; rows stop before the one that would exceed it
    /// (at least one row is always listed, so paging moves on).
    pub budget_chars: usize,
}

impl Default for SummaryOptions {
    fn default() -> Self {
        SummaryOptions {
            skip: 0,
            budget_chars: 4_000,
        }
    }
}

/// One template: the lines of one form at one level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// `None` for lines without a level.
    pub level: Option<Level>,
    pub kind: LineKind,
    /// Lines of this form.
    pub count: u64,
    pub first_line: u64,
    pub last_line: u64,
    /// The form, with variable parts as `#`.
    pub template: String,
    /// The first line of this form.
    pub example: NumberedLine,
    /// What completes the example: a panic's message, a diagnostic's location, a root cause.
    pub detail: Option<NumberedLine>,
}

/// A page of an entry's templates, most severe first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Lines in the entry.
    pub lines: u64,
    pub levels: LevelCounts,
    /// Templates found (listed or not).
    pub templates: usize,
    /// Templates before the first row (the `skip` asked for, at most `templates`).
    pub skipped: usize,
    pub rows: Vec<SummaryRow>,
    /// Templates after the last row.
    pub remaining: usize,
    /// Lines whose template came past the cap: counted in `levels`, in no row.
    pub unlisted_lines: u64,
}

impl Summary {
    /// The `skip` of the next page, when templates remain.
    pub fn next_skip(&self) -> Option<usize> {
        (self.remaining > 0).then_some(self.skipped + self.rows.len())
    }

    /// The page as text: a header line, one line per template (plus its detail), a closing note.
    pub fn render(&self) -> String {
        let mut out = header(self);
        for row in &self.rows {
            out.push_str(&render_row(row));
        }
        out.push_str(&footer(self));
        out
    }
}

fn header(summary: &Summary) -> String {
    let levels = if summary.levels.leveled() > 0 {
        format!("; levels: {}", summary.levels.render())
    } else {
        String::new()
    };
    let first = summary.skipped as u64 + 1;
    let last = (summary.skipped + summary.rows.len()) as u64;
    // A page past the last template shows none: "templates 31–30" would read backwards.
    let page = if summary.skipped == 0 && summary.remaining == 0 {
        String::new()
    } else if summary.rows.is_empty() {
        format!("; none shown from template {}", thousands(first))
    } else if first == last {
        format!("; template {} shown", thousands(first))
    } else {
        format!("; templates {}–{} shown", thousands(first), thousands(last))
    };
    format!(
        "[{} in {}{levels}{page}; most severe first, rare before common at warning and above; each: level, count, lines, first line]\n",
        crate::figures::counted(summary.lines, "line", "lines"),
        crate::figures::counted(summary.templates as u64, "template", "templates"),
    )
}

fn footer(summary: &Summary) -> String {
    let mut out = String::new();
    if summary.remaining > 0 {
        out.push_str(&format!(
            "[{} more templates]\n",
            thousands(summary.remaining as u64)
        ));
    }
    if summary.unlisted_lines > 0 {
        out.push_str(&format!(
            "[{} lines of further templates past {} per level: counted above, not listed]\n",
            thousands(summary.unlisted_lines),
            thousands(SUMMARY_TEMPLATES_PER_LEVEL as u64)
        ));
    }
    out
}

fn render_row(row: &SummaryRow) -> String {
    let level = row.level.map_or("no level", Level::name);
    let span = if row.count == 1 {
        format!("line {}", thousands(row.first_line))
    } else {
        format!(
            "lines {}–{}",
            thousands(row.first_line),
            thousands(row.last_line)
        )
    };
    let example = if row.example.text.trim().is_empty() {
        "(blank)"
    } else {
        &row.example.text
    };
    let mut out = format!("[{level} ×{}, {span}] {example}\n", thousands(row.count));
    if let Some(detail) = &row.detail {
        out.push_str(&format!("    {}: {}\n", detail.line, detail.text));
    }
    out
}

/// Summary order: most severe first; rare before common at warning and above (the rare line is
/// the news), common before rare below (the bulk says what the entry is); then by first line.
fn order(group: &Group) -> (usize, std::cmp::Reverse<u8>, i128, u64) {
    let rank = group.level.map_or(7, Level::rank);
    let count = i128::from(group.count);
    let by_count = if group.level.is_some_and(|l| l >= Level::Warning) {
        count
    } else {
        -count
    };
    (
        rank,
        std::cmp::Reverse(group.grade),
        by_count,
        group.first_line,
    )
}

fn row(group: &Group) -> SummaryRow {
    SummaryRow {
        level: group.level,
        kind: group.kind,
        count: group.count,
        first_line: group.first_line,
        last_line: group.last_line,
        template: group.template.clone().unwrap_or_default(),
        example: group.first.line.clone(),
        detail: group.first.details.first().cloned(),
    }
}

/// Streams `input` (text; invalid UTF-8 is shown replaced) and returns the page of templates that
/// `options` asks for.
pub fn summarize(mut input: impl Read, options: &SummaryOptions) -> io::Result<Summary> {
    let mut profiler = Profiler::new(
        Track::Everything,
        SUMMARY_EXAMPLE_CHARS,
        SUMMARY_TEMPLATES_PER_LEVEL,
    );
    let mut buf = vec![0u8; READ_BYTES];
    // `buf[..filled]` holds the unfinished line carried over, then what was read after it.
    let mut filled = 0;
    let mut lines = 0u64;
    // The current line was longer than MAX_LINE_BYTES and was classified by its start.
    let mut skipping = false;
    loop {
        let n = match input.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            break;
        }
        let end = filled + n;
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', &buf[filled..end]) {
            let nl = filled + nl;
            lines += 1;
            if skipping {
                skipping = false;
            } else {
                profiler.line(lines, &buf[start..nl], true);
            }
            start = nl + 1;
        }
        if skipping {
            filled = 0;
            continue;
        }
        let rest = end - start;
        if rest >= MAX_LINE_BYTES {
            profiler.line(lines + 1, &buf[start..end], true);
            skipping = true;
            filled = 0;
        } else {
            buf.copy_within(start..end, 0);
            filled = rest;
        }
    }
    if filled > 0 && !skipping {
        lines += 1;
        profiler.line(lines, &buf[..filled], true);
    } else if skipping {
        lines += 1;
    }
    profiler.finish();
    Ok(page(&profiler, lines, options))
}

/// Sorts the templates and cuts the page `options` asks for.
fn page(profiler: &Profiler, lines: u64, options: &SummaryOptions) -> Summary {
    let mut groups: Vec<&Group> = profiler.groups.iter().filter(|g| g.count > 0).collect();
    groups.sort_by_key(|g| order(g));
    let templates = groups.len();
    let skipped = options.skip.min(templates);
    let mut summary = Summary {
        lines,
        levels: profiler.counts,
        templates,
        skipped,
        rows: Vec::new(),
        remaining: 0,
        unlisted_lines: profiler.ungrouped.iter().sum(),
    };
    // The header and footer at their longest (the page note and the "more" line included).
    summary.remaining = templates - skipped;
    let mut used = header(&summary).chars().count() + 80 + footer(&summary).chars().count() + 40;
    for group in &groups[skipped..] {
        let row = row(group);
        let cost = render_row(&row).chars().count();
        if !summary.rows.is_empty() && used + cost > options.budget_chars {
            break;
        }
        used += cost;
        summary.rows.push(row);
    }
    summary.remaining = templates - skipped - summary.rows.len();
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(lines: u64) -> String {
        (1..=lines)
            .map(|i| match i {
                777 => "2026-11-21T10:00:00Z FATAL pool exhausted\n".to_owned(),
                i if i % 50 == 0 => {
                    format!("2026-11-21T10:00:{:02}Z WARN slow query {i} ms\n", i % 60)
                }
                i => format!("2026-11-21T10:00:{:02}Z INFO worker {i} done\n", i % 60),
            })
            .collect()
    }

    /// Regression: a package list made one template per package, because a name of letters
    /// looks like a word (`--summary` of an upgrade plan listed 1,024 templates). A place that
    /// takes many names is masked; a place of few words (an enumeration) is not.
    #[test]
    fn names_in_one_place_of_a_form_make_one_template() {
        let names = [
            "adduser",
            "apt",
            "base-files",
            "bash",
            "coreutils",
            "dash",
            "debconf",
            "diffutils",
            "dpkg",
            "findutils",
            "grep",
            "gzip",
            "hostname",
            "login",
            "mawk",
            "mount",
            "passwd",
            "perl-base",
            "sed",
            "sensible-utils",
            "sysvinit-utils",
            "tar",
            "tzdata",
            "util-linux",
        ];
        let mut text = String::new();
        for (i, name) in names.iter().enumerate() {
            text.push_str(&format!(
                "Inst {name} [1.{i}-1] (1.{i}-2 Debian:12.15/oldstable [amd64])\n"
            ));
        }
        for name in names {
            text.push_str(&format!(
                "Conf {name} (1.0-2 Debian:12.15/oldstable [amd64])\n"
            ));
        }
        for name in names {
            text.push_str(&format!("{name}    2.0.1\n"));
        }
        for word in ["reset", "refused", "closed", "reset", "refused"] {
            text.push_str(&format!("connection {word} by peer\n"));
        }
        let summary = summarize(text.as_bytes(), &SummaryOptions::default()).unwrap();
        let templates: Vec<(&str, u64)> = summary
            .rows
            .iter()
            .map(|r| (r.template.as_str(), r.count))
            .collect();
        assert_eq!(
            templates,
            [
                ("Inst # [#] (# # [#])", 24),
                ("Conf # (# # [#])", 24),
                ("# #", 24),
                ("connection reset by peer", 2),
                ("connection refused by peer", 2),
                ("connection closed by peer", 1),
            ],
            "{}",
            summary.render()
        );
        assert_eq!(summary.rows[0].first_line, 1);
        assert_eq!(
            summary.rows[0].example.text,
            "Inst adduser [1.0-1] (1.0-2 Debian:12.15/oldstable [amd64])"
        );
        assert_eq!(
            summary.rows.iter().map(|r| r.count).sum::<u64>(),
            summary.lines
        );
    }

    #[test]
    fn templates_in_order_with_counts_that_add_up() {
        let text = log(5_000);
        let summary = summarize(text.as_bytes(), &SummaryOptions::default()).unwrap();
        assert_eq!(summary.lines, 5_000);
        assert_eq!(summary.templates, 3);
        let levels: Vec<_> = summary.rows.iter().map(|r| r.level).collect();
        assert_eq!(
            levels,
            [Some(Level::Fatal), Some(Level::Warning), Some(Level::Info)]
        );
        assert_eq!(summary.rows.iter().map(|r| r.count).sum::<u64>(), 5_000);
        assert_eq!(summary.rows[0].example.line, 777);
        assert_eq!(summary.rows[1].first_line, 50);
        assert_eq!(summary.rows[1].last_line, 5_000);
        assert_eq!(summary.levels.total(), 5_000);
    }

    #[test]
    fn pages_by_skip_within_budget() {
        // 20 distinct info templates.
        let text: String = (0..4_000)
            .map(|i| {
                // Twenty forms, told apart by their number of words.
                format!("INFO step {}finished\n", "alpha ".repeat(1 + i % 20))
            })
            .collect();
        let mut skip = 0;
        let mut seen = 0;
        let mut pages = 0;
        loop {
            let summary = summarize(
                text.as_bytes(),
                &SummaryOptions {
                    skip,
                    budget_chars: 800,
                },
            )
            .unwrap();
            assert!(summary.render().chars().count() <= 800 || summary.rows.len() == 1);
            seen += summary.rows.len();
            pages += 1;
            match summary.next_skip() {
                Some(next) => skip = next,
                None => break,
            }
        }
        assert_eq!(seen, 20);
        assert!(pages > 1);
    }

    /// Regression: a page that started past the last template said "templates 4–3 shown".
    #[test]
    fn page_notes_never_read_backwards() {
        let text = log(1_000);
        for skip in 0..6 {
            let options = SummaryOptions {
                skip,
                ..SummaryOptions::default()
            };
            let header = summarize(text.as_bytes(), &options).unwrap().render();
            let header = header.lines().next().unwrap();
            if let Some(range) = header.split("; templates ").nth(1) {
                let (from, rest) = range.split_once('–').unwrap();
                let to = rest.split(' ').next().unwrap();
                assert!(
                    from.parse::<u64>().unwrap() < to.parse().unwrap(),
                    "{header}"
                );
            }
        }
        let past = SummaryOptions {
            skip: 3,
            ..SummaryOptions::default()
        };
        let header = summarize(text.as_bytes(), &past).unwrap().render();
        assert!(header.contains("; none shown from template 4;"), "{header}");
        let last = SummaryOptions {
            skip: 2,
            ..SummaryOptions::default()
        };
        let header = summarize(text.as_bytes(), &last).unwrap().render();
        assert!(header.contains("; template 3 shown;"), "{header}");
    }

    #[test]
    fn long_lines_and_no_final_newline() {
        let mut text = "ERROR ".to_owned();
        text.push_str(&"x".repeat(300_000));
        text.push_str("\nINFO done\nWARN last");
        let summary = summarize(text.as_bytes(), &SummaryOptions::default()).unwrap();
        assert_eq!(summary.lines, 3);
        assert_eq!(summary.levels.error, 1);
        assert_eq!(summary.levels.warning, 1);
        assert_eq!(summary.levels.info, 1);
    }
}
