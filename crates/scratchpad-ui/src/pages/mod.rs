//! The pages: HTML written on the server, complete on first paint, each at an address a person can
//! paste. The script (assets/app.js) adds what HTML cannot do and keeps pages live.

mod entries;
mod entry;
mod history;
mod savings;
mod search;
mod sessions;

use std::sync::Arc;

use axum::Router;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use http::StatusCode;

use crate::App;
use crate::failure::Failure;
use crate::html::esc;

pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(sessions::page))
        .route("/search", get(search::page))
        .route("/savings", get(savings::page))
        .route("/s/{session}", get(entries::page))
        .route("/s/{session}/new", get(entries::new_note))
        .route("/s/{session}/e/{name}", get(entry::page))
        .route("/s/{session}/e/{name}/history", get(history::page))
        .route("/s/{session}/e/{name}/diff", get(history::diff_page))
        .fallback(not_found)
        .with_state(app)
}

async fn not_found(axum::extract::State(app): axum::extract::State<Arc<App>>) -> Response {
    error_page(
        &app,
        &Failure::new(
            StatusCode::NOT_FOUND,
            "there is no page at this address; the sessions are listed at /",
        ),
    )
}

/// A page under construction: what the layout needs besides the body.
pub(crate) struct Page {
    pub title: String,
    /// What the script does here (`sessions`, `entries`, `entry`, …).
    pub kind: &'static str,
    /// The trail above the heading: text and, but for the last, an address.
    pub crumbs: Vec<(String, Option<String>)>,
    /// `data-*` attributes of `<body>` for the script (names without `data-`).
    pub data: Vec<(&'static str, String)>,
    /// The search box's text.
    pub search: String,
}

impl Page {
    pub fn new(title: impl Into<String>, kind: &'static str) -> Self {
        Self {
            title: title.into(),
            kind,
            crumbs: Vec::new(),
            data: Vec::new(),
            search: String::new(),
        }
    }

    pub fn crumb(mut self, text: impl Into<String>, href: Option<String>) -> Self {
        self.crumbs.push((text.into(), href));
        self
    }

    pub fn data(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.data.push((name, value.into()));
        self
    }

    /// The whole document around `body`.
    pub fn render(self, app: &App, body: &str) -> String {
        let version = crate::assets::version();
        let mut data = String::new();
        for (name, value) in &self.data {
            data.push_str(&format!(" data-{name}=\"{}\"", esc(value)));
        }
        if app.read_only {
            data.push_str(" data-read-only=\"1\"");
        }
        let crumbs = if self.crumbs.is_empty() {
            String::new()
        } else {
            let mut trail = String::from("<nav class=\"crumbs\" aria-label=\"Where you are\">");
            for (i, (text, href)) in self.crumbs.iter().enumerate() {
                if i > 0 {
                    trail.push_str("<span class=\"sep\">/</span>");
                }
                match href {
                    Some(href) => {
                        trail.push_str(&format!("<a href=\"{}\">{}</a>", esc(href), esc(text)))
                    }
                    None => trail.push_str(&format!("<span>{}</span>", esc(text))),
                }
            }
            trail.push_str("</nav>");
            trail
        };
        let read_only = if app.read_only {
            "<span class=\"badge ro\" title=\"Started with --read-only: nothing can be changed here\">read-only</span>"
        } else {
            ""
        };
        let store = if app.store_label.is_empty() {
            String::new()
        } else {
            format!("store <code>{}</code> · ", esc(&app.store_label))
        };
        let changes = if app.read_only {
            "nothing is changed from here".to_owned()
        } else {
            format!(
                "changes made here are recorded as <code>{}</code>",
                esc(&app.author)
            )
        };
        format!(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{title} · scratchpad</title>\
             <link rel=\"icon\" href=\"/assets/icon.svg?v={version}\" type=\"image/svg+xml\">\
             <link rel=\"stylesheet\" href=\"/assets/app.css?v={version}\">\
             <script src=\"/assets/app.js?v={version}\" defer></script></head>\
             <body data-page=\"{kind}\"{data}>\
             <header class=\"top\"><a class=\"brand\" href=\"/\"><img src=\"/assets/icon.svg?v={version}\" alt=\"\" width=\"22\" height=\"22\">scratchpad</a>\
             <nav class=\"main-nav\"><a href=\"/\">Sessions</a><a href=\"/savings\">Savings</a></nav>\
             <form class=\"search-box\" action=\"/search\" method=\"get\" role=\"search\">\
             <input type=\"search\" name=\"q\" placeholder=\"Search every session\" aria-label=\"Search every session\" value=\"{search}\"></form>\
             <span class=\"live\" id=\"live\" title=\"Connecting…\"><span class=\"dot\"></span><span class=\"live-text\">live</span></span>{read_only}</header>\
             {crumbs}<main id=\"main\">{body}</main>\
             <footer>{store}{changes}</footer>\
             <div class=\"toast\" id=\"toast\" role=\"status\" aria-live=\"polite\" hidden></div></body></html>",
            title = esc(&self.title),
            kind = self.kind,
            search = esc(&self.search),
        )
    }
}

/// A page as the answer to a request.
pub(crate) fn html(document: String) -> Response {
    Html(document).into_response()
}

/// A failure as a page: what was wrong and where to go.
pub(crate) fn error_page(app: &App, failure: &Failure) -> Response {
    let title = match failure.status {
        StatusCode::NOT_FOUND => "Not found",
        StatusCode::CONFLICT => "Changed meanwhile",
        status if status.is_client_error() => "Cannot show this",
        _ => "Something failed",
    };
    let body = format!(
        "<section class=\"failure\"><h1>{}</h1><p class=\"message\">{}</p>\
         <p><a href=\"/\">All sessions</a></p></section>",
        esc(title),
        linkify(&failure.message)
    );
    let mut response = html(Page::new(title, "error").render(app, &body));
    *response.status_mut() = failure.status;
    response
}

/// A message with the addresses it suggests (`</s/…>`, as [`crate::speak::Web`] writes them) as
/// links; everything else escaped.
pub(crate) fn linkify(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(start) = rest.find("</") {
        let Some(len) = rest[start + 1..].find('>') else {
            break;
        };
        let href = &rest[start + 1..start + 1 + len];
        out.push_str(&esc(&rest[..start]));
        if href.starts_with("/s/") && !href.contains(['<', '"', ' ']) {
            out.push_str(&format!("<a href=\"{}\">{}</a>", esc(href), esc(href)));
        } else {
            out.push_str(&esc(&rest[start..start + 2 + len]));
        }
        rest = &rest[start + 2 + len..];
    }
    out.push_str(&esc(rest));
    out
}

/// A page's answer, or its failure as a page.
pub(crate) fn respond(app: &App, result: Result<String, Failure>) -> Response {
    match result {
        Ok(document) => html(document),
        Err(failure) => error_page(app, &failure),
    }
}

#[cfg(test)]
mod tests {
    use super::linkify;

    #[test]
    fn suggested_addresses_become_links_and_nothing_else_does() {
        assert_eq!(
            linkify("read it with </s/a/e/b?lines=1-100> or <b>"),
            "read it with <a href=\"/s/a/e/b?lines=1-100\">/s/a/e/b?lines=1-100</a> or &lt;b&gt;"
        );
        assert_eq!(
            linkify("</script><img src=x onerror=alert(1)>"),
            "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"
        );
    }
}
