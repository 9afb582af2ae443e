//! Every call the MCP faces print (continuations, hints, suggestions) is one a client can send
//! back as it is: its arguments validate against `scratchpad_read`'s input schema, and the tool
//! reads exactly what the engine meant.

use scratchpad_core::{Call, ReadMode, Speak as _};
use scratchpad_mcp::tools::{self, Mcp, READ};
use serde_json::Value;

/// Every read a continuation, hint or suggestion can name, with awkward values.
fn modes() -> Vec<ReadMode> {
    vec![
        ReadMode::Head { n: None },
        ReadMode::Head { n: Some(5) },
        ReadMode::Tail { n: Some(2_000) },
        ReadMode::Range {
            start: 10,
            end: Some(20),
        },
        ReadMode::Range {
            start: 7,
            end: None,
        },
        ReadMode::Lines {
            from: 1,
            to: Some(100),
        },
        ReadMode::Lines { from: 9, to: None },
        ReadMode::Grep {
            pattern: "it's \"ERROR|FATAL\" [a-z]+ \\d".into(),
            context: 3,
            max_matches: Some(7),
            ignore_case: true,
            from: Some(42),
        },
        ReadMode::grep("ERROR", 0),
        ReadMode::Json {
            query: ".items[] | select(.ok == \"yes\")".into(),
        },
        ReadMode::Bytes {
            offset: 3,
            length: Some(300),
        },
        ReadMode::Bytes {
            offset: 0,
            length: None,
        },
        ReadMode::Full { force: false },
        ReadMode::Full { force: true },
        ReadMode::Summary { from: None },
        ReadMode::Summary { from: Some(31) },
    ]
}

#[test]
fn continuations_validate_against_the_input_schema_and_read_the_same() {
    let read_tool = tools::definitions()
        .into_iter()
        .find(|tool| tool.name == READ)
        .unwrap();
    let schema = Value::Object((*read_tool.input_schema).clone());
    let validator = jsonschema::validator_for(&schema).unwrap();
    for mode in modes() {
        let arguments = tools::speak::read_arguments("log_7", &mode);
        let value = Value::Object(arguments.clone());
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{value}: {errors:?}");
        let (name, parsed) = tools::parse_read_call(arguments).unwrap();
        assert_eq!(name, "log_7");
        assert_eq!(parsed, mode, "{value}");
        // The text a model reads names the same arguments.
        let spelled = Mcp.call(&Call::read("log_7", mode.clone()));
        assert!(
            spelled.starts_with("scratchpad_read(name=\"log_7\", mode="),
            "{spelled}"
        );
        for (key, arg) in &value.as_object().unwrap().clone() {
            assert!(
                spelled.contains(&format!("{key}={arg}")),
                "{spelled} lacks {key}"
            );
        }
    }
}
