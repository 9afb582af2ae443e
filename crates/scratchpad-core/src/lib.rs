//! The scratchpad engine: keep whole tool outputs in a store, show the model a short reference with
//! a preview, read slices on demand, pass stored values by reference, and keep durable notes.
//!
//! Every face (CLI, MCP server, MCP proxy) is a thin layer over [`Scratchpad`].
//!
//! ```
//! use scratchpad_core::{Observation, PartOutcome, ReadMode, Scratchpad};
//!
//! # fn main() -> scratchpad_core::Result<()> {
//! let dir = tempfile::tempdir()?;
//! let pad = Scratchpad::open(&format!("sqlite://{}/pad.db", dir.path().display()))?;
//!
//! // A large tool output goes to the store; the model gets a reference with a preview.
//! let log: String = (1..=5_000)
//!     .map(|i| if i == 2_500 { "ERROR disk full\n".to_owned() } else { format!("line {i} ok\n") })
//!     .collect();
//! let offload = pad.offload(&Observation::text("run_tests", log))?;
//! let PartOutcome::Stored(reference) = &offload.parts[0] else { unreachable!() };
//! assert_eq!(reference.entry.name, "run_tests_1");
//! assert!(reference.entry.preview.contains("2500: ERROR disk full"));
//!
//! // Read a slice instead of everything.
//! let hits = pad.read("run_tests_1", &ReadMode::grep("ERROR", 1), None)?;
//! assert_eq!(hits.total_matches, Some(1));
//! assert!(hits.text.contains("2500:ERROR disk full"));
//!
//! // Pass a part of it by reference into another tool's arguments.
//! let args = pad.resolve("failing line: {{scratchpad:run_tests_1#lines=2500-2500}}")?;
//! assert_eq!(args, "failing line: ERROR disk full");
//! # Ok(()) }
//! ```

pub mod advice;
pub mod config;
pub mod diff;
pub mod error;
pub mod figures;
pub mod history;
mod ingest;
pub mod lease;
pub mod model;
mod offload;
mod pause;
pub mod preview;
pub mod read;
mod reference;
mod scratchpad;
pub mod store;

pub use advice::{Advice, Arg, ArgName, ArgValue, Call, Speak};
pub use config::{Config, Retention, ReuseWindow, Ttl, default_store_path};
pub use diff::{DiffCursor, DiffReply, Target};
pub use error::{ConflictKind, Error, Result};
pub use figures::{thousands, utc_time};
pub use history::{Change, History, Purged, Removed, RemovedEntry, RemovedHistory, VersionInfo};
pub use lease::{Lease, LeaseState};
pub use model::{EntryInfo, Kind, Source, estimate_tokens, now_ms};
pub use offload::{
    Binary, Content, Hint, Observation, Offload, OffloadedObservation, PART_INLINE_BYTES, Part,
    PartOutcome, Reference, hint,
};
pub use preview::shown_lines;
pub use read::{GrepLine, READ_TIMEOUT, ReadMode, ReadReply, Stop};
pub use scratchpad::{
    DEFAULT_SESSION, DiffOptions, EDIT_MAX_BYTES, EditOutcome, PutOptions, Scratchpad,
    SessionStats, SessionSummary, Stats, USAGE_BUCKETS, Usage, WriteOptions, check_store_url,
    sqlite_store_file,
};
pub use store::{
    CheckReport, GcReport, ListFilter, Page, SearchHit, USAGE_KEEP_ROWS, UsageBucket, UsageKind,
    Watch, WriteCondition,
};
