//! jq queries over stored JSON documents, run by jaq.
//!
//! Limits, chosen so that a query written by a model cannot flood its context
//! or read the host environment:
//! * at most [`MAX_OUTPUTS`] values are returned; evaluation stops there
//!   without an error, so `.[]` over a huge array still answers;
//! * `env` and `$ENV` are not available (the process environment may hold
//!   secrets), nor are `input`/`inputs` (there is exactly one document);
//! * `halt` ends the program normally; `halt_error` and `halt(n)` with a
//!   non-zero code are reported as runtime errors.
//!
//! Not limited: evaluation time and memory of a single output. A program such
//! as `last(range(1e15))` runs for a long time; callers that need a deadline
//! must run this on a worker they can abandon.

use std::fmt::{self, Write as _};

use jaq_core::load::{Arena, File, Loader, lex, parse};
use jaq_core::{Compiler, Ctx, Vars, compile, data, load};
use jaq_json::{Num, Val};
use serde_json::{Map, Number, Value};

/// Values returned before evaluation stops (count).
pub const MAX_OUTPUTS: usize = 10_000;

/// Longest excerpt of the program quoted back in an error message (chars).
const MAX_PROGRAM_CHARS: usize = 200;

/// Longest runtime error detail, which can embed whole input values (chars).
const MAX_DETAIL_CHARS: usize = 300;

/// Deepest output value converted to JSON (levels); deeper values could only
/// come from a runaway program and would overflow the stack on conversion.
const MAX_OUTPUT_DEPTH: usize = 512;

/// Errors found per program before the message stops listing them (count).
const MAX_LISTED_ERRORS: usize = 3;

const SYNTAX_HINT: &str =
    "jq syntax: `.key`, `.items[0]`, `.items[] | .id`, `[.[] | select(.ok)] | length`";

const RUNTIME_HINT: &str = "check the shape first (e.g. `type`, `keys`, `.[0]`), \
     then skip values that do not fit with `select(...)`, `.x?` or `.x // default`";

/// Why a jq query produced no result. Each message is complete (it names the
/// program and says what to try next), so callers can show `to_string()` as is.
#[derive(Debug, thiserror::Error)]
pub enum JqError {
    /// The program does not parse, or names a filter or variable that does
    /// not exist.
    #[error("{0}")]
    Syntax(String),
    /// The program failed while running on this document.
    #[error("{0}")]
    Runtime(String),
    /// The document is not a single JSON value.
    #[error("{0}")]
    NotJson(String),
}

/// Runs a jq program over one JSON document. Returns every output value, in order.
///
/// At most [`MAX_OUTPUTS`] values are returned; the rest are not computed.
pub fn run_jq(document: &[u8], program: &str) -> Result<Vec<Value>, JqError> {
    // Compile before parsing so that a typo is reported without paying for
    // parsing a large document.
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs().filter(|(name, _, _)| *name != "env"))
        .chain(jaq_json::funs());
    let arena = Arena::default();
    let modules = Loader::new(defs)
        .load(
            &arena,
            File {
                code: program,
                path: (),
            },
        )
        .map_err(|errors| JqError::Syntax(load_errors_message(program, errors)))?;
    let filter = Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| JqError::Syntax(compile_errors_message(program, errors)))?;

    let input: Val = serde_json::from_slice(document).map_err(|e| not_json(document, &e))?;

    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
    let mut outputs = Vec::new();
    for output in filter.id.run((ctx, input)) {
        match output {
            Ok(value) => {
                let value = to_json(&value, 0)
                    .map_err(|detail| runtime_error(program, outputs.len(), &detail))?;
                outputs.push(value);
                // Stop before asking for another output: computing it may
                // never finish.
                if outputs.len() >= MAX_OUTPUTS {
                    break;
                }
            }
            Err(exn) => match exn.get_err() {
                Ok(error) => {
                    let detail = bounded_display(&error, MAX_DETAIL_CHARS);
                    return Err(runtime_error(program, outputs.len(), &detail));
                }
                Err(exn) => match exn.get_halt() {
                    Ok(0) => break,
                    Ok(code) => {
                        let detail =
                            format!("the program stopped with `halt_error` (exit code {code})");
                        return Err(runtime_error(program, outputs.len(), &detail));
                    }
                    // Only halts and errors escape a compiled program; anything
                    // else is jaq-internal control flow.
                    Err(_) => {
                        let detail = "internal jaq control flow escaped the program";
                        return Err(runtime_error(program, outputs.len(), detail));
                    }
                },
            },
        }
    }
    Ok(outputs)
}

