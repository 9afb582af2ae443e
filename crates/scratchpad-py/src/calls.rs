//! How every call runs the engine: with the GIL released, counted in for forks
//! ([`fork::Inside`]), and cancelled when a signal handler raises (Ctrl-C's `KeyboardInterrupt`).
//!
//! Python runs signal handlers on its main thread, between bytecodes; a thread inside a long call
//! runs none, so Ctrl-C would wait for the call to end. The engine asks the call's [`Interrupt`]
//! between pieces of work; on the main thread it takes the GIL back now and then to run the
//! handlers, and an exception they raise stops the work (a put leaves nothing behind) and is what
//! the call raises.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use scratchpad_core as core;
use scratchpad_core::read::Cancel;

use crate::errors::OrRaise;
use crate::fork::{Inside, is_main_thread};

/// How often a call on the main thread takes the GIL back to run signal handlers. Taking it waits
/// for whichever thread holds it (up to the interpreter's switch interval, 5 ms), so not often; a
/// call shorter than this never does.
const ASK_INTERVAL: Duration = Duration::from_millis(100);

/// Runs engine work with the GIL released; `work` passes the [`Cancel`] it is given to whatever
/// it starts that may run long. An exception raised by a signal handler meanwhile is raised
/// instead of the work's outcome.
pub fn run<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    F: FnOnce(&dyn Cancel) -> core::Result<T> + Send,
    T: Send,
{
    let interrupt = Interrupt::new(is_main_thread(py));
    let outcome = py.detach(|| {
        let _inside = Inside::enter();
        work(&interrupt)
    });
    if let Some(raised) = interrupt.raised.into_inner() {
        return Err(raised);
    }
    outcome.or_raise(py)
}

/// One call's answer to "was it cancelled?": on the main thread, whether a signal handler raised.
struct Interrupt {
    /// The thread that made the call, and the only one that runs handlers: the engine also asks
    /// from threads that help it.
    caller: Option<ThreadId>,
    started: Instant,
    /// When to take the GIL next, in nanoseconds after `started`.
    next_ask: AtomicU64,
    raised: OnceLock<PyErr>,
}

impl Interrupt {
    fn new(main_thread: bool) -> Self {
        Self {
            caller: main_thread.then(|| std::thread::current().id()),
            started: Instant::now(),
            next_ask: AtomicU64::new(nanos(ASK_INTERVAL)),
            raised: OnceLock::new(),
        }
    }
}

impl Cancel for Interrupt {
    fn is_cancelled(&self) -> bool {
        if self.raised.get().is_some() {
            return true;
        }
        if self.caller != Some(std::thread::current().id()) {
            return false;
        }
        let now = nanos(self.started.elapsed());
        if now < self.next_ask.load(Ordering::Relaxed) {
            return false;
        }
        self.next_ask
            .store(now.saturating_add(nanos(ASK_INTERVAL)), Ordering::Relaxed);
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(raised) => {
                let _ = self.raised.set(raised);
                true
            }
        }
    }
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}
