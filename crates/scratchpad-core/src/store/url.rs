//! Store URLs: what a `postgres://` URL says, and how any URL is shown without its secrets.
//!
//! What is shown is rebuilt from the parts of the parsed URL with the password left out, never the
//! URL with the password's text searched for and replaced: that gives a short password away (a
//! password `a` would mask every `a` of the message) and misses one written with escapes.
//!
//! An `@` in a password may be left unencoded: the user information ends at the last `@` before
//! the parameters (`postgres://u:p@ss@host/db` is user `u`, password `p@ss`, host `host`), since a
//! host name never holds one. `:` and `/` may stay unencoded in a password too; `?` and `%` must be
//! written `%3F` and `%25`, and an `@` in the database name `%40`.
//!
//! ```
//! use scratchpad_core::store::url::redact;
//!
//! assert_eq!(
//!     redact("postgres://agent:p@ss@db.internal:5432/pad?sslmode=verify-full"),
//!     "postgres://agent:***@db.internal:5432/pad?sslmode=verify-full"
//! );
//! assert_eq!(redact("/home/me/pad.db"), "/home/me/pad.db");
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// What stands for a password or another secret value in what is shown.
pub const REDACTED: &str = "***";

/// A store URL as configured. `Debug` and `Display` show it redacted ([`redact`]); the URL itself
/// is only handed out by [`StoreUrl::as_str`], to open the store with.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StoreUrl(String);

impl StoreUrl {
    pub fn new(url: impl Into<String>) -> Self {
        Self(url.into())
    }

    /// The URL itself, password included: for opening the store, never for a message.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for StoreUrl {
    fn from(url: String) -> Self {
        Self(url)
    }
}

impl From<&str> for StoreUrl {
    fn from(url: &str) -> Self {
        Self(url.to_owned())
    }
}

impl fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("StoreUrl").field(&redact(&self.0)).finish()
    }
}

impl fmt::Display for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact(&self.0))
    }
}

/// Whether a parameter, header, flag or variable with this name holds a secret (an API key, a
/// token, a password, a signature, a cookie).
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "key", "token", "secret", "password", "passwd", "auth", "sig",
    ]
    .iter()
    .any(|word| name.contains(word))
        || name == "cookie"
}

/// `text` as it may be shown: a URL with its password and secret parameters replaced by `***`
/// (and, outside `postgres://` URLs, a user name given alone, which is often a token); anything
/// that is not a `scheme://` URL (a file path) unchanged. A `postgres://` URL too mangled to take
/// apart safely is shown as `postgres://…`.
pub fn redact(text: &str) -> String {
    let Some((scheme, rest)) = text.split_once("://") else {
        return text.to_owned();
    };
    let plain_scheme = !scheme.is_empty()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !plain_scheme {
        return text.to_owned();
    }
    if is_postgres_scheme(scheme) {
        return match PgParts::split(rest) {
            Ok(parts) => parts.shown(scheme),
            Err(_) => format!("{scheme}://…"),
        };
    }
    if scheme.eq_ignore_ascii_case("sqlite") {
        return text.to_owned();
    }
    // Any other URL as browsers and HTTP clients read it: the authority ends at the first `/`,
    // `?` or `#`, and its user information at the last `@` in it.
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:{REDACTED}@{host}"),
            None => format!("{REDACTED}@{host}"),
        },
        None => authority.to_owned(),
    };
    let (before_fragment, fragment) = match tail.split_once('#') {
        Some((before, fragment)) => (before, Some(fragment)),
        None => (tail, None),
    };
    let mut shown = format!("{scheme}://{authority}");
    match before_fragment.split_once('?') {
        Some((path, query)) => {
            shown.push_str(path);
            shown.push('?');
            shown.push_str(&redact_pairs(query));
        }
        None => shown.push_str(before_fragment),
    }
    if let Some(fragment) = fragment {
        shown.push('#');
        shown.push_str(&redact_pairs(fragment));
    }
    shown
}

pub(crate) fn is_postgres_scheme(scheme: &str) -> bool {
    scheme.eq_ignore_ascii_case("postgres") || scheme.eq_ignore_ascii_case("postgresql")
}

/// `a=1&api_key=s3cret` → `a=1&api_key=***`.
fn redact_pairs(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if is_secret_name(&percent_decode_lossy(name)) => {
                format!("{name}={REDACTED}")
            }
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// A `postgres://` URL taken apart, each part still as written (percent-encoded).
#[derive(Clone, Copy)]
pub(crate) struct PgParts<'a> {
    pub user: Option<&'a str>,
    pub password: Option<&'a str>,
    /// `host[:port]`, comma-separated; `[…]` around an IPv6 address.
    pub hosts: &'a str,
    pub database: Option<&'a str>,
    pub query: Option<&'a str>,
}

