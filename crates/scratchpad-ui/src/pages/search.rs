//! `/search?q=…`: full-text search across every session, best hits first.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::response::Response;
use scratchpad_core::now_ms;

use super::entries::kind_name;
use super::{Page, respond};
use crate::App;
use crate::failure::Failure;
use crate::html::{bytes, esc, time};
use crate::query::{Query, entry_path, session_path};

/// Hits a search page lists.
const PAGE_HITS: usize = 50;

pub(crate) async fn page(State(app): State<Arc<App>>, RawQuery(raw): RawQuery) -> Response {
    let result = render(&app, raw).await;
    respond(&app, result)
}

async fn render(app: &App, raw: Option<String>) -> Result<String, Failure> {
    let query = Query::parse(raw.as_deref());
    let words = query.get("q").unwrap_or("").trim().to_owned();
    let mut body = format!(
        "<div class=\"page-head\"><h1>Search</h1><p class=\"sub\">names, notes, and the first 192 KB and last \
         64 KB of every entry, in every session</p></div>\
         <form class=\"search-page\" method=\"get\" action=\"/search\"><input type=\"search\" name=\"q\" value=\"{}\" \
         placeholder=\"timeout, read_file, plan…\" autofocus><button type=\"submit\" class=\"primary\">Search</button></form>",
        esc(&words)
    );
    if !words.is_empty() {
        let asked = words.clone();
        let hits = app
            .engine
            .read(move |pad, _| pad.search_all_sessions(&asked, PAGE_HITS))
            .await;
        match hits {
            Ok(hits) if hits.is_empty() => body.push_str(&format!(
                "<section class=\"empty\"><p>Nothing matches <strong>{}</strong>.</p></section>",
                esc(&words)
            )),
            Ok(hits) => {
                let now = now_ms();
                body.push_str("<ol class=\"hits\" id=\"hits\">");
                for hit in &hits {
                    let entry = &hit.entry;
                    body.push_str(&format!(
                        "<li><div class=\"hit-head\"><a class=\"name\" href=\"{href}\">{name}</a> \
                         <span class=\"quiet\">in</span> <a href=\"{session_href}\">{session}</a> \
                         <span class=\"kind {kind}\">{kind}</span> <span class=\"quiet\">{size} · {when}</span></div>\
                         <p class=\"snippet\">{snippet}</p></li>",
                        href = esc(&entry_path(&entry.session, &entry.name)),
                        name = esc(&entry.name),
                        session_href = esc(&session_path(&entry.session)),
                        session = esc(&entry.session),
                        kind = kind_name(entry.kind),
                        size = bytes(entry.bytes),
                        when = time(entry.updated_at, now),
                        snippet = snippet(&hit.snippet),
                    ));
                }
                body.push_str("</ol>");
            }
            Err(failure) => body.push_str(&format!(
                "<p class=\"message\">{}</p>",
                esc(&failure.message)
            )),
        }
    }
    let mut page = Page::new(
        if words.is_empty() {
            "Search".to_owned()
        } else {
            format!("{words} · search")
        },
        "search",
    )
    .crumb("Search", None);
    page.search = words;
    Ok(page.render(app, &body))
}

/// A snippet with its matched words (between `«` and `»`) marked, everything escaped.
fn snippet(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('«') {
        out.push_str(&esc(&rest[..start]));
        let after = &rest[start + '«'.len_utf8()..];
        match after.find('»') {
            Some(end) => {
                out.push_str(&format!("<mark>{}</mark>", esc(&after[..end])));
                rest = &after[end + '»'.len_utf8()..];
            }
            None => {
                rest = after;
            }
        }
    }
    out.push_str(&esc(rest));
    out
}

#[cfg(test)]
mod tests {
    use super::snippet;

    #[test]
    fn matched_words_are_marked_and_the_rest_is_text() {
        assert_eq!(snippet("a «<b>» c «d"), "a <mark>&lt;b&gt;</mark> c d");
    }
}
