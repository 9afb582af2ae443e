//! A small pool of synchronous PostgreSQL connections that reconnects after a lost connection or a
//! server restart, and says why a connection failed in terms of what to change.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use postgres::Client;
use postgres::config::SslMode as ClientSslMode;
use postgres::error::SqlState;

use super::conninfo::Settings;
use super::tls::{Roots, SslMode, Tls, TlsFailure};
use crate::error::Error;

/// Connections one process opens at most; more callers wait for one to come back.
const MAX_OPEN: usize = 16;
/// How long a caller waits for a busy pool before giving up.
const POOL_WAIT: Duration = Duration::from_secs(30);
/// After the store has worked once, how long reconnecting keeps trying while the server restarts.
pub(super) const RECONNECT_WINDOW: Duration = Duration::from_secs(20);
/// A connection attempt that hangs (a dropped route, a firewall) fails after this long.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// TCP keepalive probes start after this much silence, so a dead server is noticed in minutes, not hours.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(60);

/// The server went away: the connection closed, a socket error, or the server is shutting down or
/// starting up. Work that had not committed was rolled back by the server.
pub(super) fn is_connection_lost(err: &postgres::Error) -> bool {
    if err.is_closed() {
        return true;
    }
    if let Some(code) = err.code() {
        return code.code().starts_with("08")
            || *code == SqlState::ADMIN_SHUTDOWN
            || *code == SqlState::CRASH_SHUTDOWN
            || *code == SqlState::CANNOT_CONNECT_NOW;
    }
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        if cause.is::<std::io::Error>() {
            return true;
        }
        source = cause.source();
    }
    // Timeouts and protocol breakage leave the connection unusable too.
    let text = err.to_string();
    text.starts_with("error communicating") || text.starts_with("timeout")
}

/// Two transactions got in each other's way; running ours again is safe.
pub(super) fn is_transient_conflict(err: &postgres::Error) -> bool {
    err.code().is_some_and(|code| {
        *code == SqlState::T_R_SERIALIZATION_FAILURE || *code == SqlState::T_R_DEADLOCK_DETECTED
    })
}

