//! The scratchpad engine in-process for Python: the native half of the `scratchpad` package
//! (`scratchpad._scratchpad`). It maps the engine's values, modes and errors to Python and back;
//! every rule (previews, offload policy, reads, notes) stays in `scratchpad-core`.
//!
//! Built with maturin (`pip install crates/scratchpad-py`); the pure-Python half in `python/`
//! adds the exceptions, the tool decorator and the deepagents backend.

mod calls;
mod errors;
mod fork;
mod kwargs;
mod modes;
mod pad;
mod speak;
mod types;

use pyo3::prelude::*;

/// Escapes `text` so that a grep matches it literally.
#[pyfunction]
fn escape(text: &str) -> String {
    regex::escape(text)
}

#[pymodule]
fn _scratchpad(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<pad::Scratchpad>()?;
    module.add_class::<types::EntryInfo>()?;
    module.add_class::<types::ReadReply>()?;
    module.add_class::<types::GrepLine>()?;
    module.add_class::<types::Page>()?;
    module.add_class::<types::SearchHit>()?;
    module.add_class::<types::Stats>()?;
    module.add_class::<types::EditResult>()?;
    module.add_class::<types::OffloadResult>()?;
    module.add_class::<types::Version>()?;
    module.add_class::<types::History>()?;
    module.add_class::<types::Removal>()?;
    module.add_class::<types::RemovedEntry>()?;
    module.add_class::<types::RemovedHistory>()?;
    module.add_class::<types::DiffSide>()?;
    module.add_class::<types::Diff>()?;
    module.add_class::<types::Lease>()?;
    module.add_class::<types::CheckProblem>()?;
    module.add_class::<types::CheckReport>()?;
    module.add_function(wrap_pyfunction!(escape, module)?)?;
    module.add("DEFAULT_SESSION", scratchpad_core::DEFAULT_SESSION)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    fork::install(module)?;
    Ok(())
}
