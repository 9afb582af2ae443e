//! A small pool of synchronous PostgreSQL connections that reconnects after a lost connection or a
//! server restart, and never lets the password reach a message.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use postgres::error::SqlState;
use postgres::{Client, NoTls};

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
    target: String,
    /// Scrubbed from every message, in case a server or library ever echoes it.
    password: Option<String>,
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
    pub(super) fn new(mut config: postgres::Config, url: &str) -> Self {
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if !url.contains("keepalives_idle") {
            config.keepalives_idle(KEEPALIVE_IDLE);
        }
        if config.get_application_name().is_none() {
            config.application_name("scratchpad");
        }
        let password = config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .filter(|p| !p.is_empty());
        Self {
            target: describe_target(&config),
            config,
            password,
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

    /// `text` with the password replaced, should anything have echoed it.
    pub(super) fn scrub(&self, text: String) -> String {
        match &self.password {
            Some(p) if text.contains(p.as_str()) => text.replace(p.as_str(), "***"),
            _ => text,
        }
    }

    /// The database error as one line: what failed and the server's words.
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
        self.scrub(text)
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
            match self.config.connect(NoTls) {
                Ok(client) => {
                    self.ever_connected.store(true, Ordering::Relaxed);
                    return Ok(client);
                }
                Err(err) => {
                    let transient = err.as_db_error().is_none() || is_connection_lost(&err);
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
                        "cannot connect to PostgreSQL at {}{waited}: {}; check that the server is running \
                         and that the store URL's host, port, user, password and database are right",
                        self.target,
                        self.describe(&err)
                    )));
                }
            }
        }
    }
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
