//! MCP faces
