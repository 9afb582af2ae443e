//! How fast every line is classified and a preview is built, against counting the lines.

use anyhow::{Result, bail};

use crate::data::{json_bytes, test_run_bytes};
use crate::harness::{Row, measure, rates, time};

/// The per-line work every offload does (classify, group, head and tail) and the summary read,
/// against counting the lines with memchr.
pub(crate) fn line_profiles(
    log: &[u8],
    reps: usize,
    want: &dyn Fn(&str) -> bool,
) -> Result<Vec<Row>> {
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

pub(crate) fn json_preview(size: u64, reps: usize) -> Result<Row> {
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
