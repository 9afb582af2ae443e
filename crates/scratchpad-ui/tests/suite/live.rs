//! Live updates: an open event stream hears what agents write as they write it.

use std::io::BufRead;
use std::time::{Duration, Instant};

use crate::common::{note, serve, sqlite_pad};

/// Reads the stream until a `change` event arrives (or the time is up).
pub fn wait_for_change(stream: &mut impl BufRead, within: Duration) -> bool {
    let started = Instant::now();
    let mut line = String::new();
    while started.elapsed() < within {
        line.clear();
        match stream.read_line(&mut line) {
            Ok(0) => return false,
            Ok(_) if line.starts_with("event: change") => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    false
}

#[test]
fn an_open_event_stream_hears_each_write() {
    let (dir, pad) = sqlite_pad();
    let served = serve(pad.clone(), Some(dir));
    let mut events = served.events();
    let writer = pad.with_session("agents").unwrap();
    note(&writer, "plan", "step one");
    assert!(
        wait_for_change(&mut events, Duration::from_secs(15)),
        "no change event after a write"
    );
    writer.pin("plan", true, None).unwrap();
    assert!(
        wait_for_change(&mut events, Duration::from_secs(15)),
        "no change event after a pin"
    );
}
