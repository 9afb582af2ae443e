//! The printed tables: one summary row per policy, then breakdowns by kind, size and position of
//! the answer. Markdown, so a run can be pasted into BENCHMARKS.md as it is.

use std::fmt::Write as _;

use super::corpus::{DocKind, Place};
use super::policy::{MAX_READS, Policy};
use super::{Evaluation, LARGE_WINDOW_TOKENS, Outcome, WINDOW_TOKENS};
use scratchpad_core::preview::thousands;

fn median(mut values: Vec<usize>) -> usize {
    values.sort_unstable();
    match values.len() {
        0 => 0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2,
    }
}

fn n(value: usize) -> String {
    thousands(value as u64)
}

/// `part` as a percentage of `whole`, with enough digits to tell small shares apart.
fn share(part: usize, whole: usize) -> String {
    let percent = part as f64 * 100.0 / whole.max(1) as f64;
    if percent >= 10.0 {
        format!("{percent:.0} %")
    } else if percent >= 0.1 {
        format!("{percent:.1} %")
    } else {
        format!("{percent:.3} %")
    }
}

fn of_policy(run: &Evaluation, policy: Policy) -> impl Iterator<Item = &Outcome> {
    run.outcomes.iter().filter(move |o| o.policy == policy)
}

/// The whole report.
pub fn render(run: &Evaluation) -> String {
    let mut out = String::new();
    let questions = of_policy(run, Policy::Inline).count();
    let _ = writeln!(
        out,
        "Context savings: {} documents ({} bytes, corpus hash {}, seed {}), {} questions, 4 policies; {:.1} s.",
        run.documents,
        n(run.corpus_bytes),
        run.corpus_hash,
        run.seed,
        questions,
        run.elapsed.as_secs_f64()
    );
    let _ = writeln!(
        out,
        "Tokens: o200k_base (tiktoken-rs), exactly the text that entered the context for one question \
         (the view of the tool output, plus each read call and its reply). Answered: the planted answer \
         string appears in that text AND it fits a {}-token window; a context over it would be \
         rejected or cut, so it counts as unanswered. Policy (d) may issue at most {MAX_READS} reads.",
        n(WINDOW_TOKENS)
    );
    let tools = scratchpad_mcp::tools::definitions_as_seen();
    let _ = writeln!(
        out,
        "Tool surface: the MCP server's tool definitions as a model sees them (name, description, input \
         schema) are {} characters of JSON, {} tokens, paid on every turn.",
        n(tools.chars().count()),
        n(super::tokens::count_tokens(&tools))
    );
    out.push('\n');
    summary(&mut out, run);
    out.push('\n');
    by_kind(&mut out, run);
    out.push('\n');
    by_size(&mut out, run);
    out.push('\n');
    by_place(&mut out, run);
    out
}

fn summary(out: &mut String, run: &Evaluation) {
    let _ = writeln!(
        out,
        "| policy | total tokens | vs (a) | median tokens / question | answered | answered from the first view alone (no read) | answer in context, ignoring the window | contexts > {} | contexts > {} | reads (total) | reads (mean) |",
        n(WINDOW_TOKENS),
        n(LARGE_WINDOW_TOKENS)
    );
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    let inline_total: usize = of_policy(run, Policy::Inline)
        .map(|o| o.episode.tokens)
        .sum();
    for policy in Policy::ALL {
        let rows: Vec<&Outcome> = of_policy(run, policy).collect();
        let total: usize = rows.iter().map(|o| o.episode.tokens).sum();
        let reads: usize = rows.iter().map(|o| o.episode.reads).sum();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {}/{} | {}/{} | {}/{} | {} | {} | {} | {:.2} |",
            policy.label(),
            n(total),
            share(total, inline_total),
            n(median(rows.iter().map(|o| o.episode.tokens).collect())),
            rows.iter().filter(|o| o.correct()).count(),
            rows.len(),
            rows.iter().filter(|o| o.answered_without_reads()).count(),
            rows.len(),
            rows.iter().filter(|o| o.episode.found).count(),
            rows.len(),
            rows.iter().filter(|o| o.overflows(WINDOW_TOKENS)).count(),
            rows.iter()
                .filter(|o| o.overflows(LARGE_WINDOW_TOKENS))
                .count(),
            reads,
            reads as f64 / rows.len().max(1) as f64
        );
    }
}

