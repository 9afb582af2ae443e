//! What every request passes before a page or the API sees it: `Host` and `Origin` (DNS
//! rebinding, pages of other origins), the launch token (a cookie after the first visit, or a bearer
//! token for scripts), changes refused in read-only mode or from another site; and what every answer
//! carries: a strict Content-Security-Policy and the time the server spent on it.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, Method, StatusCode, header};
use scratchpad_http::HostCheck;

use crate::App;
use crate::query::Query;

/// Scripts, styles and images from this origin only; nothing inline, no other origin, no framing.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The token and the rules of one launch.
#[derive(Debug)]
pub(crate) struct Gate {
    /// The token's hash: hashes compare in constant time, and the secret is not kept around.
    token: blake3::Hash,
    /// Per port: two views on one host keep their own cookies.
    cookie: String,
    check: HostCheck,
    read_only: bool,
}

/// A random token of 128 bits, as 32 hex digits.
pub(crate) fn random_token() -> crate::Result<String> {
    let mut raw = [0u8; 16];
    getrandom::fill(&mut raw).map_err(|err| {
        crate::Error::Config(format!(
            "no randomness for this launch's token ({err}); pass --token TOKEN"
        ))
    })?;
    Ok(raw.iter().map(|b| format!("{b:02x}")).collect())
}

/// How a request proved who it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Proof {
    Cookie,
    Bearer,
    /// `?token=…` in the address: the first visit, traded for a cookie.
    Address,
}

impl Gate {
    pub fn new(token: &str, port: u16, check: HostCheck, read_only: bool) -> Self {
        Self {
            token: blake3::hash(token.as_bytes()),
            cookie: format!("scratchpad_ui_{port}"),
            check,
            read_only,
        }
    }

    fn matches(&self, presented: &str) -> bool {
        blake3::hash(presented.trim().as_bytes()) == self.token
    }

    /// How the request proves it holds the token, if it does.
    fn proof(&self, request: &Request) -> Option<Proof> {
        let headers = request.headers();
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token);
        if bearer.is_some_and(|token| self.matches(token)) {
            return Some(Proof::Bearer);
        }
        let cookie = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == self.cookie)
            .map(|(_, value)| value);
        if cookie.is_some_and(|token| self.matches(token)) {
            return Some(Proof::Cookie);
        }
        let query = Query::parse(request.uri().query());
        if query.get("token").is_some_and(|token| self.matches(token)) {
            return Some(Proof::Address);
        }
        None
    }

    /// The cookie that stands for the token from now on.
    fn set_cookie(&self, token: &str) -> Option<HeaderValue> {
        HeaderValue::from_str(&format!(
            "{}={}; HttpOnly; SameSite=Strict; Path=/",
            self.cookie,
            token.trim()
        ))
        .ok()
    }
}

pub(crate) async fn guard(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let gate = &app.gate;
    let mut response = match admit(gate, &request) {
        Err(refused) => *refused,
        Ok(Proof::Address) if is_page(&request) => first_visit(gate, &request),
        Ok(_) => next.run(request).await,
    };
    secure(&mut response, started);
    response
}

/// Checks a request; `Err` is the answer when it is refused (boxed: a response is large, an
/// admitted request is the common case).
fn admit(gate: &Gate, request: &Request) -> Result<Proof, Box<Response>> {
    if let Err(refused) = gate.check.check(request.uri(), request.headers()) {
        return Err(Box::new(plain(refused.status(), &format!("{refused}\n"))));
    }
    let Some(proof) = gate.proof(request) else {
        return Err(Box::new(plain(
            StatusCode::UNAUTHORIZED,
            "this scratchpad view needs its launch token: open the address `scratchpad ui` printed \
             when it started (it ends in ?token=…), or send `Authorization: Bearer TOKEN`\n",
        )));
    };
    let changes = !matches!(*request.method(), Method::GET | Method::HEAD);
    if changes {
        if gate.read_only {
            return Err(Box::new(plain(
                StatusCode::FORBIDDEN,
                "this view was started with --read-only: it shows the store and changes nothing\n",
            )));
        }
        // Browsers say where a request comes from; a change must come from this view's own pages.
        let site = request
            .headers()
            .get("sec-fetch-site")
            .and_then(|value| value.to_str().ok());
        if site.is_some_and(|site| !matches!(site, "same-origin" | "none")) {
            return Err(Box::new(plain(
                StatusCode::FORBIDDEN,
                "changes are accepted from this view's own pages only\n",
            )));
        }
    }
    Ok(proof)
}

/// A page (not the API, not an asset): the kind of request a person makes from the address bar.
fn is_page(request: &Request) -> bool {
    let path = request.uri().path();
    request.method() == Method::GET && !path.starts_with("/api/") && !path.starts_with("/assets/")
}

/// The first visit: the token becomes a cookie, and the address loses it (so that it stays out of
/// the history, bookmarks and links a person copies).
fn first_visit(gate: &Gate, request: &Request) -> Response {
    let query = Query::parse(request.uri().query());
    let rest: Vec<(String, String)> =
        form_urlencoded::parse(request.uri().query().unwrap_or("").as_bytes())
            .filter(|(key, _)| key != "token")
            .map(|(key, value)| (key.into_owned(), value.into_owned()))
            .collect();
    let mut location = request.uri().path().to_owned();
    if !rest.is_empty() {
        let mut serializer = form_urlencoded::Serializer::new(String::new());
        for (key, value) in &rest {
            serializer.append_pair(key, value);
        }
        location.push('?');
        location.push_str(&serializer.finish());
    }
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    if let Some(cookie) = query.get("token").and_then(|token| gate.set_cookie(token)) {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

fn plain(status: StatusCode, text: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text.to_owned(),
    )
        .into_response()
}

/// The headers every answer carries.
fn secure(response: &mut Response, started: Instant) {
    let headers = response.headers_mut();
    // A download sets a stricter policy of its own (a sandbox); everything else gets the pages' one.
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        );
    }
    let fixed = [
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (
            http::HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
        (
            http::HeaderName::from_static("cross-origin-resource-policy"),
            "same-origin",
        ),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    // The server's own time on the request, for a browser's network panel and the benchmarks.
    let ms = started.elapsed().as_secs_f64() * 1e3;
    if let Ok(value) = HeaderValue::from_str(&format!("app;dur={ms:.3}")) {
        headers.insert(http::HeaderName::from_static("server-timing"), value);
    }
}
