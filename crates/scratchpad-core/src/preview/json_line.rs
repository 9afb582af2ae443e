//! A JSON log line as a preview shows it: the fields that say what happened, not the first 200
//! characters of boilerplate. pino, bunyan, structlog, zap, logrus and their kin put the level and
//! message among a dozen fields of host, process, request and trace ids, and an error's type,
//! message and stack in a nested object or array, often at the end of a long line.
//!
//! Only lines a preview shows are condensed (notable lines too long to show whole), so the parse
//! costs nothing on the lines that are only counted.

use serde_json::{Map, Value};

/// Keys that hold the level, the message, the error, in the names loggers give them.
const LEVEL_KEYS: [&str; 5] = ["level", "lvl", "severity", "log.level", "levelname"];
const MESSAGE_KEYS: [&str; 5] = ["msg", "message", "event", "@message", "error_message"];
const ERROR_KEYS: [&str; 8] = [
    "err",
    "error",
    "exception",
    "exc_info",
    "stack",
    "stacktrace",
    "stack_trace",
    "error.stack",
];
const TYPE_KEYS: [&str; 6] = ["type", "name", "exc_type", "kind", "class", "code"];
const ERROR_MESSAGE_KEYS: [&str; 4] = ["message", "msg", "exc_value", "reason"];

/// `level=50 msg="failed to price order" err.type=TypeError err.message="…" at app.js:8:17
/// (+14 fields)`, or `None` when the line is not a JSON object.
pub(crate) fn condense(line: &[u8]) -> Option<String> {
    let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(line) else {
        return None;
    };
    let mut parts: Vec<String> = Vec::new();
    let mut used = 0;
    for key in LEVEL_KEYS.iter().chain(&MESSAGE_KEYS) {
        if let Some(value) = object.get(*key)
            && let Some(text) = scalar(value)
        {
            parts.push(format!("{key}={text}"));
            used += 1;
        }
    }
    for key in ERROR_KEYS {
        if let Some(value) = object.get(key) {
            used += 1;
            error_parts(key, value, &mut parts);
        }
    }
    let rest = object.len().saturating_sub(used);
    if rest > 0 {
        parts.push(format!("(+{rest} more fields)"));
    }
    Some(parts.join(" "))
}

/// A scalar as a preview shows it: strings quoted, with escapes, numbers and booleans as they are.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// The type, the message and the first frame of an error, wherever the logger put them.
fn error_parts(key: &str, value: &Value, parts: &mut Vec<String>) {
    match value {
        Value::Object(error) => error_object(key, error, parts),
        // structlog's `exception`: a list of exceptions (the chain), the last raised last.
        Value::Array(chain) => {
            if let Some(Value::Object(error)) = chain.last() {
                error_object(key, error, parts);
            } else if let Some(text) = chain.last().and_then(scalar) {
                parts.push(format!("{key}={text}"));
            }
        }
        Value::String(text) => {
            // A formatted traceback or stack: its first line and the frame that raised it.
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            if let Some(first) = lines.next() {
                parts.push(format!("{key}={}", Value::from(first)));
            }
            if let Some(frame) = first_frame(text) {
                parts.push(frame);
            }
        }
        Value::Number(_) | Value::Bool(_) | Value::Null => {
            if let Some(text) = scalar(value) {
                parts.push(format!("{key}={text}"));
            }
        }
    }
}

fn error_object(key: &str, error: &Map<String, Value>, parts: &mut Vec<String>) {
    for name in TYPE_KEYS {
        if let Some(text) = error.get(name).and_then(scalar) {
            parts.push(format!("{key}.{name}={text}"));
            break;
        }
    }
    for name in ERROR_MESSAGE_KEYS {
        if let Some(text) = error.get(name).and_then(scalar) {
            parts.push(format!("{key}.{name}={text}"));
            break;
        }
    }
    let stack = ["stack", "stacktrace", "stack_trace", "traceback"]
        .iter()
        .find_map(|name| error.get(*name).and_then(Value::as_str));
    if let Some(frame) = stack.and_then(first_frame) {
        parts.push(frame);
    } else if let Some(Value::Array(frames)) = error.get("frames") {
        // structlog's dict tracebacks: frames outermost first; the last one raised.
        if let Some(Value::Object(frame)) = frames.last() {
            let file = frame.get("filename").and_then(Value::as_str).unwrap_or("?");
            let line = frame
                .get("lineno")
                .map(Value::to_string)
                .unwrap_or_default();
            let name = frame.get("name").and_then(Value::as_str).unwrap_or("?");
            parts.push(format!("at {file}:{line} in {name}"));
        }
    }
}

/// The first frame of a stack as text: a JavaScript or JVM `at …` line, or a Python traceback's
/// last `File "…", line N, in f`.
fn first_frame(stack: &str) -> Option<String> {
    let mut lines = stack.lines().map(str::trim);
    if let Some(at) = lines.clone().find(|l| l.starts_with("at ")) {
        return Some(at.to_owned());
    }
    lines.rfind(|l| l.starts_with("File \"")).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::condense;

    #[test]
    fn a_pino_error_shows_its_message_type_and_frame() {
        let line = r#"{"level":50,"time":1,"pid":4711,"hostname":"api","reqId":"req-tx","err":{"type":"TypeError","message":"Cannot read properties of undefined (reading 'lineItems')","stack":"TypeError: Cannot read properties of undefined (reading 'lineItems')\n    at Object.<anonymous> (/app/app.js:8:17)\n    at Module._compile (node:internal/modules/cjs/loader:1521:14)"},"orderId":"ord_8f3a2c","msg":"failed to price order"}"#;
        let text = condense(line.as_bytes()).unwrap();
        assert_eq!(
            text,
            r#"level=50 msg="failed to price order" err.type="TypeError" err.message="Cannot read properties of undefined (reading 'lineItems')" at Object.<anonymous> (/app/app.js:8:17) (+5 more fields)"#
        );
    }

    #[test]
    fn a_structlog_exception_shows_its_innermost_frame() {
        let line = r#"{"service":"ledger","event":"settlement failed","level":"error","exception":[{"exc_type":"ZeroDivisionError","exc_value":"division by zero","frames":[{"filename":"/app/slog.py","lineno":10,"name":"<module>"},{"filename":"/app/slog.py","lineno":5,"name":"settle"}]}]}"#;
        let text = condense(line.as_bytes()).unwrap();
        assert_eq!(
            text,
            r#"level="error" event="settlement failed" exception.exc_type="ZeroDivisionError" exception.exc_value="division by zero" at /app/slog.py:5 in settle (+1 more fields)"#
        );
    }

    #[test]
    fn not_json_is_left_alone() {
        assert_eq!(condense(b"{not json"), None);
        assert_eq!(condense(b"[1, 2]"), None);
    }
}
