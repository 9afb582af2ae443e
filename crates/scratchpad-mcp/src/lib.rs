//! The MCP faces of the scratchpad: a server that offers the scratchpad tools, resources and
//! instructions to any MCP client, and a proxy that adds offloading, slicing and pass-by-reference
//! to any existing MCP server. Both are thin layers over [`scratchpad_core::Scratchpad`]; this crate
//! is where core errors become MCP tool results, in one place.
//!
//! Not implemented yet: the crate holds the place in the workspace so the dependency direction
//! (core ← mcp ← binary) is fixed from the start.