/// Why a `postgres://` URL cannot be taken apart. No variant holds any part of the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PgUrlError {
    /// No `@` before the parameters but one after them: either a password with a `?` in it, or
    /// an `@` in a parameter's value, and the two cannot be told apart.
    AmbiguousAt,
}

impl fmt::Debug for PgParts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown("postgres"))
    }
}

impl<'a> PgParts<'a> {
    /// Splits what follows `postgres://`.
    pub fn split(rest: &'a str) -> Result<Self, PgUrlError> {
        let query_at = rest.find('?').unwrap_or(rest.len());
        let (userinfo, after) = match rest[..query_at].rfind('@') {
            Some(at) => (Some(&rest[..at]), &rest[at + 1..]),
            None if rest[query_at..].contains('@') => return Err(PgUrlError::AmbiguousAt),
            None => (None, rest),
        };
        let (user, password) = match userinfo.map(|u| u.split_once(':')) {
            Some(Some((user, password))) => (Some(user), Some(password)),
            Some(None) => (userinfo, None),
            None => (None, None),
        };
        let hosts_end = after.find(['/', '?']).unwrap_or(after.len());
        let (hosts, tail) = after.split_at(hosts_end);
        let (database, query) = match tail.strip_prefix('/') {
            Some(path) => match path.split_once('?') {
                Some((database, query)) => (Some(database), Some(query)),
                None => (Some(path), None),
            },
            None => (None, tail.strip_prefix('?')),
        };
        Ok(Self {
            user,
            password,
            hosts,
            database,
            query,
        })
    }

    /// The URL rebuilt from its parts, the password and secret parameters as `***`.
    pub fn shown(&self, scheme: &str) -> String {
        let mut shown = format!("{scheme}://");
        if let Some(user) = self.user {
            shown.push_str(user);
            if self.password.is_some() {
                shown.push(':');
                shown.push_str(REDACTED);
            }
            shown.push('@');
        }
        shown.push_str(self.hosts);
        if let Some(database) = self.database {
            shown.push('/');
            shown.push_str(database);
        }
        if let Some(query) = self.query {
            shown.push('?');
            shown.push_str(&redact_pairs(query));
        }
        shown
    }

    /// The parameters, decoded, in the order written (empty pieces, as in `a=1&&b=2`, skipped).
    #[cfg(feature = "postgres")]
    pub fn params(&self) -> Result<Vec<(String, String)>, Error> {
        let Some(query) = self.query else {
            return Ok(Vec::new());
        };
        let mut params = Vec::new();
        for (n, pair) in query.split('&').filter(|p| !p.is_empty()).enumerate() {
            let Some((name, value)) = pair.split_once('=') else {
                return Err(invalid_pg_url(&format!(
                    "parameter {} has no `=` (each is NAME=VALUE, joined by &; a `?` in the password \
                     must be written %3F)",
                    n + 1
                )));
            };
            let name = percent_decode(name)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| {
                    invalid_pg_url(&format!("the name of parameter {} is not UTF-8", n + 1))
                })?;
            let value = percent_decode(value)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| {
                    invalid_pg_url(&format!("the value of parameter {} is not UTF-8", n + 1))
                })?;
            params.push((name, value));
        }
        Ok(params)
    }
}

/// The error for a `postgres://` URL that cannot be used, saying why and never showing the URL.
pub(crate) fn invalid_pg_url(why: &str) -> Error {
    Error::Config(format!(
        "invalid PostgreSQL URL: {why}; the form is \
         postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=verify-full&sslrootcert=/path/ca.pem \
         (the URL is not shown here: it holds a password)"
    ))
}

impl From<PgUrlError> for Error {
    fn from(err: PgUrlError) -> Self {
        match err {
            PgUrlError::AmbiguousAt => invalid_pg_url(
                "there is an `@` after the `?` but none before it; write a `?` in the password as \
                 %3F, or an `@` in a parameter's value as %40",
            ),
        }
    }
}

/// `%XX` sequences decoded. A `%` not followed by two hex digits is an error (a password with a
/// literal `%` must write it `%25`, or it would mean something else once another digit follows).
pub(crate) fn percent_decode(text: &str) -> Result<Vec<u8>, ()> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = |at: usize| bytes.get(at).and_then(|&c| (c as char).to_digit(16));
            let (Some(hi), Some(lo)) = (hex(i + 1), hex(i + 2)) else {
                return Err(());
            };
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    Ok(out)
}

