//! `os.fork()` with calls in progress. A child process has only the thread that forked: whatever
//! another thread held at that moment (a pooled connection in the middle of a transaction, SQLite's
//! locks as this process accounts them, a mutex) stays held in the child for ever, and the child
//! hangs in SQLite's busy handler or on the mutex. So a fork waits until no call is inside the
//! engine (new calls wait for the fork), and the child lets go of the connections it inherited:
//! a `Scratchpad` made before the fork goes on working in the child with connections of its own,
//! and one opened in the child starts clean.
//!
//! Nothing here may take a lock that another thread could hold at the moment of the fork: the gate
//! is one atomic, and the list of handles is locked only while the GIL is held, which the forking
//! thread holds from its hooks to the fork itself.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use pyo3::prelude::*;
use scratchpad_core as core;

/// Calls inside the engine, and [`FORKING`] while a fork waits for them or is under way.
static GATE: AtomicUsize = AtomicUsize::new(0);
const FORKING: usize = 1 << (usize::BITS - 1);
/// How often a fork waiting for calls, or a call waiting for a fork, looks again. Forks are rare
/// and the wait is that of a whole call, so polling costs nothing worth a lock that a fork could
/// leave held.
const GATE_POLL: Duration = Duration::from_millis(1);

thread_local! {
    /// Calls of this thread inside the engine: a Python signal handler run from within a call may
    /// make another call, which must not wait for a fork that waits for the first.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Every engine handle made in this process, to let go of their connections in a child. Locked
/// only with the GIL held.
static HANDLES: Mutex<Vec<Weak<core::Scratchpad>>> = Mutex::new(Vec::new());

/// A call inside the engine: a fork waits until it is dropped.
#[derive(Debug)]
pub struct Inside(());

impl Inside {
    /// Waits while a fork is under way, then counts this call in. Called without the GIL, so that
    /// the forking thread can take it back.
    pub fn enter() -> Self {
        let depth = DEPTH.get();
        if depth > 0 {
            GATE.fetch_add(1, Ordering::AcqRel);
        } else {
            when_no_fork(|calls| calls + 1);
        }
        DEPTH.set(depth + 1);
        Self(())
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        DEPTH.set(DEPTH.get().saturating_sub(1));
        GATE.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Waits while a fork is under way, then sets the gate to `change` of what it holds, atomically.
fn when_no_fork(change: impl Fn(usize) -> usize) {
    let mut now = GATE.load(Ordering::Acquire);
    loop {
        if now & FORKING != 0 {
            std::thread::sleep(GATE_POLL);
            now = GATE.load(Ordering::Acquire);
            continue;
        }
        match GATE.compare_exchange_weak(now, change(now), Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return,
            Err(seen) => now = seen,
        }
    }
}

/// Keeps the connections of `pad`'s store from being used in a forked child. The GIL is held (the
/// token says so), as for every use of the list.
pub fn register(_gil: Python<'_>, pad: &Arc<core::Scratchpad>) {
    let mut handles = HANDLES.lock().unwrap_or_else(PoisonError::into_inner);
    handles.retain(|handle| handle.strong_count() > 0);
    handles.push(Arc::downgrade(pad));
}

/// `os.register_at_fork(before=...)`: waits, with the GIL released, until no call of another thread
/// is inside the engine, and keeps new ones out until the fork is done.
#[pyfunction]
fn before_fork(py: Python<'_>) {
    py.detach(|| {
        // Another thread's fork comes first.
        when_no_fork(|calls| calls | FORKING);
        // Calls of this very thread (a fork from a signal handler run inside a call) cannot end first.
        let own = DEPTH.get();
        while GATE.load(Ordering::Acquire) & !FORKING > own {
            std::thread::sleep(GATE_POLL);
        }
    });
}

/// `os.register_at_fork(after_in_parent=...)`: calls go on.
#[pyfunction]
fn after_fork_in_parent() {
    GATE.fetch_and(!FORKING, Ordering::AcqRel);
}

/// `os.register_at_fork(after_in_child=...)`: lets go of every inherited connection, then calls
/// go on. The thread that forked is this process's main thread now.
#[pyfunction]
fn after_fork_in_child() {
    for handle in HANDLES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter_map(Weak::upgrade)
    {
        handle.after_fork();
    }
    forget_main_thread();
    GATE.fetch_and(!FORKING, Ordering::AcqRel);
}

/// Registers the hooks with `os.register_at_fork`, where the platform forks.
pub fn install(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let os = module.py().import("os")?;
    if !os.hasattr("register_at_fork")? {
        return Ok(());
    }
    let kwargs = pyo3::types::PyDict::new(module.py());
    kwargs.set_item("before", wrap_pyfunction!(before_fork, module)?)?;
    kwargs.set_item(
        "after_in_parent",
        wrap_pyfunction!(after_fork_in_parent, module)?,
    )?;
    kwargs.set_item(
        "after_in_child",
        wrap_pyfunction!(after_fork_in_child, module)?,
    )?;
    os.call_method("register_at_fork", (), Some(&kwargs))?;
    Ok(())
}

thread_local! {
    /// Whether this thread is the interpreter's main thread, once asked.
    static MAIN_THREAD: Cell<Option<bool>> = const { Cell::new(None) };
}

/// After a fork the thread that forked is the child's main thread, whatever it was before.
fn forget_main_thread() {
    MAIN_THREAD.set(None);
}

pub fn is_main_thread(py: Python<'_>) -> bool {
    if let Some(known) = MAIN_THREAD.get() {
        return known;
    }
    let asked = (|| -> PyResult<bool> {
        let threading = py.import("threading")?;
        let main = threading.call_method0("main_thread")?.getattr("ident")?;
        main.eq(threading.call_method0("get_ident")?)
    })()
    .unwrap_or(false);
    MAIN_THREAD.set(Some(asked));
    asked
}
