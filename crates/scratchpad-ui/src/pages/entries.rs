//! `/s/{session}`: a session's entries, newest first, filtered by name, kind and author, a page at
//! a time (keyset paging: as fast on page 1,000 of 100,000 entries as on the first).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use scratchpad_core::{EntryInfo, Kind, Lease, now_ms};

use super::{Page, respond};
use crate::App;
use crate::api::{Listing, in_session};
use crate::failure::Failure;
use crate::html::{bytes, count, esc, time};
use crate::query::{Query, encode, entry_path, session_path};

pub(crate) async fn page(
    State(app): State<Arc<App>>,
    Path(session): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let result = render(&app, session, raw).await;
    respond(&app, result)
}

async fn render(app: &App, session: String, raw: Option<String>) -> Result<String, Failure> {
    let query = Query::parse(raw.as_deref());
    let listing = Listing::from_query(&query)?;
    let page_number = query.number("page")?.map(|n| n.max(1));
    let filter = listing.filter.clone();
    let cursor = listing.cursor.clone();
    let limit = listing.limit;
    let in_this = session.clone();
    let (page, leases, stats) = app
        .engine
        .read(move |pad, _| {
            let pad = in_session(pad, &in_this)?;
            let page = pad.list(&filter, cursor.as_deref(), limit)?;
            Ok((page, pad.held_leases()?, pad.stats()?))
        })
        .await?;
    let leases: HashMap<String, Lease> = leases
        .into_iter()
        .map(|lease| (lease.name.clone(), lease))
        .collect();
    let now = now_ms();
    let filtered = listing.filter.kind.is_some()
        || listing.filter.prefix.is_some()
        || listing.filter.author.is_some();
    let mut body = format!(
        "<div class=\"page-head\"><h1>{}</h1><p class=\"sub\">{} entries · {} pinned · {} · \
         <strong>{}</strong> tokens kept out of context</p>",
        esc(&session),
        count(stats.figures.entries),
        count(stats.figures.pinned),
        bytes(stats.figures.bytes),
        count(stats.figures.tokens_kept_out)
    );
    if !app.read_only {
        body.push_str(&format!(
            "<a class=\"button primary\" href=\"{}/new\">New note</a>",
            esc(&session_path(&session))
        ));
    }
    body.push_str("</div>");
    body.push_str(&filters(&query, &session));
    if page.entries.is_empty() {
        body.push_str(if filtered {
            "<section class=\"empty\"><p>No entry matches these filters.</p></section>"
        } else {
            "<section class=\"empty\"><p>This session has no entries (they may have expired).</p></section>"
        });
    } else {
        body.push_str(
            "<table class=\"grid entries\" id=\"entries\"><thead><tr><th>Name</th><th>Kind</th>\
             <th class=\"num\">Size</th><th class=\"num\">Lines</th><th>Author</th><th class=\"num\">Ver.</th>\
             <th>Updated</th><th>Lifetime</th><th>Lease</th></tr></thead><tbody>",
        );
        for entry in &page.entries {
            body.push_str(&row(&session, entry, leases.get(&entry.name), now));
        }
        body.push_str("</tbody></table>");
    }
    body.push_str(&pager(&query, &session, page_number, &page));
    let document = Page::new(format!("{session} · entries"), "entries")
        .crumb("Sessions", Some("/".to_owned()))
        .crumb(session.clone(), None)
        .data("session", session.clone())
        .render(app, &body);
    Ok(document)
}

fn filters(query: &Query, session: &str) -> String {
    let kind = query.get("kind").unwrap_or("");
    let option = |value: &str, label: &str| {
        format!(
            "<option value=\"{value}\"{}>{label}</option>",
            if kind == value { " selected" } else { "" }
        )
    };
    format!(
        "<form class=\"filters\" method=\"get\" action=\"{action}\">\
         <label>Name starts with <input type=\"text\" name=\"name\" value=\"{name}\" autocomplete=\"off\"></label>\
         <label>Kind <select name=\"kind\">{any}{text}{json}{binary}</select></label>\
         <label>Author <input type=\"text\" name=\"author\" value=\"{author}\" autocomplete=\"off\"></label>\
         <button type=\"submit\">Filter</button> <a class=\"quiet\" href=\"{action}\">Clear</a></form>",
        action = esc(&session_path(session)),
        name = esc(query.get("name").unwrap_or("")),
        author = esc(query.get("author").unwrap_or("")),
        any = option("", "any"),
        text = option("text", "text"),
        json = option("json", "json"),
        binary = option("binary", "binary"),
    )
}

