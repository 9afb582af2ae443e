//! What the scratchpad's local HTTP servers (the MCP server's streamable HTTP and the web view)
//! share: which `Host` and `Origin` values a request may carry.
//!
//! A server on loopback is still reachable from any web page the user opens: the page's script can
//! send requests to `127.0.0.1`, and a DNS name that the attacker re-points at `127.0.0.1` (DNS
//! rebinding) makes them look same-origin to the browser. Two headers give such requests away: the
//! `Host` is the attacker's name, not one this server answers to, and the `Origin` is the attacker's
//! page, not this server. [`HostCheck`] holds the values a server accepts and checks both.
//!
//! ```
//! use scratchpad_http::{HostCheck, Refusal};
//!
//! let check = HostCheck::new("127.0.0.1:8931".parse().unwrap(), &[], &[]);
//! assert!(check.check_host(Some("127.0.0.1:8931")).is_ok());
//! assert!(check.check_host(Some("localhost:8931")).is_ok());
//! assert!(matches!(check.check_host(Some("evil.example:8931")), Err(Refusal::Host(_))));
//! // Clients that are not browsers send no Origin; a browser on this server's own page sends its origin.
//! assert!(check.check_origin(None).is_ok());
//! assert!(check.check_origin(Some("http://127.0.0.1:8931")).is_ok());
//! // A page on another local port is not this server's page.
//! assert!(check.check_origin(Some("http://127.0.0.1:3000")).is_err());
//! ```

use std::fmt;
use std::net::SocketAddr;