fn not_json(document: &[u8], error: &serde_json::Error) -> JqError {
    let what = if document.iter().all(u8::is_ascii_whitespace) {
        "it is empty"
    } else if error.to_string().starts_with("trailing characters") {
        "it holds more than one JSON value (JSON Lines?) or text after the value"
    } else {
        "it is not valid JSON"
    };
    JqError::NotJson(format!(
        "cannot run jq on this content: {what} ({error}); \
         jq needs exactly one JSON document, so read or search this content as text instead"
    ))
}

fn runtime_error(program: &str, outputs: usize, detail: &str) -> JqError {
    let after = match outputs {
        0 => String::new(),
        1 => " after 1 output".to_owned(),
        n => format!(" after {n} outputs"),
    };
    JqError::Runtime(format!(
        "jq runtime error in `{}`{after}: {detail}; {RUNTIME_HINT}",
        excerpt(program)
    ))
}

fn load_errors_message(program: &str, errors: load::Errors<&str, ()>) -> String {
    let mut problems = Vec::new();
    for (file, error) in errors {
        match error {
            load::Error::Io(items) => {
                problems.extend(
                    items
                        .into_iter()
                        .map(|(path, why)| format!("cannot load module `{path}`: {why}")),
                );
            }
            load::Error::Lex(items) => {
                problems.extend(items.into_iter().map(|(expect, rest)| {
                    let at = describe_position(file.code, rest);
                    match expect {
                        lex::Expect::Delim(open) => {
                            let close = closing_delimiter(open);
                            let open_at = offset_in(file.code, open)
                                .map_or(String::new(), |o| format!(" at offset {o}"));
                            format!("expected {close} {at} to close `{open}`{open_at}")
                        }
                        other => format!("expected {} {at}", lex_expectation(&other)),
                    }
                }));
            }
            load::Error::Parse(items) => {
                problems.extend(items.into_iter().map(|(expect, found)| {
                    let wanted = match expect {
                        parse::Expect::Just(token) => format!("`{token}`"),
                        other => other.as_str().to_owned(),
                    };
                    format!("expected {wanted} {}", describe_position(file.code, found))
                }));
            }
        }
    }
    syntax_message(program, problems)
}

fn compile_errors_message(program: &str, errors: compile::Errors<&str, ()>) -> String {
    let mut problems = Vec::new();
    for (file, items) in errors {
        for (name, undefined) in items {
            let at =
                offset_in(file.code, name).map_or(String::new(), |o| format!(" at offset {o}"));
            let what = match undefined {
                compile::Undefined::Filter(0) => format!("unknown filter `{name}`"),
                compile::Undefined::Filter(arity) => {
                    format!("unknown filter `{name}` taking {arity} argument(s)")
                }
                other => format!("unknown {} `{name}`", other.as_str()),
            };
            let note = match name.trim_start_matches('$') {
                "env" | "ENV" => " (environment access is disabled)",
                "input" | "inputs" => " (there is only one input document: use `.`)",
                _ => "",
            };
            problems.push(format!("{what}{at}{note}"));
        }
    }
    syntax_message(program, problems)
}

