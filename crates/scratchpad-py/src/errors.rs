//! The engine's errors as Python exceptions: the one place they are mapped. The classes live in
//! `scratchpad/errors.py` (plain Python, so they can also be `LookupError` or `ValueError`); each
//! carries the engine's message, spelled for a Python caller, and the facts a caller branches on.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use scratchpad_core::{ConflictKind, Error};

use crate::speak::Python as PythonSpeak;

const ERRORS_MODULE: &str = "scratchpad.errors";

/// The engine's error as the matching Python exception.
pub fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let message = err.render(&PythonSpeak);
    let made = (|| -> PyResult<PyErr> {
        let attrs = PyDict::new(py);
        let class = match err {
            Error::NotFound {
                name,
                session,
                similar,
            } => {
                attrs.set_item("name", name)?;
                attrs.set_item("session", session)?;
                attrs.set_item("similar", similar)?;
                "NotFound"
            }
            Error::InvalidName { what, value, .. } => {
                attrs.set_item("what", what)?;
                attrs.set_item("value", value)?;
                "InvalidName"
            }
            Error::Conflict(ConflictKind::Version {
                name,
                expected,
                current,
            }) => {
                attrs.set_item("name", name)?;
                attrs.set_item("expected_version", expected)?;
                attrs.set_item("current_version", current)?;
                "Conflict"
            }
            Error::Conflict(ConflictKind::Exists { name, version }) => {
                attrs.set_item("name", name)?;
                attrs.set_item("expected_version", py.None())?;
                attrs.set_item("current_version", version)?;
                "Conflict"
            }
            Error::Conflict(ConflictKind::Leased(lease)) => {
                attrs.set_item("name", lease.name)?;
                attrs.set_item("expected_version", py.None())?;
                attrs.set_item("current_version", py.None())?;
                attrs.set_item("holder", lease.holder)?;
                attrs.set_item("lease_token", lease.token)?;
                attrs.set_item("expires_at", lease.expires_at)?;
                "Conflict"
            }
            Error::Conflict(ConflictKind::Fenced { token, lease }) => {
                attrs.set_item("name", lease.name)?;
                attrs.set_item("expected_version", py.None())?;
                attrs.set_item("current_version", py.None())?;
                attrs.set_item("stale_token", token)?;
                attrs.set_item("holder", lease.holder)?;
                attrs.set_item("lease_token", lease.token)?;
                attrs.set_item("expires_at", lease.expires_at)?;
                "Conflict"
            }
            Error::Conflict(ConflictKind::Released { token, lease }) => {
                attrs.set_item("name", lease.name)?;
                attrs.set_item("expected_version", py.None())?;
                attrs.set_item("current_version", py.None())?;
                attrs.set_item("stale_token", token)?;
                attrs.set_item("holder", lease.holder)?;
                attrs.set_item("lease_token", lease.token)?;
                attrs.set_item("expires_at", lease.expires_at)?;
                "Conflict"
            }
            Error::Conflict(ConflictKind::NotHolder { lease, .. }) => {
                attrs.set_item("name", lease.name)?;
                attrs.set_item("expected_version", py.None())?;
                attrs.set_item("current_version", py.None())?;
                attrs.set_item("holder", lease.holder)?;
                attrs.set_item("lease_token", lease.token)?;
                attrs.set_item("expires_at", lease.expires_at)?;
                "Conflict"
            }
            Error::Conflict(ConflictKind::NoLease { name, token }) => {
                attrs.set_item("name", name)?;
                attrs.set_item("expected_version", py.None())?;
                attrs.set_item("current_version", py.None())?;
                attrs.set_item("stale_token", token)?;
                attrs.set_item("holder", py.None())?;
                attrs.set_item("lease_token", py.None())?;
                "Conflict"
            }
            Error::InvalidArgument(_) => "InvalidArgument",
            Error::TooLarge(_) => "TooLarge",
            Error::WrongKind(_) => "WrongKind",
            Error::Stopped(_) => "Stopped",
            Error::Config(_) => "ConfigError",
            Error::Storage(_) => "StorageError",
            Error::Raced(name) => {
                attrs.set_item("name", name)?;
                "Raced"
            }
            Error::Io(_) => "IoError",
            // The engine may grow variants; until they get a class of their own they are the base class.
            _ => "ScratchpadError",
        };
        exception(py, class, message, Some(&attrs))
    })();
    // The package's own module is missing or broken: say that rather than lose the error.
    made.unwrap_or_else(|err| err)
}

/// An instance of `class` from `scratchpad.errors`.
fn exception(
    py: Python<'_>,
    class: &str,
    message: String,
    attrs: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyErr> {
    let class = py.import(ERRORS_MODULE)?.getattr(class)?;
    Ok(PyErr::from_value(class.call((message,), attrs)?))
}

/// An argument the binding itself refuses, as the engine's `InvalidArgument`.
pub fn invalid(message: impl Into<String>) -> PyErr {
    Python::attach(|py| {
        exception(py, "InvalidArgument", message.into(), None).unwrap_or_else(|err| err)
    })
}

/// Maps an engine result, holding the GIL again.
pub trait OrRaise<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for scratchpad_core::Result<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|err| to_py(py, err))
    }
}
