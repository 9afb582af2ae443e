//! From a `postgres://` store URL to the client's settings.
//!
//! The URL is taken apart as [`store::url`](crate::store::url) says (an unencoded `@` in the
//! password ends at the last one); `sslmode` and `sslrootcert` are kept for [`Tls`]; the rest goes
//! to the client's own parser as a `key='value'` string, so every option it knows keeps working and
//! none of its URL quirks (it splits at the first `@`) apply.

use std::path::PathBuf;
use std::str::FromStr;

use postgres::config::{Host, SslMode as ClientSslMode};

use super::tls::{SslMode, Tls};
use crate::error::{Error, Result};
use crate::store::url::{PgParts, invalid_pg_url, percent_decode};

/// What a store URL says, ready to connect with.
#[derive(Debug)]
pub(super) struct Settings {
    pub(super) config: postgres::Config,
    pub(super) tls: Tls,
    /// The URL set `keepalives_idle` itself (else the pool picks one).
    pub(super) keepalives_idle_given: bool,
}

/// Parameters the client takes as they are.
const CLIENT_PARAMS: &[&str] = &[
    "user",
    "password",
    "dbname",
    "options",
    "application_name",
    "sslnegotiation",
    "host",
    "hostaddr",
    "port",
    "connect_timeout",
    "tcp_user_timeout",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_retries",
    "target_session_attrs",
    "channel_binding",
    "load_balance_hosts",
];

/// libpq's other TLS parameters, which this build does not act on: refused, so that nobody
/// believes a client certificate or a revocation list is in use when it is not.
const UNSUPPORTED_TLS_PARAMS: &[&str] = &[
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslcertmode",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "sslcompression",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
    "requiressl",
    "sslkeylogfile",
];

/// Reads a `postgres://` or `postgresql://` URL. `default_root` is `~/.postgresql/root.crt`.
pub(super) fn settings(url: &str, default_root: Option<PathBuf>) -> Result<Settings> {
    let rest = url
        .split_once("://")
        .map(|(_, rest)| rest)
        .ok_or_else(|| invalid_pg_url("it does not start with postgres://"))?;
    let parts = PgParts::split(rest)?;
    let mut conninfo = String::new();
    if let Some(user) = parts.user.filter(|u| !u.is_empty()) {
        push(&mut conninfo, "user", &decode(user, "the user name")?);
    }
    let password = parts
        .password
        .map(|p| {
            percent_decode(p).map_err(|()| {
                invalid_pg_url(
                    "the password has a `%` that is not followed by two hex digits; write a `%` in \
                     a password as %25",
                )
            })
        })
        .transpose()?;
    push_hosts(&mut conninfo, parts.hosts)?;
    if let Some(database) = parts.database.filter(|d| !d.is_empty()) {
        push(
            &mut conninfo,
            "dbname",
            &decode(database, "the database name")?,
        );
    }
    let mut sslmode = None;
    let mut sslrootcert = None;
    let mut keepalives_idle_given = false;
    let mut password_param = false;
    for (n, (name, value)) in parts.params()?.into_iter().enumerate() {
        match name.as_str() {
            "sslmode" => sslmode = Some(value),
            "sslrootcert" => sslrootcert = Some(value),
            known if CLIENT_PARAMS.contains(&known) => {
                keepalives_idle_given |= known == "keepalives_idle";
                password_param |= known == "password";
                push(&mut conninfo, known, &value);
            }
            tls if UNSUPPORTED_TLS_PARAMS.contains(&tls) => {
                return Err(invalid_pg_url(&format!(
                    "`{tls}` is not supported by this build (it verifies the server with sslmode and \
                     sslrootcert, and has no client certificates); remove it"
                )));
            }
            other => {
                let named = if !other.is_empty()
                    && other.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
                {
                    format!("`{other}`")
                } else {
                    format!("number {}", n + 1)
                };
                return Err(invalid_pg_url(&format!(
                    "parameter {named} is not one scratchpad knows; it takes sslmode, sslrootcert, {}",
                    CLIENT_PARAMS.join(", ")
                )));
            }
        }
    }
    let mut config = postgres::Config::from_str(&conninfo).map_err(|e| {
        // The client's errors name the option, never its value.
        let cause = std::error::Error::source(&e)
            .map(|s| format!(": {s}"))
            .unwrap_or_default();
        invalid_pg_url(&format!("{e}{cause}"))
    })?;
    if let (Some(password), false) = (password, password_param) {
        config.password(password);
    }
    if config.get_user().is_none() {
        return Err(invalid_pg_url(
            "it names no user; write postgres://USER:PASSWORD@HOST/DATABASE",
        ));
    }
    if config.get_hosts().is_empty() && config.get_hostaddrs().is_empty() {
        return Err(invalid_pg_url(
            "it names no host; write postgres://USER:PASSWORD@HOST/DATABASE (a Unix socket \
             directory as ?host=/var/run/postgresql)",
        ));
    }
    let mut tls = Tls::new(sslmode.as_deref(), sslrootcert.as_deref(), default_root)?;
    // Unix sockets never carry TLS, and libpq ignores sslmode for them.
    if config
        .get_hosts()
        .iter()
        .all(|host| matches!(host, Host::Unix(_)))
        && config.get_hostaddrs().is_empty()
    {
        tls = Tls::new(Some(SslMode::Disable.as_str()), None, None)?;
    }
    config.ssl_mode(client_mode(tls.mode));
    Ok(Settings {
        config,
        tls,
        keepalives_idle_given,
    })
}

