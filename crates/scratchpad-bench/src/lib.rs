//! Measurements of the scratchpad engine that are not timings: the context-savings evaluation
//! ([`eval`]) behind the `scratchpad-eval` binary. The timing benchmarks live in the
//! `scratchpad-bench` binary (`src/main.rs`).
//!
//! ```
//! use scratchpad_bench::eval::corpus::{DEFAULT_SEED, DocKind, SIZES, document};
//!
//! // The corpus is a pure function of the seed: the same seed gives the same bytes.
//! let log = document(DEFAULT_SEED, DocKind::Log, SIZES[0]);
//! assert_eq!(log.text, document(DEFAULT_SEED, DocKind::Log, SIZES[0]).text);
//! for fact in &log.facts {
//!     assert_eq!(log.text.find(&fact.answer), Some(fact.offset));
//! }
//! ```

pub mod eval;
