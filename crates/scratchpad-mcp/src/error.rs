//! Why serving could not start or stopped.

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The options cannot be served safely or at all (e.g. a public bind without a token).
    #[error("{0}")]
    Config(String),
    /// The MCP session failed.
    #[error("MCP protocol error: {0}")]
    Protocol(String),
    /// The proxy's upstream server could not be started, reached or introduced to; the message
    /// names it and says why.
    #[error("{0}")]
    Upstream(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Engine(#[from] scratchpad_core::Error),
}