fn row(session: &str, entry: &EntryInfo, lease: Option<&Lease>, now: i64) -> String {
    let lifetime = if entry.pinned {
        "<span class=\"badge pin\">pinned</span>".to_owned()
    } else {
        match entry.expires_at {
            Some(at) => format!("expires {}", time(at, now)),
            None => "<span class=\"quiet\">kept</span>".to_owned(),
        }
    };
    let lease = match lease {
        Some(lease) => format!(
            "<span class=\"badge lease\" title=\"token {}\">{}</span> until {}",
            lease.token,
            esc(lease.holder.as_deref().unwrap_or("?")),
            time(lease.expires_at, lease.now)
        ),
        None => String::new(),
    };
    let tool = entry
        .source
        .tool
        .as_deref()
        .map(|tool| {
            format!(
                " <span class=\"tool\" title=\"output of this tool\">{}</span>",
                esc(tool)
            )
        })
        .unwrap_or_default();
    format!(
        "<tr data-name=\"{name}\"><td class=\"name\"><a href=\"{href}\">{name}</a>{tool}</td>\
         <td><span class=\"kind {kind}\">{kind}</span></td><td class=\"num\" title=\"{exact} bytes\">{size}</td>\
         <td class=\"num\">{lines}</td><td>{author}</td><td class=\"num\">{version}</td><td>{updated}</td>\
         <td>{lifetime}</td><td>{lease}</td></tr>",
        name = esc(&entry.name),
        href = esc(&entry_path(session, &entry.name)),
        kind = kind_name(entry.kind),
        exact = count(entry.bytes),
        size = bytes(entry.bytes),
        lines = if entry.kind == Kind::Binary {
            "–".to_owned()
        } else {
            count(entry.lines)
        },
        author = esc(entry.author.as_deref().unwrap_or("")),
        version = entry.version,
        updated = time(entry.updated_at, now),
    )
}

pub(crate) fn kind_name(kind: Kind) -> &'static str {
    kind.as_str()
}

/// Links to the first, the previous and the next page, keeping the filters. `number` is the page's
/// number counted from the first, when its address says it (a shared link may not).
fn pager(
    query: &Query,
    session: &str,
    number: Option<u64>,
    page: &scratchpad_core::Page,
) -> String {
    let mut kept: Vec<(&str, String)> = Vec::new();
    for key in ["name", "kind", "author", "limit"] {
        if let Some(value) = query.get(key) {
            kept.push((key, value.to_owned()));
        }
    }
    let base = session_path(session);
    let at = |cursor: Option<&str>, number: Option<u64>| {
        let mut params = kept.clone();
        if let Some(cursor) = cursor {
            params.push(("cursor", cursor.to_owned()));
        }
        if let Some(number) = number.filter(|_| cursor.is_some()) {
            params.push(("page", number.to_string()));
        }
        let address = if params.is_empty() {
            base.clone()
        } else {
            format!("{base}?{}", encode(&params))
        };
        esc(&address)
    };
    let first = at(None, None);
    let mut links = Vec::new();
    if let Some(cursor) = &page.prev_cursor {
        // Back from the second page is the first page as it is now, newest first.
        let previous = match number {
            Some(n) if n <= 2 => first.clone(),
            _ => at(Some(cursor), number.map(|n| n - 1)),
        };
        if previous != first {
            links.push(format!("<a href=\"{first}\">← First page</a>"));
        }
        links.push(format!(
            "<a href=\"{previous}\" rel=\"prev\">← Previous page</a>"
        ));
    }
    if let Some(n) = number.filter(|&n| n > 1) {
        links.push(format!("<span class=\"quiet\">page {n}</span>"));
    }
    if let Some(cursor) = &page.next_cursor {
        let next = number
            .or(page.prev_cursor.is_none().then_some(1))
            .map(|n| n + 1);
        links.push(format!(
            "<a href=\"{}\" rel=\"next\">Next page →</a>",
            at(Some(cursor), next)
        ));
    }
    if links.is_empty() {
        String::new()
    } else {
        format!("<nav class=\"pager\">{}</nav>", links.join(""))
    }
}

/// `/s/{session}/new`: a form for a new note (the script sends it to the API).
pub(crate) async fn new_note(State(app): State<Arc<App>>, Path(session): Path<String>) -> Response {
    let result = if app.read_only {
        Err(Failure::new(
            http::StatusCode::FORBIDDEN,
            "this view was started with --read-only: notes cannot be written from it",
        ))
    } else if let Err(err) = app.engine.reader().with_session(&session) {
        Err(Failure::from_engine(&err, &session))
    } else {
        let body = format!(
            "<div class=\"page-head\"><h1>New note</h1><p class=\"sub\">in session <code>{session}</code>; \
             it keeps every version, like the notes agents write</p></div>\
             <form class=\"note-form\" id=\"new-note\" data-session=\"{session}\">\
             <label>Name <input type=\"text\" name=\"name\" required pattern=\"[A-Za-z0-9][A-Za-z0-9._\\-]{{0,127}}\" \
             title=\"1 to 128 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit\" autocomplete=\"off\"></label>\
             <label>Text <textarea name=\"text\" rows=\"14\" spellcheck=\"false\"></textarea></label>\
             <label class=\"inline\"><input type=\"checkbox\" name=\"pinned\"> Pinned (never expires, never evicted)</label>\
             <p class=\"form-error\" hidden></p>\
             <div class=\"buttons\"><button type=\"submit\" class=\"primary\">Create</button> \
             <a class=\"quiet\" href=\"{back}\">Cancel</a></div></form>",
            session = esc(&session),
            back = esc(&session_path(&session)),
        );
        Ok(Page::new("New note", "new-note")
            .crumb("Sessions", Some("/".to_owned()))
            .crumb(session.clone(), Some(session_path(&session)))
            .crumb("New note", None)
            .data("session", session.clone())
            .render(&app, &body))
    };
    respond(&app, result)
}