/// The store's address for messages: user, host, port and database, never the password.
pub(super) fn describe_target(config: &postgres::Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|h| match h {
            postgres::config::Host::Tcp(name) => name.clone(),
            postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".into());
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("");
    let db = config.get_dbname().unwrap_or(user);
    if user.is_empty() {
        format!("{host}:{port}/{db}")
    } else {
        format!("{user}@{host}:{port}/{db}")
    }
}

/// Connections to one database.
pub(super) struct Pool {
    config: postgres::Config,
    tls: Tls,
    target: String,
    state: Mutex<State>,
    returned: Condvar,
    /// Set once a connection succeeded: from then on a refused connection is a restart to wait out.
    ever_connected: AtomicBool,
}

struct State {
    idle: Vec<Client>,
    open: usize,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl Pool {
    pub(super) fn new(settings: Settings) -> Self {
        let Settings {
            mut config,
            tls,
            keepalives_idle_given,
        } = settings;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if !keepalives_idle_given {
            config.keepalives_idle(KEEPALIVE_IDLE);
        }
        if config.get_application_name().is_none() {
            config.application_name("scratchpad");
        }
        Self {
            target: describe_target(&config),
            config,
            tls,
            state: Mutex::new(State {
                idle: Vec::new(),
                open: 0,
            }),
            returned: Condvar::new(),
            ever_connected: AtomicBool::new(false),
        }
    }

    pub(super) fn target(&self) -> &str {
        &self.target
    }

    /// The database error as one line: what failed and the server's words. Neither the client nor
    /// the server ever puts the password in one, and nothing here adds it.
    pub(super) fn describe(&self, err: &postgres::Error) -> String {
        let mut text = match err.as_db_error() {
            Some(db) => {
                let mut text = format!("{} ({})", db.message(), db.code().code());
                if let Some(detail) = db.detail() {
                    text.push_str(&format!(": {detail}"));
                }
                text
            }
            None => err.to_string(),
        };
        if err.as_db_error().is_none() {
            let mut source = std::error::Error::source(err);
            while let Some(cause) = source {
                text.push_str(&format!(": {cause}"));
                source = cause.source();
            }
        }
        text
    }

    /// A connection: an idle one, a new one, or (at the limit) the next one returned.
    pub(super) fn get(&self) -> Result<Conn<'_>, Error> {
        let waited_from = Instant::now();
        let mut state = self
            .state
            .lock()
            .map_err(|_| Error::Storage("the connection pool is poisoned".into()))?;
        loop {
            if let Some(client) = state.idle.pop() {
                if client.is_closed() {
                    state.open = state.open.saturating_sub(1);
                    continue;
                }
                return Ok(Conn {
                    pool: self,
                    client: Some(client),
                    broken: false,
                });
            }
            if state.open < MAX_OPEN {
                state.open += 1;
                drop(state);
                return match self.connect() {
                    Ok(client) => Ok(Conn {
                        pool: self,
                        client: Some(client),
                        broken: false,
                    }),
                    Err(err) => {
                        self.forget_one();
                        Err(err)
                    }
                };
            }
            let left = POOL_WAIT.saturating_sub(waited_from.elapsed());
            if left.is_zero() {
                return Err(Error::Storage(format!(
                    "all {MAX_OPEN} connections to PostgreSQL at {} stayed busy for {} s; try again",
                    self.target,
                    POOL_WAIT.as_secs()
                )));
            }
            state = self
                .returned
                .wait_timeout(state, left)
                .map_err(|_| Error::Storage("the connection pool is poisoned".into()))?
                .0;
        }
    }

    /// Drops idle connections: after one was lost, the others most likely were too.
    pub(super) fn drain_idle(&self) {
        if let Ok(mut state) = self.state.lock() {
            let dropped = state.idle.len();
            state.idle.clear();
            state.open = state.open.saturating_sub(dropped);
        }
        self.returned.notify_all();
    }

    /// In a child process made by fork(2): forgets the idle connections without closing them,
    /// since closing says goodbye to the server on a socket the parent still talks on. Their
    /// sockets stay open here until the process ends. A pool locked by a thread that does not exist
    /// here (a fork no call waited for) is left alone rather than waited on for ever.
    pub(super) fn forget_inherited(&self) {
        if let Ok(mut state) = self.state.try_lock() {
            let inherited = std::mem::take(&mut state.idle);
            state.open = state.open.saturating_sub(inherited.len());
            for client in inherited {
                std::mem::forget(client);
            }
        }
    }

    fn forget_one(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.open = state.open.saturating_sub(1);
        }
        self.returned.notify_one();
    }

    /// A connection of its own, outside the pool, for a caller that keeps it for a while (a large
    /// write, whose session marks its staging as alive).
    pub(super) fn dedicated(&self) -> Result<Client, Error> {
        self.connect()
    }

    /// Opens a connection. Once the store has worked, a refused connection or a server that is
    /// starting up is retried for a while: that is what a restart looks like from here.
    fn connect(&self) -> Result<Client, Error> {
        let patient = self.ever_connected.load(Ordering::Relaxed);
        let started = Instant::now();
        let mut pause = Duration::from_millis(50);
        loop {
            match self.connect_once() {
                Ok(client) => {
                    self.ever_connected.store(true, Ordering::Relaxed);
                    return Ok(client);
                }
                Err(failed) => {
                    let err = &failed.last;
                    // A certificate or a refusal of TLS does not change while a server restarts.
                    let tls_refusal = tls_failure(err)
                        .is_some_and(|f| !matches!(f, TlsFailure::Io(_)))
                        || tls_unsupported(err);
                    let transient =
                        (err.as_db_error().is_none() || is_connection_lost(err)) && !tls_refusal;
                    if patient && transient && started.elapsed() < RECONNECT_WINDOW {
                        std::thread::sleep(pause);
                        pause = (pause * 2).min(Duration::from_secs(1));
                        continue;
                    }
                    let waited = if patient {
                        format!(" (tried for {} s)", started.elapsed().as_secs())
                    } else {
                        String::new()
                    };
                    return Err(Error::Storage(format!(
                        "cannot connect to PostgreSQL at {}{waited}: {}",
                        self.target,
                        self.explain(&failed)
                    )));
                }
            }
        }
    }

    /// One connection as the mode says. As in libpq, `allow` tries TLS when the server refuses a
    /// connection without it, and `prefer` goes without TLS when the handshake fails.
    fn connect_once(&self) -> Result<Client, Failed> {
        let first = self.config.connect(self.tls.connector());
        let retry = |mode: ClientSslMode, earlier: postgres::Error| {
            let mut config = self.config.clone();
            config.ssl_mode(mode);
            config.connect(self.tls.connector()).map_err(|last| Failed {
                last,
                earlier: Some(earlier),
            })
        };
        match (self.tls.mode, first) {
            (_, Ok(client)) => Ok(client),
            (SslMode::Allow, Err(plain)) if plain.as_db_error().is_some() => {
                retry(ClientSslMode::Require, plain)
            }
            (SslMode::Prefer, Err(tls)) if tls_failure(&tls).is_some() => {
                retry(ClientSslMode::Disable, tls)
            }
            (
                SslMode::Disable
                | SslMode::Allow
                | SslMode::Prefer
                | SslMode::Require
                | SslMode::VerifyCa
                | SslMode::VerifyFull,
                Err(last),
            ) => Err(Failed {
                last,
                earlier: None,
            }),
        }
    }

    /// Why the connection failed and what to change, both attempts told when there were two.
    fn explain(&self, failed: &Failed) -> String {
        let (what, hint) = self.diagnose(&failed.last);
        let Some(earlier) = &failed.earlier else {
            return format!("{what}; {hint}");
        };
        let (first, first_hint) = self.diagnose(earlier);
        match self.tls.mode {
            SslMode::Allow => format!(
                "without TLS, {first}; then with TLS (sslmode=allow tries that next), {what}; {hint}"
            ),
            // The TLS failure came first; when the server also wants TLS, it is the one to fix.
            _ if requires_encryption(&failed.last) => format!(
                "{first}; then without TLS (sslmode=prefer tries that next), {what}; {first_hint}"
            ),
            _ => format!(
                "{first}; then without TLS (sslmode=prefer tries that next), {what}; {first_hint}; \
                 {hint}"
            ),
        }
    }

    /// What failed, and what to do about it.
    fn diagnose(&self, err: &postgres::Error) -> (String, String) {
        if let Some(failure) = tls_failure(err) {
            return self.diagnose_tls(failure);
        }
        if tls_unsupported(err) {
            return (
                "the server does not support TLS (it answered the request for TLS with no)".into(),
                format!(
                    "sslmode={} needs TLS: turn on ssl in the server's configuration, or, only on a \
                     network you trust, connect with sslmode=prefer",
                    self.tls.mode.as_str()
                ),
            );
        }
        let what = self.describe(err);
        if let Some(db) = err.as_db_error() {
            let code = db.code();
            let hint = if *code == SqlState::INVALID_PASSWORD {
                "check the user and the password in the store URL".to_owned()
            } else if *code == SqlState::INVALID_CATALOG_NAME {
                "create that database first, or fix its name in the store URL".to_owned()
            } else if requires_encryption(err) {
                "this server takes only TLS connections from here: remove sslmode=disable (the \
                 default, prefer, uses TLS when the server offers it), or better, use \
                 sslmode=verify-full with sslrootcert"
                    .to_owned()
            } else if *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION {
                "the server's pg_hba.conf lets no such connection in from this host; ask its \
                 administrator"
                    .to_owned()
            } else if *code == SqlState::TOO_MANY_CONNECTIONS {
                "the server has no connection to spare; try again later".to_owned()
            } else {
                GENERIC_HINT.to_owned()
            };
            return (what, hint);
        }
        let io_kind = io_error_kind(err);
        let hint = match io_kind {
            Some(std::io::ErrorKind::ConnectionRefused) => {
                "nothing accepts connections there: check that the server is running and that the \
                 store URL's host and port are right"
            }
            Some(std::io::ErrorKind::TimedOut) => {
                "no answer in time: check the store URL's host and port, and any firewall between"
            }
            _ => GENERIC_HINT,
        };
        (what, hint.to_owned())
    }

    fn diagnose_tls(&self, failure: &TlsFailure) -> (String, String) {
        match failure {
            TlsFailure::Untrusted => (
                format!(
                    "TLS failed: certificate not trusted: the server's certificate is not signed by {}",
                    self.tls.roots.signer()
                ),
                match self.tls.roots {
                    Roots::System => "give the CA that signed the server's certificate with \
                                      sslrootcert=/path/to/ca.pem"
                        .to_owned(),
                    Roots::File(_) | Roots::Unchecked => {
                        "give the CA that signed the server's certificate in sslrootcert (a managed \
                         server's provider publishes its CA bundle)"
                            .to_owned()
                    }
                },
            ),
            TlsFailure::NameMismatch { .. } => (
                format!("TLS failed: host name mismatch: {failure} (sslmode=verify-full checks it)"),
                "connect with a host name the certificate holds, or use sslmode=verify-ca to check \
                 the CA only"
                    .to_owned(),
            ),
            TlsFailure::Expired { .. } | TlsFailure::NotYetValid => (
                format!("TLS failed: {failure}"),
                "renew the server's certificate (or check this machine's clock)".to_owned(),
            ),
            TlsFailure::NoHostName => (
                format!("TLS failed: {failure}"),
                "connect by the server's DNS name or IP address".to_owned(),
            ),
            TlsFailure::Handshake(_) => (
                format!("TLS failed: {failure}"),
                "check that the port is the PostgreSQL server's and that it accepts TLS 1.2 or 1.3"
                    .to_owned(),
            ),
            TlsFailure::Io(_) => (
                format!("the connection broke during the TLS handshake: {failure}"),
                GENERIC_HINT.to_owned(),
            ),
        }
    }
}