/// A breakdown table: one row per group, and per policy "answered/total, median tokens".
fn breakdown<K: PartialEq + Copy>(
    out: &mut String,
    run: &Evaluation,
    title: &str,
    groups: &[(K, String)],
    key: impl Fn(&Outcome) -> K,
    show_reads: bool,
) {
    let _ = write!(out, "| {title} |");
    for policy in Policy::ALL {
        let _ = write!(out, " {} |", policy.label());
    }
    out.push('\n');
    out.push('|');
    out.push_str(&"---|".repeat(Policy::ALL.len() + 1));
    out.push('\n');
    for (group, label) in groups {
        let _ = write!(out, "| {label} |");
        for policy in Policy::ALL {
            let rows: Vec<&Outcome> = of_policy(run, policy)
                .filter(|o| key(o) == *group)
                .collect();
            if rows.is_empty() {
                out.push_str(" – |");
                continue;
            }
            let reads: usize = rows.iter().map(|o| o.episode.reads).sum();
            let _ = write!(
                out,
                " {}/{} · {} tok",
                rows.iter().filter(|o| o.correct()).count(),
                rows.len(),
                n(median(rows.iter().map(|o| o.episode.tokens).collect()))
            );
            if show_reads && policy == Policy::Scratchpad {
                let from_reference = rows.iter().filter(|o| o.answered_without_reads()).count();
                let _ = write!(
                    out,
                    " · {reads} reads · {from_reference} from the reference"
                );
            }
            out.push_str(" |");
        }
        out.push('\n');
    }
}

fn by_kind(out: &mut String, run: &Evaluation) {
    out.push_str("By kind (answered/total · median tokens per question · reads):\n\n");
    let groups: Vec<(DocKind, String)> = DocKind::ALL
        .iter()
        .map(|&k| (k, k.label().to_owned()))
        .collect();
    breakdown(out, run, "kind", &groups, |o| o.kind, true);
}

fn by_size(out: &mut String, run: &Evaluation) {
    out.push_str("By size (answered/total · median tokens per question · reads):\n\n");
    let mut groups: Vec<(usize, String)> = Vec::new();
    for outcome in &run.outcomes {
        if !groups.iter().any(|(b, _)| *b == outcome.size.bytes) {
            groups.push((outcome.size.bytes, outcome.size.label.to_owned()));
        }
    }
    breakdown(out, run, "size", &groups, |o| o.size.bytes, true);
}

fn by_place(out: &mut String, run: &Evaluation) {
    out.push_str(
        "By where the answer sits (start: first 200 chars; early: 200–1,500; end: last 500; middle: between):\n\n",
    );
    let groups: Vec<(Place, String)> = [Place::Start, Place::Early, Place::Middle, Place::End]
        .iter()
        .map(|&p| (p, p.label().to_owned()))
        .collect();
    breakdown(out, run, "answer at", &groups, |o| o.place, false);
}

/// One line per question and policy: tokens, found, and the reads policy (d) issued.
pub fn trace(run: &Evaluation) -> String {
    let mut out = String::new();
    for (document, reference) in &run.references {
        match reference {
            Some(reference) => {
                let _ = writeln!(out, "== {document}: policy (d) sees\n{reference}\n");
            }
            None => {
                let _ = writeln!(
                    out,
                    "== {document}: under the offload threshold, passed inline\n"
                );
            }
        }
    }
    for outcome in &run.outcomes {
        let _ = writeln!(
            out,
            "{:<26} {:<28} {:>10} tok  {}  {}{}",
            outcome.document,
            outcome.policy.label(),
            n(outcome.episode.tokens),
            if outcome.correct() {
                "answered"
            } else {
                "missed  "
            },
            outcome.question,
            if outcome.episode.calls.is_empty() {
                String::new()
            } else {
                format!(
                    "\n{:>40}{}",
                    "",
                    outcome.episode.calls.join(&format!("\n{:>40}", ""))
                )
            }
        );
    }
    out
}