fn percent_decode_lossy(text: &str) -> String {
    match percent_decode(text) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(()) => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unencoded_at_in_the_password_ends_at_the_last_at() {
        let parts = PgParts::split("u:p@ss@db.example.com:6543/pad?sslmode=require").unwrap();
        assert_eq!(parts.user, Some("u"));
        assert_eq!(parts.password, Some("p@ss"));
        assert_eq!(parts.hosts, "db.example.com:6543");
        assert_eq!(parts.database, Some("pad"));
        assert_eq!(parts.query, Some("sslmode=require"));
        // A colon and a slash in the password need no encoding either.
        let parts = PgParts::split("u:a:b/c@h/db").unwrap();
        assert_eq!(
            (parts.user, parts.password, parts.hosts),
            (Some("u"), Some("a:b/c"), "h")
        );
        // An `@` in a parameter's value is not the user information's end.
        let parts = PgParts::split("u:pw@h/db?application_name=me@laptop").unwrap();
        assert_eq!((parts.password, parts.hosts), (Some("pw"), "h"));
    }

    #[test]
    fn a_question_mark_in_the_password_is_refused_without_guessing() {
        assert_eq!(
            PgParts::split("u:pa?x=y@h/db").err(),
            Some(PgUrlError::AmbiguousAt)
        );
        let msg = Error::from(PgUrlError::AmbiguousAt).to_string();
        assert!(msg.contains("%3F") && msg.contains("%40"), "{msg}");
        assert_eq!(redact("postgres://u:pa?x=y@h/db"), "postgres://…");
    }

    #[test]
    fn what_is_shown_is_rebuilt_without_the_password() {
        assert_eq!(
            redact("postgres://u:p@ss@127.0.0.1:1/pad"),
            "postgres://u:***@127.0.0.1:1/pad"
        );
        // A one-letter password leaves the other letters alone.
        assert_eq!(
            redact("postgresql://a:a@a.example:5432/a?application_name=a"),
            "postgresql://a:***@a.example:5432/a?application_name=a"
        );
        assert_eq!(
            redact("postgres://h/db?user=u&password=s3cret&sslmode=require"),
            "postgres://h/db?user=u&password=***&sslmode=require"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(
            redact(r#"postgres://u:p"s\s@h/db"#),
            "postgres://u:***@h/db"
        );
        assert_eq!(redact("sqlite:///tmp/a@b:c.db"), "sqlite:///tmp/a@b:c.db");
        assert_eq!(redact("relative/pad.db"), "relative/pad.db");
    }

    #[test]
    fn other_urls_hide_passwords_tokens_and_secret_parameters() {
        assert_eq!(
            redact("https://user:pw@mcp.example.com/mcp?api_key=abcd&region=eu#token=xyz"),
            "https://user:***@mcp.example.com/mcp?api_key=***&region=eu#token=***"
        );
        assert_eq!(
            redact("https://ghp_tokenvalue@github.com/org/repo"),
            "https://***@github.com/org/repo"
        );
        assert_eq!(
            redact("https://mcp.example.com/@scope/pkg"),
            "https://mcp.example.com/@scope/pkg"
        );
    }

    #[test]
    fn store_urls_in_debug_are_redacted() {
        let url = StoreUrl::new("postgres://agent:hunter2@db:5432/pad");
        let shown = format!("{url:?} {url}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("agent:***@db:5432/pad"), "{shown}");
        assert_eq!(url.as_str(), "postgres://agent:hunter2@db:5432/pad");
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn parameters_are_decoded_and_a_bad_one_is_named_by_position() {
        let parts = PgParts::split("u@h/db?application_name=a%20b&&sslmode=require").unwrap();
        assert_eq!(
            parts.params().unwrap(),
            [
                ("application_name".to_owned(), "a b".to_owned()),
                ("sslmode".to_owned(), "require".to_owned())
            ]
        );
        let err = PgParts::split("u@h/db?a=1&oops")
            .unwrap()
            .params()
            .unwrap_err()
            .to_string();
        assert!(err.contains("parameter 2 has no `=`"), "{err}");
        assert!(!err.contains("oops"), "{err}");
        assert_eq!(percent_decode("p%40ss%25").unwrap(), b"p@ss%");
        assert!(percent_decode("100%").is_err());
    }
}