fn syntax_message(program: &str, problems: Vec<String>) -> String {
    let total = problems.len();
    let mut listed: Vec<String> = problems.into_iter().take(MAX_LISTED_ERRORS).collect();
    if total > MAX_LISTED_ERRORS {
        listed.push(format!("{} more error(s)", total - MAX_LISTED_ERRORS));
    }
    if listed.is_empty() {
        listed.push("the program could not be parsed".to_owned());
    }
    format!(
        "jq syntax error in `{}`: {}; {SYNTAX_HINT}",
        excerpt(program),
        listed.join("; ")
    )
}

/// Where `found` (a slice of `code`, possibly empty at its end) sits.
fn describe_position(code: &str, found: &str) -> String {
    let token: String = found
        .split_whitespace()
        .next()
        .unwrap_or("")
        .chars()
        .take(20)
        .collect();
    match offset_in(code, found) {
        Some(offset) if token.is_empty() => format!("at offset {offset} (end of program)"),
        Some(offset) => format!("at offset {offset}, found `{token}`"),
        None if token.is_empty() => "at the end of the program".to_owned(),
        None => format!("but found `{token}`"),
    }
}

/// Byte offset of `part` in `whole`, if `part` is a sub-slice of it. jaq
/// reports positions as sub-slices of the program text.
fn offset_in(whole: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start + part.len() <= whole.len()).then_some(start)
}

fn closing_delimiter(open: &str) -> &'static str {
    match open {
        "(" => "`)`",
        "[" => "`]`",
        "{" => "`}`",
        "\"" => "`\"`",
        _ => "a closing delimiter",
    }
}

fn lex_expectation(expect: &lex::Expect<&str>) -> &'static str {
    match expect {
        lex::Expect::Digit => "a digit",
        lex::Expect::Ident => "an identifier",
        lex::Expect::Escape => "a string escape such as `\\n` or `\\\"`",
        lex::Expect::Unicode => "4 hex digits after `\\u`",
        lex::Expect::Token => "a jq token (unexpected character)",
        _ => "something else",
    }
}

fn excerpt(program: &str) -> String {
    let mut chars = program.chars();
    let mut out: String = chars.by_ref().take(MAX_PROGRAM_CHARS).collect();
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// Formats `value`, stopping after `max_chars`: errors can embed values of
/// any size, and formatting a huge one only to cut it would be wasteful.
fn bounded_display(value: &impl fmt::Display, max_chars: usize) -> String {
    struct Bounded {
        out: String,
        left: usize,
        cut: bool,
    }
    impl fmt::Write for Bounded {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            for c in s.chars() {
                if self.left == 0 {
                    self.cut = true;
                    return Err(fmt::Error);
                }
                self.out.push(c);
                self.left -= 1;
            }
            Ok(())
        }
    }
    let mut sink = Bounded {
        out: String::new(),
        left: max_chars,
        cut: false,
    };
    // An error here only means the limit was reached.
    let _ = write!(sink, "{value}");
    if sink.cut {
        sink.out.push('…');
    }
    sink.out
}

