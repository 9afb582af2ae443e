//! `/s/{session}/e/{name}/history`: the versions an entry keeps, with who wrote each and what each
//! change did; and `…/diff?from=N&to=M`: what changed between two of them, highlighted.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use scratchpad_core::{DiffReply, now_ms};

use super::{Page, respond};
use crate::App;
use crate::api::{DiffAsk, PAGE_BUDGET_CHARS, in_session};
use crate::failure::Failure;
use crate::html::{bytes, count, esc, time};
use crate::query::{Query, encode, entry_path, session_path};

pub(crate) async fn page(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
) -> Response {
    let in_this = session.clone();
    let loaded = app
        .engine
        .read(move |pad, _| in_session(pad, &in_this)?.history(&name))
        .await;
    let result = loaded.map(|history| {
        let now = now_ms();
        let entry = &history.entry;
        let base = entry_path(&session, &entry.name);
        let kept = history.versions.len().saturating_sub(1);
        let mut body = format!(
            "<div class=\"page-head\"><h1>History of <a href=\"{href}\">{name}</a></h1><p class=\"sub\">version {version}; {kept}</p></div>",
            href = esc(&base),
            name = esc(&entry.name),
            version = entry.version,
            kept = match (kept, history.keeps_history) {
                (0, true) => "no older version kept yet".to_owned(),
                (0, false) => "outputs of tools keep no older versions unless stored to keep them".to_owned(),
                (1, _) => "1 older version kept".to_owned(),
                (n, _) => format!("{} older versions kept", count(n as u64)),
            }
        );
        body.push_str(
            "<table class=\"grid versions\" id=\"versions\"><thead><tr><th class=\"num\">Ver.</th><th>Written</th>\
             <th>Author</th><th class=\"num\">Size</th><th class=\"num\">Lines</th><th>Change</th><th></th></tr></thead><tbody>",
        );
        let versions: Vec<u64> = history.versions.iter().map(|v| v.version).collect();
        for (i, version) in history.versions.iter().enumerate() {
            let current = version.version == entry.version;
            let view = if current {
                base.clone()
            } else {
                format!("{base}?{}", encode(&[("version", version.version.to_string())]))
            };
            let mut links = vec![format!("<a href=\"{}\">view</a>", esc(&view))];
            // The version before it, if kept: what this change did.
            if let Some(previous) = versions.get(i + 1) {
                let mut params = vec![("from", previous.to_string())];
                if !current {
                    params.push(("to", version.version.to_string()));
                }
                links.push(format!(
                    "<a href=\"{}/diff?{}\">diff with {previous}</a>",
                    esc(&base),
                    esc(&encode(&params))
                ));
            }
            if !current {
                links.push(format!(
                    "<a href=\"{}/diff?{}\">diff with current</a>",
                    esc(&base),
                    esc(&encode(&[("from", version.version.to_string())]))
                ));
                if !app.read_only {
                    links.push(format!(
                        "<button type=\"button\" class=\"link\" data-action=\"restore\" data-restore=\"{}\" data-current=\"{}\">restore</button>",
                        version.version, entry.version
                    ));
                }
            }
            body.push_str(&format!(
                "<tr{cls}><td class=\"num\">{ver}{star}</td><td>{when}</td><td>{author}</td>\
                 <td class=\"num\">{size}</td><td class=\"num\">{lines}</td><td>{change}</td><td class=\"links\">{links}</td></tr>",
                cls = if current { " class=\"current\"" } else { "" },
                ver = version.version,
                star = if current { " <span class=\"badge\">current</span>" } else { "" },
                when = time(version.written_at, now),
                author = esc(version.author.as_deref().unwrap_or("")),
                size = bytes(version.bytes),
                lines = count(version.lines),
                change = esc(&version.change.as_ref().map(ToString::to_string).unwrap_or_default()),
                links = links.join(" · "),
            ));
        }
        body.push_str("</tbody></table>");
        if versions.len() > 1 {
            let options = |selected: u64| {
                versions
                    .iter()
                    .map(|v| {
                        format!(
                            "<option value=\"{v}\"{}>version {v}</option>",
                            if *v == selected { " selected" } else { "" }
                        )
                    })
                    .collect::<String>()
            };
            body.push_str(&format!(
                "<form class=\"compare\" method=\"get\" action=\"{}/diff\"><label>Compare <select name=\"from\">{}</select></label>\
                 <label>with <select name=\"to\">{}</select></label><button type=\"submit\">Show the diff</button></form>",
                esc(&base),
                options(versions.get(1).copied().unwrap_or(entry.version)),
                options(entry.version)
            ));
        }
        Page::new(format!("History of {}", entry.name), "history")
            .crumb("Sessions", Some("/".to_owned()))
            .crumb(session.clone(), Some(session_path(&session)))
            .crumb(entry.name.clone(), Some(base.clone()))
            .crumb("history", None)
            .data("session", session.clone())
            .data("name", entry.name.clone())
            .render(&app, &body)
    });
    respond(&app, result)
}

