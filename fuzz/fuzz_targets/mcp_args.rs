//! What an MCP client sends, as the server parses it: any JSON as the arguments of
//! `scratchpad_read`, any request as the line transport and the HTTP gate check it, and any line
//! end as they look for the id of the request it answers. Nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scratchpad_mcp::lines::{find_id, request_problem};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let half = data.len() / 2;
    let _ = find_id(&data[..half], &data[half..]);
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    if let Value::Object(arguments) = &value {
        let _ = scratchpad_mcp::tools::parse_read_call(arguments.clone());
    }
    for method in ["tools/call", "resources/read", "initialize", "custom/thing"] {
        let _ = request_problem(method, Some(&value));
    }
    if let Some(method) = value.get("method").and_then(Value::as_str) {
        let _ = request_problem(method, value.get("params"));
    }
});