fn to_json(value: &Val, depth: usize) -> Result<Value, String> {
    if depth > MAX_OUTPUT_DEPTH {
        return Err(format!(
            "an output value is nested deeper than {MAX_OUTPUT_DEPTH} levels"
        ));
    }
    Ok(match value {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(*b),
        Val::Num(n) => num_to_json(n),
        // Byte strings only arise from jaq extensions such as `tobytes`; JSON
        // has no such type, so they are shown as (lossy) text.
        Val::TStr(bytes) | Val::BStr(bytes) => {
            Value::String(String::from_utf8_lossy(bytes).into_owned())
        }
        Val::Arr(items) => Value::Array(
            items
                .iter()
                .map(|item| to_json(item, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Val::Obj(entries) => {
            let mut map = Map::new();
            for (key, item) in entries.iter() {
                map.insert(key_to_string(key), to_json(item, depth + 1)?);
            }
            Value::Object(map)
        }
    })
}

/// jaq allows non-string object keys (e.g. `{(1): 2}`); JSON does not, so
/// they become their JSON text.
fn key_to_string(key: &Val) -> String {
    match key {
        Val::TStr(bytes) | Val::BStr(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        other => other.to_string(),
    }
}

fn num_to_json(n: &Num) -> Value {
    match n {
        Num::Int(i) => i64::try_from(*i).map_or_else(|_| float_to_json(*i as f64), Value::from),
        Num::Float(f) => float_to_json(*f),
        // Big integers and decimal literals keep their digits if serde_json
        // can hold them, else become the nearest float.
        Num::BigInt(_) | Num::Dec(_) => {
            let text = n.to_string();
            text.parse::<Number>()
                .map(Value::Number)
                .unwrap_or_else(|_| text.parse::<f64>().map_or(Value::Null, float_to_json))
        }
    }
}

/// Like jq 1.7: NaN becomes null, infinities the largest finite floats.
fn float_to_json(f: f64) -> Value {
    let finite = if f.is_infinite() {
        f64::MAX.copysign(f)
    } else {
        f
    };
    Number::from_f64(finite).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn jq(document: &str, program: &str) -> Result<Vec<Value>, JqError> {
        run_jq(document.as_bytes(), program)
    }

    #[test]
    fn selects_a_key() {
        assert_eq!(jq(r#"{"a": 1, "b": 2}"#, ".a").unwrap(), vec![json!(1)]);
        assert_eq!(jq(r#"{"a": 1}"#, ".missing").unwrap(), vec![json!(null)]);
    }

    #[test]
    fn iterates_items() {
        let doc = r#"{"items": [{"id": 1}, {"id": "two"}, {"id": 3.5}]}"#;
        assert_eq!(
            jq(doc, ".items[] | .id").unwrap(),
            vec![json!(1), json!("two"), json!(3.5)]
        );
    }

    #[test]
    fn select_and_length() {
        let doc = r#"[{"x": 0}, {"x": 2}, {"x": 5}, {"y": 9}]"#;
        assert_eq!(
            jq(doc, "[.[] | select(.x > 1)] | length").unwrap(),
            vec![json!(2)]
        );
    }

    #[test]
    fn standard_library_is_available() {
        let doc = r#"{"b": [3, 1, 2], "a": "hello world"}"#;
        assert_eq!(jq(doc, "keys").unwrap(), vec![json!(["a", "b"])]);
        assert_eq!(
            jq(doc, ".b | map(. * 2) | sort").unwrap(),
            vec![json!([2, 4, 6])]
        );
        assert_eq!(
            jq(doc, "to_entries | map(.key)").unwrap(),
            vec![json!(["b", "a"])]
        );
        assert_eq!(jq(doc, r#".a | test("wor")"#).unwrap(), vec![json!(true)]);
        assert_eq!(jq(doc, ".b | add / length").unwrap(), vec![json!(2.0)]);
        assert_eq!(
            jq(doc, ".a | ascii_upcase").unwrap(),
            vec![json!("HELLO WORLD")]
        );
        assert_eq!(
            jq(doc, "tojson | fromjson | .b[0]").unwrap(),
            vec![json!(3)]
        );
    }

    #[test]
    fn keeps_key_order_and_numbers() {
        let doc = r#"{"z": 1, "a": [1.5, -2, 12345678901234567890, 1e300]}"#;
        assert_eq!(
            jq(doc, ".").unwrap(),
            vec![serde_json::from_str::<Value>(doc).unwrap()]
        );
        assert_eq!(
            jq("null", "1.5, 100000000000000000000000, nan, infinite").unwrap(),
            vec![json!(1.5), json!(1e23), json!(null), json!(f64::MAX)]
        );
    }

    #[test]
    fn empty_output_is_ok() {
        assert_eq!(
            jq("[1, 2]", ".[] | select(. > 5)").unwrap(),
            Vec::<Value>::new()
        );
        assert_eq!(jq("[1, 2]", "empty").unwrap(), Vec::<Value>::new());
    }

    #[test]
    fn caps_outputs() {
        let out = jq("null", "range(20000)").unwrap();
        assert_eq!(out.len(), MAX_OUTPUTS);
        assert_eq!(out.last(), Some(&json!(MAX_OUTPUTS - 1)));
        // Infinite generators stop too, and so do programs whose next
        // output would take forever.
        assert_eq!(jq("1", "repeat(.)").unwrap().len(), MAX_OUTPUTS);
        let slow = format!("range({MAX_OUTPUTS}), last(range(1e15))");
        assert_eq!(jq("null", &slow).unwrap().len(), MAX_OUTPUTS);
    }

    #[test]
    fn syntax_error_says_where_and_how() {
        let err = jq("{}", ".items[").unwrap_err();
        let JqError::Syntax(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(
            msg.starts_with("jq syntax error in `.items[`: expected `]`"),
            "{msg}"
        );
        assert!(msg.contains("at offset 7"), "{msg}");
        assert!(msg.contains(SYNTAX_HINT), "{msg}");

        let err = jq("{}", ".a | | .b").unwrap_err();
        let JqError::Syntax(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(
            msg.contains("expected term at offset 5, found `|`"),
            "{msg}"
        );
    }

    #[test]
    fn unknown_filter_is_a_syntax_error() {
        let err = jq("{}", ".a | frobnicate").unwrap_err();
        let JqError::Syntax(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(
            msg.contains("unknown filter `frobnicate` at offset 5"),
            "{msg}"
        );
    }

    #[test]
    fn environment_is_not_exposed() {
        for program in ["env", "$ENV", "$ENV.PATH"] {
            let err = jq("{}", program).unwrap_err();
            let JqError::Syntax(msg) = &err else {
                panic!("{err:?}")
            };
            assert!(msg.contains("environment access is disabled"), "{msg}");
        }
    }

    #[test]
    fn runtime_error_names_the_problem() {
        let err = jq(r#"{"a": "text"}"#, ".a + 1").unwrap_err();
        let JqError::Runtime(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(
            msg.starts_with("jq runtime error in `.a + 1`: cannot"),
            "{msg}"
        );
        assert!(msg.contains(r#""text""#), "{msg}");
        assert!(msg.contains("select(...)"), "{msg}");

        let err = jq("[1, 2, {}]", ".[] | . + 1").unwrap_err();
        let JqError::Runtime(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(msg.contains("after 2 outputs"), "{msg}");
    }

    #[test]
    fn runtime_error_detail_is_bounded() {
        let big = format!(r#"{{"a": "{}"}}"#, "x".repeat(100_000));
        let err = jq(&big, ". + 1").unwrap_err();
        let msg = err.to_string();
        assert!(msg.chars().count() < 1_000, "{} chars", msg.chars().count());
    }

    #[test]
    fn halt_stops_and_halt_error_fails() {
        assert_eq!(jq("null", "1, halt, 2").unwrap(), vec![json!(1)]);
        let err = jq("null", r#""bye" | halt_error"#).unwrap_err();
        assert!(matches!(err, JqError::Runtime(_)), "{err:?}");
    }

    #[test]
    fn invalid_json_is_reported() {
        let err = jq("{not json", ".").unwrap_err();
        let JqError::NotJson(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(msg.contains("not valid JSON"), "{msg}");
        assert!(msg.contains("as text"), "{msg}");

        let err = jq("{\"a\":1}\n{\"a\":2}\n", ".a").unwrap_err();
        let JqError::NotJson(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(msg.contains("more than one JSON value"), "{msg}");

        assert!(matches!(jq("", ".").unwrap_err(), JqError::NotJson(_)));
    }

    #[test]
    fn syntax_is_checked_before_the_document() {
        assert!(matches!(
            jq("{not json", ".[").unwrap_err(),
            JqError::Syntax(_)
        ));
    }
}