pub(crate) async fn diff_page(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Response {
    let result = render_diff(&app, session, name, raw).await;
    respond(&app, result)
}

async fn render_diff(
    app: &App,
    session: String,
    name: String,
    raw: Option<String>,
) -> Result<String, Failure> {
    let query = Query::parse(raw.as_deref());
    let ask = DiffAsk::from_query(&session, &name, &query, PAGE_BUDGET_CHARS)?;
    let in_this = session.clone();
    let reply = app
        .engine
        .read(move |pad, stop| {
            in_session(pad, &in_this)?.diff_until(&ask.a, &ask.b, &ask.options, stop)
        })
        .await?;
    let base = entry_path(&session, &reply.a.name);
    let body = diff_body(&session, &reply, &query, &base);
    Ok(Page::new(format!("Diff of {}", reply.a.name), "diff")
        .crumb("Sessions", Some("/".to_owned()))
        .crumb(session.clone(), Some(session_path(&session)))
        .crumb(reply.a.name.clone(), Some(base.clone()))
        .crumb("diff", None)
        .data("session", session.clone())
        .data("name", reply.a.name.clone())
        .render(app, &body))
}

fn diff_body(session: &str, reply: &DiffReply, query: &Query, base: &str) -> String {
    let now = now_ms();
    let label = |name: &str, version: u64, current: bool, author: Option<&str>, at: i64| {
        format!(
            "<a href=\"{href}\">{name} version {version}</a>{current}{author} {when}",
            href = esc(&if current {
                entry_path(session, name)
            } else {
                format!(
                    "{}?{}",
                    entry_path(session, name),
                    encode(&[("version", version.to_string())])
                )
            }),
            name = esc(name),
            current = if current {
                " <span class=\"badge\">current</span>"
            } else {
                ""
            },
            author = author
                .map(|a| format!(" by <strong>{}</strong>", esc(a)))
                .unwrap_or_default(),
            when = time(at, now),
        )
    };
    let mut out = format!(
        "<div class=\"page-head\"><h1>What changed</h1><p class=\"sub diff-sides\"><span class=\"del-side\">− {}</span><br>\
         <span class=\"add-side\">+ {}</span></p></div>",
        label(
            &reply.a.name,
            reply.a.version,
            reply.a.current,
            reply.a.author.as_deref(),
            reply.a.written_at
        ),
        label(
            &reply.b.name,
            reply.b.version,
            reply.b.current,
            reply.b.author.as_deref(),
            reply.b.written_at
        ),
    );
    out.push_str(&format!(
        "<p class=\"diff-summary\"><strong>{}</strong>{}</p>",
        esc(&reply.summary()),
        if reply.normalized_json {
            " · compared as JSON with keys sorted"
        } else {
            ""
        }
    ));
    for note in &reply.notes {
        out.push_str(&format!("<p class=\"note\">{}</p>", esc(note)));
    }
    if !reply.text.is_empty() {
        out.push_str("<div class=\"diff\" id=\"diff\">");
        let (mut a_line, mut b_line) = (0u64, 0u64);
        for line in reply.text.split_terminator('\n') {
            let (class, a_shown, b_shown) = if let Some(hunk) = line.strip_prefix("@@") {
                if let Some((a, b)) = hunk_starts(hunk) {
                    a_line = a;
                    b_line = b;
                }
                ("hunk", String::new(), String::new())
            } else if line.starts_with('-') {
                a_line += 1;
                ("del", a_line.to_string(), String::new())
            } else if line.starts_with('+') {
                b_line += 1;
                ("add", String::new(), b_line.to_string())
            } else {
                a_line += 1;
                b_line += 1;
                ("ctx", a_line.to_string(), b_line.to_string())
            };
            out.push_str(&format!(
                "<div class=\"dl {class}\"><span class=\"na\">{a_shown}</span><span class=\"nb\">{b_shown}</span><span class=\"t\">{}</span></div>",
                esc(line)
            ));
        }
        out.push_str("</div>");
    }
    if let Some(cursor) = reply.continuation {
        let mut params: Vec<(&str, String)> = Vec::new();
        for key in ["from", "to", "with", "context", "plain"] {
            if let Some(value) = query.get(key) {
                params.push((key, value.to_owned()));
            }
        }
        // The continuation compares the very versions this reply compared.
        params.retain(|(key, _)| *key != "from" && *key != "to");
        params.push(("from", reply.a.version.to_string()));
        params.push(("to", reply.b.version.to_string()));
        params.push(("cursor", cursor.to_string()));
        out.push_str(&format!(
            "<p class=\"more\">More differences — <a href=\"{}/diff?{}\" rel=\"next\">continue →</a></p>",
            esc(base),
            esc(&encode(&params))
        ));
    }
    out
}

/// `-a,n +b,m @@` → the line before each side's first (the lines that follow count from there).
fn hunk_starts(hunk: &str) -> Option<(u64, u64)> {
    let mut parts = hunk.split_whitespace();
    let a = parts.next()?.strip_prefix('-')?;
    let b = parts.next()?.strip_prefix('+')?;
    let start = |text: &str| -> Option<u64> {
        let (first, len) = match text.split_once(',') {
            Some((first, len)) => (first.parse::<u64>().ok()?, len.parse::<u64>().ok()?),
            None => (text.parse::<u64>().ok()?, 1),
        };
        // An empty side (`-0,0`) names the line before it.
        Some(if len == 0 {
            first
        } else {
            first.saturating_sub(1)
        })
    };
    Some((start(a)?, start(b)?))
}

#[cfg(test)]
mod tests {
    use super::hunk_starts;

    #[test]
    fn hunk_headers_give_where_each_side_starts() {
        assert_eq!(hunk_starts(" -3,4 +3,5 @@"), Some((2, 2)));
        assert_eq!(hunk_starts(" -0,0 +1,2 @@"), Some((0, 0)));
        assert_eq!(hunk_starts(" -7 +7 @@"), Some((6, 6)));
    }
}
