//! The part of the `scratchpad` command that stands on its own: the edits
//! `scratchpad mcp install|uninstall|wrap|unwrap` make to an MCP client's configuration file, as
//! functions from its text to the new text, so they can be tested and fuzzed without the command.
//! The engine itself is the `scratchpad-core` crate.
//!
//! ```
//! use scratchpad::client_config::{Client, unwrap, wrap};
//!
//! let text = "{\n  \"mcpServers\": {\n    \"fs\": { \"command\": \"npx\", \"args\": [\"-y\", \"fs\"] }\n  }\n}\n";
//! let wrapped = wrap(Client::Cursor, text, &[], "scratchpad").unwrap().change.unwrap();
//! assert!(wrapped.contains("\"command\": \"scratchpad\""));
//! let back = unwrap(Client::Cursor, &wrapped, &[]).unwrap().change.unwrap();
//! assert_eq!(back, text);
//! ```

pub mod client_config;
