//! Signals while a command stores streamed input (`put`, `run`): the write stops, what it staged is
//! removed, and the command exits as a signal asks (128 + its number).
//!
//! Left to their default action, SIGINT, SIGTERM and SIGHUP end the process where it stands: an
//! interrupted `yes | scratchpad put` left gigabytes of temporary file behind until the next
//! collection pass. Here a thread waits for them (and for SIGPIPE, which Rust otherwise ignores) and
//! raises a flag; the write's input, read through [`Interruptible`], fails at its next read, so the
//! write fails like any failed write and removes what it wrote (a side file, or staging rows on
//! PostgreSQL). A command that does not get there within [`GRACE`] (blocked on input that never
//! comes, or reading a file) is stopped by the watcher, which first removes the process's unfinished
//! side files itself. A `kill -9` cannot be caught: the next collection pass removes what it left.

use std::io::{Read, Write as _};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

/// The signal received, 0 for none.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// A command is storing streamed input: a signal stops the write instead of the process.
static STORING: AtomicBool = AtomicBool::new(false);

/// How long a write has to stop and clean up by itself after a signal.
const GRACE: Duration = Duration::from_millis(1_000);

const SIGHUP: i32 = 1;
const SIGINT: i32 = 2;
const SIGPIPE: i32 = 13;
const SIGTERM: i32 = 15;

/// Starts waiting for signals. The handlers are in place when this returns.
pub fn watch() {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let streams = {
        let _entered = runtime.enter();
        (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
            signal(SignalKind::pipe()),
        )
    };
    let (Ok(mut int), Ok(mut term), Ok(mut hup), Ok(mut pipe)) = streams else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            runtime.block_on(async move {
                let mut deadline = None;
                loop {
                    let grace = async move {
                        match deadline {
                            Some(at) => tokio::time::sleep_until(at).await,
                            None => std::future::pending().await,
                        }
                    };
                    let signal = tokio::select! {
                        _ = int.recv() => SIGINT,
                        _ = term.recv() => SIGTERM,
                        _ = hup.recv() => SIGHUP,
                        _ = pipe.recv() => SIGPIPE,
                        () = grace => stop_now(),
                    };
                    // Outside a write, a closed pipe is an EPIPE error of the write to it, as before.
                    if signal == SIGPIPE && !STORING.load(Ordering::SeqCst) {
                        continue;
                    }
                    let first = RECEIVED
                        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok();
                    if !first || !STORING.load(Ordering::SeqCst) {
                        // Nothing to wait for, or asked twice.
                        stop_now();
                    }
                    deadline = Some(tokio::time::Instant::now() + GRACE);
                }
            });
        });
}

/// Removes what the process is still writing and exits as the signal received asks.
fn stop_now() -> ! {
    let signal = RECEIVED.load(Ordering::SeqCst);
    let removed = scratchpad_core::store::side::remove_unfinished();
    if STORING.load(Ordering::SeqCst) || removed > 0 {
        let _ = writeln!(std::io::stderr(), "error: {}", stopped_message(signal));
    }
    std::process::exit(128 + signal)
}

/// The signal that stopped the command, if one did.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// What the user reads when a signal stopped a write.
pub fn stopped_message(signal: i32) -> String {
    let name = match signal {
        SIGHUP => "SIGHUP",
        SIGINT => "SIGINT",
        SIGPIPE => "SIGPIPE",
        SIGTERM => "SIGTERM",
        _ => "a signal",
    };
    format!(
        "stopped by {name} before the input ended: nothing was stored, and what was read so far \
         was removed"
    )
}

/// Marks a command as storing streamed input for as long as it lives: a signal then stops the
/// write (which cleans up after itself) rather than the process.
#[derive(Debug)]
pub struct Storing(());

impl Storing {
    pub fn start() -> Self {
        STORING.store(true, Ordering::SeqCst);
        Self(())
    }
}

impl Drop for Storing {
    fn drop(&mut self) {
        STORING.store(false, Ordering::SeqCst);
    }
}

/// Input that fails at its next read once a signal was received, so that the write reading it
/// fails and removes what it staged.
#[derive(Debug)]
pub struct Interruptible<R>(pub R);

impl<R: Read> Read for Interruptible<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        stopped()?;
        let n = self.0.read(buf)?;
        // What came with the signal is not kept either.
        stopped()?;
        Ok(n)
    }
}

fn stopped() -> std::io::Result<()> {
    match received() {
        None => Ok(()),
        Some(signal) => Err(std::io::Error::other(stopped_message(signal))),
    }
}
