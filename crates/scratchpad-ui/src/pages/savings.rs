//! `/savings`: tokens kept out of models' contexts against tokens read back, per tool and over
//! time, from the usage record (what was stored, what was shown instead, what reads returned).
//! The charts are inline SVG written here.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::response::Response;
use scratchpad_core::{Kind, utc_time};

use super::{Page, respond};
use crate::App;
use crate::api::Savings;
use crate::failure::Failure;
use crate::html::{count, esc};
use crate::query::Query;

/// Tools the per-tool chart shows; the table lists them all.
const CHART_TOOLS: usize = 12;
/// Width of the charts' drawing (SVG user units; they scale with the page).
const CHART_WIDTH: f64 = 760.0;

pub(crate) async fn page(State(app): State<Arc<App>>, RawQuery(raw): RawQuery) -> Response {
    let result = render(&app, raw).await;
    respond(&app, result)
}

async fn render(app: &App, raw: Option<String>) -> Result<String, Failure> {
    let query = Query::parse(raw.as_deref());
    let session = query.get("session").map(str::to_owned);
    let asked = session.clone();
    let (usage, sessions) = app
        .engine
        .read(move |pad, _| Ok((pad.usage(asked.as_deref(), None)?, pad.sessions()?)))
        .await?;
    let savings = Savings::from_usage(usage);
    let mut body = String::from("<div class=\"page-head\"><h1>Savings</h1>");
    body.push_str(&format!(
        "<form class=\"filters\" method=\"get\" action=\"/savings\"><label>Session <select name=\"session\">\
         <option value=\"\">every session</option>{}</select></label><button type=\"submit\">Show</button></form></div>",
        sessions
            .iter()
            .map(|s| format!(
                "<option value=\"{0}\"{1}>{0}</option>",
                esc(&s.session),
                if session.as_deref() == Some(s.session.as_str()) { " selected" } else { "" }
            ))
            .collect::<String>()
    ));
    let net = savings.kept_out.saturating_sub(savings.read_back);
    let share = if savings.kept_out > 0 {
        format!(
            "{:.1}% of it read back",
            savings.read_back as f64 * 100.0 / savings.kept_out as f64
        )
    } else {
        String::new()
    };
    body.push_str(&format!(
        "<div class=\"cards\" id=\"savings-cards\">\
         <div class=\"card kept\"><div class=\"figure\">{}</div><div class=\"label\">tokens kept out of context</div></div>\
         <div class=\"card read\"><div class=\"figure\">{}</div><div class=\"label\">tokens read back{}</div></div>\
         <div class=\"card net\"><div class=\"figure\">{}</div><div class=\"label\">tokens saved</div></div>\
         <div class=\"card\"><div class=\"figure\">{}</div><div class=\"label\">outputs stored</div></div>\
         <div class=\"card\"><div class=\"figure\">{}</div><div class=\"label\">reads</div></div></div>",
        count(savings.kept_out),
        count(savings.read_back),
        if share.is_empty() { String::new() } else { format!(" ({share})") },
        count(net),
        count(savings.stored),
        count(savings.reads),
    ));
    if savings.tools.is_empty() {
        body.push_str(
            "<section class=\"empty\"><h2>No usage recorded yet</h2><p>Every tool output the scratchpad stores \
             in a model's place, and every read a model makes, is recorded here as it happens.</p></section>",
        );
    } else {
        body.push_str(&format!(
            "<section class=\"box\"><div class=\"box-head\"><h2>Per tool</h2>{legend}</div>{}</section>",
            tools_chart(&savings),
            legend = legend()
        ));
        body.push_str(&format!(
            "<section class=\"box\"><div class=\"box-head\"><h2>Over time</h2><span class=\"quiet\">per {}</span>{legend}</div>{}</section>",
            bucket_name(savings.usage.bucket_ms),
            time_chart(&savings),
            legend = legend()
        ));
        body.push_str(&tools_table(&savings));
    }
    let span = savings
        .usage
        .span
        .map(|(from, to)| format!(" from {} to {}", utc_time(from), utc_time(to)))
        .unwrap_or_default();
    body.push_str(&format!(
        "<p class=\"explain\">Measured, not guessed: the usage record keeps each stored output's size and its \
         preview's, and what each read returned ({} lines at most, kept{span}). Tokens are counted from bytes \
         at the ratio the scratchpad uses everywhere (≈{} tokens per 1,000 bytes of text or JSON; binary content \
         counts none). Reads made in this view are not counted.</p>",
        count(scratchpad_core::USAGE_KEEP_ROWS.unsigned_abs()),
        scratchpad_core::estimate_tokens(Kind::Text, 1_000),
    ));
    let mut page = Page::new("Savings", "savings").crumb("Savings", None);
    if let Some(session) = &session {
        page = page.data("session", session.clone());
    }
    Ok(page.render(app, &body))
}

fn legend() -> &'static str {
    "<span class=\"legend\"><span class=\"sw kept\"></span>kept out <span class=\"sw read\"></span>read back</span>"
}

fn bucket_name(ms: i64) -> String {
    const MINUTE: i64 = 60_000;
    match ms {
        ms if ms % (86_400_000) == 0 && ms / 86_400_000 > 1 => format!("{} days", ms / 86_400_000),
        86_400_000 => "day".to_owned(),
        ms if ms % (60 * MINUTE) == 0 && ms / (60 * MINUTE) > 1 => {
            format!("{} hours", ms / (60 * MINUTE))
        }
        3_600_000 => "hour".to_owned(),
        MINUTE => "minute".to_owned(),
        ms => format!("{} minutes", ms / MINUTE),
    }
}