/// The hint when nothing more specific is known.
const GENERIC_HINT: &str = "check that the server is running and that the store URL's host, port, user and database are right";

/// A connection that could not be made: the last attempt's error, and the first's when the mode
/// made two.
struct Failed {
    last: postgres::Error,
    earlier: Option<postgres::Error>,
}

/// The TLS handshake's failure, when that is what went wrong.
fn tls_failure(err: &postgres::Error) -> Option<&TlsFailure> {
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        if let Some(failure) = cause.downcast_ref::<TlsFailure>() {
            return Some(failure);
        }
        source = cause.source();
    }
    None
}

/// The server answered the request for TLS with no (the client's own words for it).
fn tls_unsupported(err: &postgres::Error) -> bool {
    std::error::Error::source(err)
        .is_some_and(|cause| cause.to_string() == "server does not support TLS")
}

/// The server refused a connection without TLS: pg_hba.conf has `hostssl` lines only.
fn requires_encryption(err: &postgres::Error) -> bool {
    err.as_db_error().is_some_and(|db| {
        *db.code() == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
            && db.message().contains("no encryption")
    })
}

fn io_error_kind(err: &postgres::Error) -> Option<std::io::ErrorKind> {
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        source = cause.source();
    }
    None
}

/// A connection on loan from the pool; it goes back when dropped unless it broke.
pub(super) struct Conn<'a> {
    pool: &'a Pool,
    client: Option<Client>,
    broken: bool,
}

impl Conn<'_> {
    /// This connection is unusable: close it instead of returning it.
    pub(super) fn mark_broken(&mut self) {
        self.broken = true;
    }
}

impl Deref for Conn<'_> {
    type Target = Client;

    #[expect(clippy::expect_used, reason = "the client is only taken out in drop")]
    fn deref(&self) -> &Client {
        self.client
            .as_ref()
            .expect("a pooled connection is present until dropped")
    }
}

impl DerefMut for Conn<'_> {
    #[expect(clippy::expect_used, reason = "the client is only taken out in drop")]
    fn deref_mut(&mut self) -> &mut Client {
        self.client
            .as_mut()
            .expect("a pooled connection is present until dropped")
    }
}

impl Drop for Conn<'_> {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else {
            return;
        };
        if self.broken || client.is_closed() {
            drop(client);
            self.pool.forget_one();
            return;
        }
        if let Ok(mut state) = self.pool.state.lock() {
            state.idle.push(client);
        }
        self.pool.returned.notify_one();
    }
}