/// What the client is asked for on the first attempt (`allow` tries without TLS first).
pub(super) fn client_mode(mode: SslMode) -> ClientSslMode {
    match mode {
        SslMode::Disable | SslMode::Allow => ClientSslMode::Disable,
        SslMode::Prefer => ClientSslMode::Prefer,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => ClientSslMode::Require,
    }
}

/// `host1:5432,[::1]:5433` → `host='host1,::1' port='5432,5433'`.
fn push_hosts(conninfo: &mut String, hosts: &str) -> Result<()> {
    if hosts.is_empty() {
        return Ok(());
    }
    let mut names = Vec::new();
    let mut ports = Vec::new();
    for (n, chunk) in hosts.split(',').enumerate() {
        let (name, port) = match chunk.strip_prefix('[') {
            Some(bracketed) => {
                let (name, after) = bracketed.split_once(']').ok_or_else(|| {
                    invalid_pg_url(&format!("host {} has a `[` without its `]`", n + 1))
                })?;
                match after {
                    "" => (name, None),
                    _ => (
                        name,
                        Some(after.strip_prefix(':').ok_or_else(|| {
                            invalid_pg_url(&format!(
                                "host {} has something other than `:PORT` after its `]`",
                                n + 1
                            ))
                        })?),
                    ),
                }
            }
            None => match chunk.split_once(':') {
                Some((name, port)) => (name, Some(port)),
                None => (chunk, None),
            },
        };
        let port = port.filter(|p| !p.is_empty());
        if let Some(port) = port
            && !(port.bytes().all(|b| b.is_ascii_digit()) && port.parse::<u16>().is_ok())
        {
            return Err(invalid_pg_url(&format!(
                "the port of host {} is not a number from 1 to 65535",
                n + 1
            )));
        }
        names.push(decode(name, "a host name")?);
        ports.push(port);
    }
    push(conninfo, "host", &names.join(","));
    if ports.iter().any(Option::is_some) {
        let ports: Vec<&str> = ports.iter().map(|p| p.unwrap_or("")).collect();
        push(conninfo, "port", &ports.join(","));
    }
    Ok(())
}

fn decode(text: &str, what: &str) -> Result<String> {
    percent_decode(text)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| {
            Error::Config(format!(
                "invalid PostgreSQL URL: {what} has a bad %-escape or is not UTF-8; write a `%` as \
                 %25"
            ))
        })
}

