//! The scratchpad engine: keep whole tool outputs in a store, show the model a short reference with
//! a preview, read slices on demand, pass stored values by reference, and keep durable notes.
//!
//! Every face (CLI, MCP server, MCP proxy) is a thin layer over [`Scratchpad`].
//!
//! ```
//! use scratchpad_core::{Observation, ObservationContent, Offload, ReadMode, Scratchpad};
//!
//! # fn main() -> scratchpad_core::Result<()> {
//! let dir = tempfile::tempdir()?;
//! let pad = Scratchpad::open(&format!("sqlite://{}/pad.db", dir.path().display()))?;
//!
//! // A large tool output goes to the store; the model gets a reference with a preview.
//! let log: String = (1..=5_000)
//!     .map(|i| if i == 2_500 { "ERROR disk full\n".to_owned() } else { format!("line {i} ok\n") })
//!     .collect();
//! let observation = Observation {
//!     tool: "run_tests".into(),
//!     content: ObservationContent::Text(log),
//!     metadata: Default::default(),
//!     args: None,
//!     server: None,
//!     is_error: false,
//! };
//! let Offload::Offloaded(reference) = pad.offload(observation, None)? else { unreachable!() };
//! assert_eq!(reference.scratchpad, "run_tests_1");
//! assert!(reference.preview.contains("2500: ERROR disk full"));
//!
//! // Read a slice instead of everything.
//! let hits = pad.read("run_tests_1", &ReadMode::Grep {
//!     pattern: "ERROR".into(), context: 1, max_matches: None, ignore_case: false, from: None,
//! }, None)?;
//! assert_eq!(hits.total_matches, Some(1));
//! assert!(hits.text.contains("2500:ERROR disk full"));
//!
//! // Pass a part of it by reference into another tool's arguments.
//! let args = pad.resolve("failing line: {{scratchpad:run_tests_1#lines=2500-2500}}")?;
//! assert_eq!(args, "failing line: ERROR disk full");
//! # Ok(()) }
//! ```

pub mod config;
pub mod error;
mod ingest;
pub mod model;
mod offload;
pub mod preview;
pub mod read;
mod reference;
mod scratchpad;
pub mod store;

pub use config::Config;
pub use error::{ConflictKind, Error, Result};
pub use model::{EntryInfo, Kind, Source};
pub use offload::{Observation, ObservationContent, Offload, OffloadedObservation, hint};
pub use read::{ReadMode, ReadReply, Syntax};
pub use reference::RESOLVE_MAX_BYTES;
pub use scratchpad::{
    DEFAULT_SESSION, EditOutcome, PutOptions, Scratchpad, Stats, Ttl, WriteOptions,
};
pub use store::{GcReport, ListFilter, Page, SearchHit, SessionStats, WriteCondition};
