//! What a request that failed answers: a status and a message that says what to do next. Engine
//! errors become one in [`crate::engine`], with the calls they suggest spelled as this view's
//! addresses.

use http::StatusCode;

/// A failed request: a status and a message that says what to do next, plus facts a page acts on.
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: StatusCode,
    pub message: String,
    /// The entry's current version, for a version conflict.
    pub current_version: Option<u64>,
}

impl Failure {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            current_version: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}