/// `key='value' `, quoted the way the client's parser reads it.
fn push(conninfo: &mut String, key: &str, value: &str) {
    conninfo.push_str(key);
    conninfo.push_str("='");
    for c in value.chars() {
        if matches!(c, '\'' | '\\') {
            conninfo.push('\\');
        }
        conninfo.push(c);
    }
    conninfo.push_str("' ");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(url: &str) -> postgres::Config {
        settings(url, None).unwrap().config
    }

    #[test]
    fn a_password_with_an_unencoded_at_is_the_password() {
        let config = read("postgres://agent:p@ss@db.example.com:6543/pad");
        assert_eq!(config.get_user(), Some("agent"));
        assert_eq!(config.get_password(), Some(&b"p@ss"[..]));
        assert_eq!(config.get_hosts(), [Host::Tcp("db.example.com".to_owned())]);
        assert_eq!(config.get_ports(), [6543]);
        assert_eq!(config.get_dbname(), Some("pad"));
    }

    #[test]
    fn quotes_backslashes_and_escapes_reach_the_client_unchanged() {
        let config = read(r"postgres://o'neil:a'b\c%2Fd%40@h/d%20b?application_name=it's%20me");
        assert_eq!(config.get_user(), Some("o'neil"));
        assert_eq!(config.get_password(), Some(&br"a'b\c/d@"[..]));
        assert_eq!(config.get_dbname(), Some("d b"));
        assert_eq!(config.get_application_name(), Some("it's me"));
    }

    #[test]
    fn hosts_ports_and_sockets() {
        let config = read("postgresql://u@h1:5433,[::1],h3:/db");
        assert_eq!(
            config.get_hosts(),
            [
                Host::Tcp("h1".into()),
                Host::Tcp("::1".into()),
                Host::Tcp("h3".into())
            ]
        );
        assert_eq!(config.get_ports(), [5433, 5432, 5432]);
        let socket = settings(
            "postgres://u@%2Fvar%2Frun%2Fpostgresql/db?sslmode=require",
            None,
        )
        .unwrap();
        assert!(matches!(socket.config.get_hosts(), [Host::Unix(_)]));
        assert_eq!(socket.tls.mode, SslMode::Disable);
        let query_host = read("postgres://u@/db?host=/tmp");
        assert!(matches!(query_host.get_hosts(), [Host::Unix(_)]));
    }

    #[test]
    fn a_query_password_wins_and_an_explicit_keepalive_is_noticed() {
        let parsed = settings(
            "postgres://u:url@h/db?password=query&keepalives_idle=5",
            None,
        )
        .unwrap();
        assert_eq!(parsed.config.get_password(), Some(&b"query"[..]));
        assert!(parsed.keepalives_idle_given);
    }

    #[test]
    fn bad_urls_say_what_is_wrong_and_show_nothing_of_the_password() {
        let cases = [
            ("postgres://u:topsecret@h:notaport/db", "the port of host 1"),
            (
                "postgres://u:topsecret@h/db?sslcert=/c.pem",
                "`sslcert` is not supported",
            ),
            (
                "postgres://u:topsecret@h/db?colour=red",
                "parameter `colour` is not one",
            ),
            (
                "postgres://u:top%secret@h/db",
                "write a `%` in a password as %25",
            ),
            (
                "postgres://u:topsecret@h/db?connect_timeout=soon",
                "connect_timeout",
            ),
            ("postgres://:topsecret@h/db", "names no user"),
            ("postgres://u:topsecret@/db", "names no host"),
            (
                "postgres://u:topsecret@h/db?sslmode=strict",
                "sslmode is not one of",
            ),
            ("postgres://u:top?secret=1@h/db", "%3F"),
        ];
        for (url, expected) in cases {
            let err = settings(url, None).unwrap_err().to_string();
            assert!(err.contains(expected), "{url}: {err}");
            assert!(!err.contains("secret"), "{url}: {err}");
        }
    }
}
