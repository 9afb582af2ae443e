//! Live updates: one thread watches the store and tells every open page, through server-sent
//! events, that something changed; each page then fetches what it shows again.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use scratchpad_core::Scratchpad;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// How long one wait for a change lasts before the thread looks whether it should stop.
const WAIT: Duration = Duration::from_millis(500);
/// Changes closer together than this reach pages as one (agents writing fast would otherwise make
/// every page fetch itself again for every write).
const COALESCE: Duration = Duration::from_millis(250);
/// After the watch failed (a lost PostgreSQL connection), how long before it starts again.
const RETRY: Duration = Duration::from_secs(1);
/// How long starting the server waits for the store's first watch.
const FIRST_WATCH: Duration = Duration::from_secs(5);
/// A comment line that keeps idle connections (and proxies between) from closing them.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The store's changes, told to whoever listens.
#[derive(Debug, Clone)]
pub(crate) struct Live {
    changes: broadcast::Sender<u64>,
    stopped: Arc<AtomicBool>,
    seq: Arc<AtomicU64>,
    /// Ends the event streams too: a server shutting down waits for every open connection.
    shutdown: CancellationToken,
}

impl Live {
    /// Starts the watching thread; it ends when `shutdown` is cancelled or [`Live::stop`] is called.
    pub fn start(pad: Scratchpad, shutdown: CancellationToken) -> Self {
        let (changes, _) = broadcast::channel(16);
        let live = Self {
            changes,
            stopped: Arc::new(AtomicBool::new(false)),
            seq: Arc::new(AtomicU64::new(0)),
            shutdown,
        };
        // The server answers only once the first watch has its starting point: a thread slow to
        // start would otherwise count a write made meanwhile as old, and no page would hear of it.
        // (It is taken in the thread because a PostgreSQL watch cannot be opened on the server's
        // runtime.)
        let (started, first_watch) = std::sync::mpsc::channel();
        let watcher = live.clone();
        let spawned = std::thread::Builder::new()
            .name("scratchpad-ui-watch".into())
            .spawn(move || watcher.watch(&pad, &started));
        match spawned {
            Ok(_) => {
                // A store that takes longer than this to answer is watched when it does.
                let _ = first_watch.recv_timeout(FIRST_WATCH);
            }
            Err(err) => tracing::warn!(
                "cannot start watching the store ({err}); pages will not update by themselves"
            ),
        }
        live
    }

    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        self.shutdown.cancel();
    }

    fn watch(&self, pad: &Scratchpad, started: &std::sync::mpsc::Sender<()>) {
        let running = || !self.stopped.load(Ordering::Relaxed) && !self.shutdown.is_cancelled();
        while running() {
            let watch = pad.watch();
            // Whether it opened or not, the server need not wait any longer.
            let _ = started.send(());
            let mut watch = match watch {
                Ok(watch) => watch,
                Err(err) => {
                    tracing::warn!("cannot watch the store for changes: {err}");
                    std::thread::sleep(RETRY);
                    continue;
                }
            };
            while running() {
                match watch.wait(WAIT) {
                    Ok(true) => {
                        std::thread::sleep(COALESCE);
                        // What came during the pause is part of this change.
                        let _ = watch.wait(Duration::ZERO);
                        self.announce();
                    }
                    Ok(false) => {}
                    Err(err) => {
                        tracing::warn!("watching the store failed: {err}; starting again");
                        // What happened meanwhile is unknown: pages look again.
                        self.announce();
                        std::thread::sleep(RETRY);
                        break;
                    }
                }
            }
        }
    }

    fn announce(&self) {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        // Nobody listening is fine.
        let _ = self.changes.send(seq);
    }

    /// The event stream of one page: `change` with a sequence number whenever the store changed.
    pub fn events(&self) -> Sse<impl Stream<Item = Result<Event, Infallible>> + use<>> {
        let receiver = self.changes.subscribe();
        let shutdown = self.shutdown.clone();
        let stream = futures_util::stream::unfold(receiver, move |mut receiver| {
            let shutdown = shutdown.clone();
            async move {
                let data = tokio::select! {
                    () = shutdown.cancelled() => return None,
                    received = receiver.recv() => match received {
                        Ok(seq) => seq.to_string(),
                        // Fell behind: one change stands for all that were missed.
                        Err(broadcast::error::RecvError::Lagged(_)) => "lagged".to_owned(),
                        Err(broadcast::error::RecvError::Closed) => return None,
                    },
                };
                Some((Ok(Event::default().event("change").data(data)), receiver))
            }
        });
        Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
    }
}
