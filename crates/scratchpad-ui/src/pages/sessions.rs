//! `/`: every session of the store, most recently active first.

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use scratchpad_core::now_ms;

use super::{Page, respond};
use crate::App;
use crate::html::{bytes, count, esc, time};
use crate::query::session_path;

pub(crate) async fn page(State(app): State<Arc<App>>) -> Response {
    let sessions = app.engine.read(|pad, _| pad.sessions()).await;
    let result = sessions.map(|sessions| {
        let now = now_ms();
        let entries: u64 = sessions.iter().map(|s| s.figures.entries).sum();
        let kept: u64 = sessions.iter().map(|s| s.figures.tokens_kept_out).sum();
        let stored: u64 = sessions.iter().map(|s| s.figures.bytes).sum();
        let mut body = String::from("<div class=\"page-head\"><h1>Sessions</h1>");
        body.push_str(&format!(
            "<p class=\"sub\">{} · {} entries · {} · <strong>{}</strong> tokens kept out of context</p></div>",
            match sessions.len() {
                1 => "1 session".to_owned(),
                n => format!("{} sessions", count(n as u64)),
            },
            count(entries),
            bytes(stored),
            count(kept),
        ));
        if sessions.is_empty() {
            body.push_str(
                "<section class=\"empty\"><h2>Nothing stored yet</h2><p>Sessions appear here as \
                 agents store outputs and write notes, and this page follows them live. Try \
                 <code>scratchpad run -- ls -la</code> or <code>scratchpad write plan \"1. reproduce\"</code>.</p></section>",
            );
        } else {
            body.push_str(
                "<table class=\"grid\" id=\"sessions\"><thead><tr><th>Session</th>\
                 <th class=\"num\">Entries</th><th class=\"num\">Pinned</th><th class=\"num\">Size</th>\
                 <th class=\"num\" title=\"Estimated tokens of the stored content, less what its previews show\">Tokens kept out</th>\
                 <th>Last activity</th></tr></thead><tbody>",
            );
            for session in &sessions {
                body.push_str(&format!(
                    "<tr><td class=\"name\"><a href=\"{href}\">{name}</a></td><td class=\"num\">{entries}</td>\
                     <td class=\"num\">{pinned}</td><td class=\"num\" title=\"{exact} bytes\">{size}</td>\
                     <td class=\"num\">{kept}</td><td>{when}</td></tr>",
                    href = esc(&session_path(&session.session)),
                    name = esc(&session.session),
                    entries = count(session.figures.entries),
                    pinned = count(session.figures.pinned),
                    exact = count(session.figures.bytes),
                    size = bytes(session.figures.bytes),
                    kept = count(session.figures.tokens_kept_out),
                    when = time(session.last_changed, now),
                ));
            }
            body.push_str("</tbody></table>");
        }
        Page::new("Sessions", "sessions").render(&app, &body)
    });
    respond(&app, result)
}