/// Horizontal bars, two per tool: tokens kept out and tokens read back, on one scale.
fn tools_chart(savings: &Savings) -> String {
    let tools: Vec<_> = savings.tools.iter().take(CHART_TOOLS).collect();
    let label_width = 170.0;
    let row = 34.0;
    let bar = 12.0;
    let height = row * tools.len() as f64 + 8.0;
    let max = tools.iter().map(|t| t.1.max(t.2)).max().unwrap_or(1).max(1) as f64;
    let room = CHART_WIDTH - label_width - 90.0;
    let mut svg = format!(
        "<svg class=\"chart\" id=\"tools-chart\" viewBox=\"0 0 {CHART_WIDTH} {height}\" role=\"img\" \
         aria-label=\"Tokens kept out and read back, per tool\">"
    );
    for (i, (tool, kept, read, stored, reads)) in tools.iter().enumerate() {
        let y = i as f64 * row + 4.0;
        let shown: String = tool.chars().take(24).collect();
        svg.push_str(&format!(
            "<text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            label_width - 10.0,
            y + bar + 3.0,
            esc(&shown)
        ));
        for (j, (value, class, what, n, unit)) in [
            (*kept, "kept", "kept out", *stored, "outputs"),
            (*read, "read", "read back", *reads, "reads"),
        ]
        .into_iter()
        .enumerate()
        {
            let width = (value as f64 / max * room).max(if value > 0 { 1.5 } else { 0.0 });
            let bar_y = y + j as f64 * (bar + 2.0);
            svg.push_str(&format!(
                "<rect class=\"{class}\" x=\"{label_width}\" y=\"{bar_y:.1}\" width=\"{width:.1}\" height=\"{bar}\" rx=\"2\">\
                 <title>{}: {} tokens {what} ({} {unit})</title></rect>\
                 <text class=\"value\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                esc(tool),
                count(value),
                count(n),
                label_width + width + 6.0,
                bar_y + bar - 2.0,
                count(value)
            ));
        }
    }
    svg.push_str("</svg>");
    svg
}

/// Grouped columns per time bucket: tokens kept out and read back.
fn time_chart(savings: &Savings) -> String {
    let points = &savings.over_time;
    let height = 220.0;
    let (left, bottom, top) = (64.0, 28.0, 12.0);
    let plot_height = height - bottom - top;
    let max = points
        .iter()
        .map(|p| p.1.max(p.2))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let first = points.first().map_or(0, |p| p.0);
    let last = points.last().map_or(0, |p| p.0);
    let bucket = savings.usage.bucket_ms.max(1);
    let slots = ((last - first) / bucket + 1).max(1) as f64;
    let slot = (CHART_WIDTH - left - 8.0) / slots;
    let bar = (slot * 0.38).clamp(1.0, 18.0);
    let mut svg = format!(
        "<svg class=\"chart\" id=\"time-chart\" viewBox=\"0 0 {CHART_WIDTH} {height}\" role=\"img\" \
         aria-label=\"Tokens kept out and read back over time\">"
    );
    for fraction in [0.0, 0.5, 1.0] {
        let y = top + plot_height * (1.0 - fraction);
        svg.push_str(&format!(
            "<line class=\"grid-line\" x1=\"{left}\" x2=\"{CHART_WIDTH}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/>\
             <text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y + 4.0,
            short(max * fraction)
        ));
    }
    for (start, kept, read) in points {
        let x = left + ((start - first) / bucket) as f64 * slot + slot / 2.0;
        for (value, class, dx, what) in [
            (*kept, "kept", -bar, "kept out"),
            (*read, "read", 0.0, "read back"),
        ] {
            let h = value as f64 / max * plot_height;
            svg.push_str(&format!(
                "<rect class=\"{class}\" x=\"{:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{:.1}\"><title>{}: {} tokens {what}</title></rect>",
                x + dx,
                top + plot_height - h,
                h.max(if value > 0 { 1.0 } else { 0.0 }),
                esc(&utc_time(*start)),
                count(value)
            ));
        }
    }
    // A few dates along the bottom.
    let labels = points.len().clamp(1, 6);
    let step = (points.len() / labels).max(1);
    for (start, _, _) in points.iter().step_by(step) {
        let x = left + ((start - first) / bucket) as f64 * slot + slot / 2.0;
        let when = utc_time(*start);
        let shown = if bucket >= 86_400_000 {
            when.get(..10).unwrap_or(&when).to_owned()
        } else {
            when.get(5..16).unwrap_or(&when).to_owned()
        };
        svg.push_str(&format!(
            "<text class=\"axis\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            height - 8.0,
            esc(&shown)
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// `12.3k`, `4.5M`: an axis label.
fn short(value: f64) -> String {
    match value {
        v if v >= 1e9 => format!("{:.1}G", v / 1e9),
        v if v >= 1e6 => format!("{:.1}M", v / 1e6),
        v if v >= 1e3 => format!("{:.1}k", v / 1e3),
        v => format!("{v:.0}"),
    }
}

fn tools_table(savings: &Savings) -> String {
    let mut out = String::from(
        "<table class=\"grid\" id=\"tools\"><thead><tr><th>Tool</th><th class=\"num\">Outputs stored</th>\
         <th class=\"num\">Tokens kept out</th><th class=\"num\">Reads</th><th class=\"num\">Tokens read back</th>\
         <th class=\"num\">Saved</th></tr></thead><tbody>",
    );
    for (tool, kept, read, stored, reads) in &savings.tools {
        out.push_str(&format!(
            "<tr><td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            esc(tool),
            count(*stored),
            count(*kept),
            count(*reads),
            count(*read),
            count(kept.saturating_sub(*read))
        ));
    }
    out.push_str("</tbody></table>");
    out
}
