//! Engine calls off the async executor: each runs on the blocking pool under a semaphore, with a
//! deadline and a flag that stops it when the request that asked for it is gone. Engine errors
//! become HTTP answers in one place.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use http::StatusCode;
use scratchpad_core::{ConflictKind, Error, Scratchpad};
use scratchpad_core::{READ_TIMEOUT, Stop};
use tokio::sync::Semaphore;

use crate::failure::Failure;
use crate::speak::Web;

/// The most characters one read made here may return. A person's screen takes more than a
/// model's reply budget; this bounds what one request costs the server and the page.
pub const MAX_READ_BUDGET_CHARS: usize = 1_000_000;

/// Engine calls that run at once, at least; more cores allow more.
const MIN_CONCURRENT_CALLS: usize = 4;

/// The scratchpad as the view uses it: reads leave no trace, changes carry the view's author.
#[derive(Debug)]
pub(crate) struct Engine {
    reader: Scratchpad,
    writer: Scratchpad,
    permits: Arc<Semaphore>,
}

thread_local! {
    /// The session an engine call on this thread switched to (see [`Engine::session_named`]), so
    /// that its errors point at that session's pages rather than the store-wide scratchpad's.
    static CALL_SESSION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Sets its flag when dropped: a request whose future is dropped (the browser went away) stops the
/// engine call it started.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Engine {
    pub fn new(reader: Scratchpad, writer: Scratchpad) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        Self {
            reader,
            writer,
            permits: Arc::new(Semaphore::new((2 * cores).max(MIN_CONCURRENT_CALLS))),
        }
    }

    /// The scratchpad of `session`, remembered for the call running on this thread so that its
    /// errors name that session's pages.
    pub fn session_named(pad: &Scratchpad, session: &str) -> scratchpad_core::Result<Scratchpad> {
        let switched = pad.with_session(session)?;
        CALL_SESSION.with(|cell| *cell.borrow_mut() = Some(switched.session().to_owned()));
        Ok(switched)
    }

    /// The store-wide scratchpad reads go through (an observer's).
    pub fn reader(&self) -> &Scratchpad {
        &self.reader
    }

    /// Runs a read: `f` gets the store-wide scratchpad and when to stop.
    pub async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Scratchpad, Stop<'_>) -> scratchpad_core::Result<T> + Send + 'static,
    ) -> Result<T, Failure> {
        self.run(self.reader.clone(), f).await
    }

    /// Runs a change, recorded as made by the view's author.
    pub async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Scratchpad) -> scratchpad_core::Result<T> + Send + 'static,
    ) -> Result<T, Failure> {
        self.run(self.writer.clone(), move |pad, _| f(pad)).await
    }

    async fn run<T: Send + 'static>(
        &self,
        pad: Scratchpad,
        f: impl FnOnce(&Scratchpad, Stop<'_>) -> scratchpad_core::Result<T> + Send + 'static,
    ) -> Result<T, Failure> {
        let _permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|_| Failure::internal("the server is shutting down"))?;
        let cancelled = Arc::new(AtomicBool::new(false));
        let _cancel = CancelOnDrop(Arc::clone(&cancelled));
        let joined = tokio::task::spawn_blocking(move || {
            let stop = Stop::after(READ_TIMEOUT).or_when(&*cancelled);
            CALL_SESSION.with(|cell| cell.borrow_mut().take());
            let result = f(&pad, stop);
            let session = CALL_SESSION
                .with(|cell| cell.borrow_mut().take())
                .unwrap_or_else(|| pad.session().to_owned());
            result.map_err(|err| Failure::from_engine(&err, &session))
        })
        .await;
        match joined {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(failure)) => Err(failure),
            Err(_) => Err(Failure::internal(
                "the engine call failed unexpectedly; the server goes on",
            )),
        }
    }
}

impl Failure {
    /// An engine error, with the calls it suggests spelled as this view's addresses.
    pub fn from_engine(err: &Error, session: &str) -> Self {
        let status = match err {
            Error::NotFound { .. } => StatusCode::NOT_FOUND,
            Error::Conflict(_) | Error::Raced(_) => StatusCode::CONFLICT,
            Error::InvalidName { .. } | Error::InvalidArgument(_) => StatusCode::BAD_REQUEST,
            Error::TooLarge(_) | Error::WrongKind(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Error::Stopped(_) => StatusCode::SERVICE_UNAVAILABLE,
            Error::DiskFull(_) => StatusCode::INSUFFICIENT_STORAGE,
            Error::Config(_) | Error::Storage(_) | Error::Corrupt(_) | Error::Io(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            // The engine may learn new errors; they are the server's to explain.
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let current_version = match err {
            Error::Conflict(ConflictKind::Version { current, .. }) => *current,
            Error::Conflict(ConflictKind::Exists { version, .. }) => Some(*version),
            _ => None,
        };
        Self {
            status,
            message: err.render(&Web::new(session)),
            current_version,
        }
    }
}