/// The loopback names every server answers to, whatever it is bound to.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];
/// The same names as a URL spells them (an IPv6 address in brackets).
const LOOPBACK_URL_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The `Host` and `Origin` values a server bound to one address accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostCheck {
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl HostCheck {
    /// Hosts: the loopback names and the bound address (unless it is the unspecified `0.0.0.0` or
    /// `::`, which no client addresses), then `extra_hosts` (`name` for any port, `name:port` for
    /// one). Origins: this server's own on the loopback names and `bound`'s port, then
    /// `extra_origins` (`https://app.example.com:443`; `:*` for any port). `bound` is the address
    /// actually bound, so a server asked for port 0 passes the port it got.
    pub fn new(bound: SocketAddr, extra_hosts: &[String], extra_origins: &[String]) -> Self {
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.into_iter().map(str::to_owned).collect();
        if !bound.ip().is_unspecified() {
            hosts.push(bound.ip().to_string());
        }
        hosts.extend(extra_hosts.iter().cloned());
        let port = bound.port();
        let mut origins: Vec<String> = LOOPBACK_URL_HOSTS
            .into_iter()
            .map(|host| format!("http://{host}:{port}"))
            .collect();
        origins.extend(extra_origins.iter().cloned());
        Self { hosts, origins }
    }

    /// The accepted `Host` values, as given.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// The accepted `Origin` values, as given.
    pub fn origins(&self) -> &[String] {
        &self.origins
    }

    /// Checks a request's `Host` (or, without one, the authority of its URI).
    pub fn check_host(&self, host: Option<&str>) -> Result<(), Refusal> {
        let Some(host) = host else {
            return Err(Refusal::BadHost(
                "the request has no Host header; send one".to_owned(),
            ));
        };
        let Some(presented) = Authority::parse(host) else {
            return Err(Refusal::BadHost(format!(
                "the Host header `{}` is not a host name with an optional port",
                shown(host)
            )));
        };
        let allowed = self
            .hosts
            .iter()
            .filter_map(|allowed| Authority::parse(allowed))
            .any(|allowed| {
                allowed.host == presented.host
                    && allowed.port.is_none_or(|port| presented.port == Some(port))
            });
        if allowed {
            Ok(())
        } else {
            Err(Refusal::Host(shown(host)))
        }
    }

    /// Checks a request's `Origin`. No `Origin` passes: only browsers send one, and a browser always
    /// does on the requests a page's script makes to another origin.
    pub fn check_origin(&self, origin: Option<&str>) -> Result<(), Refusal> {
        let Some(origin) = origin else {
            return Ok(());
        };
        let Some(presented) = Origin::parse(origin) else {
            return Err(Refusal::Origin(shown(origin)));
        };
        let allowed = self
            .origins
            .iter()
            .filter_map(|allowed| AllowedOrigin::parse(allowed))
            .any(|allowed| allowed.admits(&presented));
        if allowed {
            Ok(())
        } else {
            Err(Refusal::Origin(shown(origin)))
        }
    }

    /// Checks both headers of a request.
    pub fn check(&self, uri: &http::Uri, headers: &http::HeaderMap) -> Result<(), Refusal> {
        let host = match headers.get(http::header::HOST) {
            Some(value) => Some(value.to_str().map_err(|_| {
                Refusal::BadHost("the Host header is not readable text".to_owned())
            })?),
            // HTTP/2 carries the host in the URI's authority.
            None => uri.authority().map(http::uri::Authority::as_str),
        };
        self.check_host(host)?;
        let origin = match headers.get(http::header::ORIGIN) {
            Some(value) => Some(value.to_str().map_err(|_| {
                Refusal::Origin("(an Origin header that is not readable text)".to_owned())
            })?),
            None => None,
        };
        self.check_origin(origin)
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The `Host` header is missing or malformed.
    BadHost(String),
    /// The `Host` is not one this server answers to.
    Host(String),
    /// The `Origin` is not this server's own nor one allowed.
    Origin(String),
}

impl Refusal {
    /// The status to answer with: 400 for a malformed request, 403 for a refused one.
    pub fn status(&self) -> http::StatusCode {
        match self {
            Self::BadHost(_) => http::StatusCode::BAD_REQUEST,
            Self::Host(_) | Self::Origin(_) => http::StatusCode::FORBIDDEN,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadHost(why) => f.write_str(why),
            Self::Host(host) => write!(
                f,
                "the Host `{host}` is not one this server answers to (a guard against DNS rebinding); \
                 reach it by a loopback name or its address, or start it with --allowed-host {host}"
            ),
            Self::Origin(origin) => write!(
                f,
                "requests from the page at `{origin}` are refused: only this server's own pages may \
                 call it from a browser; start it with --allowed-origin {origin} to allow that page"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// A header value as a message may quote it: short, without control characters.
fn shown(value: &str) -> String {
    const MAX_CHARS: usize = 100;
    let clean: String = value
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_CHARS)
        .collect();
    if value.chars().count() > MAX_CHARS {
        format!("{clean}…")
    } else {
        clean
    }
}

/// A host name or address (lowercase, an IPv6 address without brackets) and an optional port.
#[derive(Debug, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

impl Authority {
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        if let Ok(authority) = http::uri::Authority::try_from(text) {
            // No user information: a Host is a host and a port.
            if authority.as_str().contains('@') {
                return None;
            }
            return Some(Self {
                host: normalize_host(authority.host()),
                port: authority.port_u16(),
            });
        }
        // A bare IPv6 address (`::1`), as an allowed host may be written.
        text.parse::<std::net::Ipv6Addr>().ok().map(|ip| Self {
            host: ip.to_string(),
            port: None,
        })
    }
}

fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// A serialized origin: `null`, or a scheme, a host and the port the URL gave (if any).
#[derive(Debug, PartialEq, Eq)]
enum Origin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

impl Origin {
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("null") {
            return Some(Self::Null);
        }
        let uri = http::Uri::try_from(text).ok()?;
        let authority = uri.authority()?;
        if authority.as_str().contains('@') {
            return None;
        }
        Some(Self::Tuple {
            scheme: uri.scheme_str()?.to_ascii_lowercase(),
            host: normalize_host(authority.host()),
            port: authority.port_u16(),
        })
    }
}

/// The port a scheme implies when an origin leaves it out (RFC 6454 §4).
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// An accepted origin: `null`, or a scheme and host with a port, any port (`:*`), or no port given
/// (any port, as the MCP SDK reads it).
#[derive(Debug, PartialEq, Eq)]
enum AllowedOrigin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

impl AllowedOrigin {
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if let Some(base) = text.strip_suffix(":*") {
            return match Origin::parse(base)? {
                Origin::Tuple {
                    scheme,
                    host,
                    port: None,
                } => Some(Self::Tuple {
                    scheme,
                    host,
                    port: None,
                }),
                Origin::Tuple { .. } | Origin::Null => None,
            };
        }
        Some(match Origin::parse(text)? {
            Origin::Null => Self::Null,
            Origin::Tuple { scheme, host, port } => Self::Tuple { scheme, host, port },
        })
    }

    fn admits(&self, origin: &Origin) -> bool {
        match (self, origin) {
            (Self::Null, Origin::Null) => true,
            (
                Self::Tuple { scheme, host, port },
                Origin::Tuple {
                    scheme: o_scheme,
                    host: o_host,
                    port: o_port,
                },
            ) => {
                scheme == o_scheme
                    && host == o_host
                    && port
                        .is_none_or(|port| o_port.or_else(|| default_port(o_scheme)) == Some(port))
            }
            (Self::Null, Origin::Tuple { .. }) | (Self::Tuple { .. }, Origin::Null) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check() -> HostCheck {
        HostCheck::new(
            "127.0.0.1:8931".parse().unwrap(),
            &["pad.internal:8931".to_owned(), "::1".to_owned()],
            &[
                "https://app.example.com:443".to_owned(),
                "http://dev.example:*".to_owned(),
            ],
        )
    }

    #[test]
    fn loopback_names_and_the_bound_address_are_hosts() {
        let check = check();
        for host in [
            "127.0.0.1:8931",
            "localhost:8931",
            "LOCALHOST",
            "[::1]:8931",
            "pad.internal:8931",
        ] {
            assert!(check.check_host(Some(host)).is_ok(), "{host}");
        }
        for host in [
            "evil.example",
            "pad.internal:9999",
            "127.0.0.2:8931",
            "user@localhost:8931",
        ] {
            assert!(check.check_host(Some(host)).is_err(), "{host}");
        }
        assert_eq!(
            check.check_host(None).unwrap_err().status(),
            http::StatusCode::BAD_REQUEST
        );
        let public = HostCheck::new("10.0.0.5:80".parse().unwrap(), &[], &[]);
        assert!(public.check_host(Some("10.0.0.5")).is_ok());
        let any = HostCheck::new("0.0.0.0:80".parse().unwrap(), &[], &[]);
        assert!(any.check_host(Some("0.0.0.0")).is_err());
    }

    #[test]
    fn only_the_servers_own_origin_and_those_allowed_pass() {
        let check = check();
        for origin in [
            "http://127.0.0.1:8931",
            "http://localhost:8931",
            "http://[::1]:8931",
            "https://app.example.com",
            "https://app.example.com:443",
            "http://dev.example:5173",
        ] {
            assert!(check.check_origin(Some(origin)).is_ok(), "{origin}");
        }
        for origin in [
            "http://127.0.0.1:3000",
            "https://127.0.0.1:8931",
            "http://evil.example",
            "https://app.example.com:8443",
            "null",
            "not a url",
        ] {
            let refused = check.check_origin(Some(origin)).unwrap_err();
            assert_eq!(refused.status(), http::StatusCode::FORBIDDEN, "{origin}");
        }
        assert!(check.check_origin(None).is_ok());
    }

    #[test]
    fn messages_quote_header_values_without_control_characters() {
        let refused = check().check_host(Some("evil\u{7}.example")).unwrap_err();
        assert!(!refused.to_string().contains('\u{7}'));
    }
}
