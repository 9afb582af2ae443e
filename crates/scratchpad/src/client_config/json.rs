//! JSON and JSONC (comments, and for VS Code trailing commas) read into spans with `jsonc-parser`,
//! which keeps where every key and value is, so edits touch only those tokens. What the parser lets
//! through beyond the client's own reader is refused by a second, strict reading.

use jsonc_parser::ast::{ObjectPropName, Value};
use jsonc_parser::common::Ranged as _;
use jsonc_parser::tokens::Token;
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};

use super::tree::{Kind, Map, MapStyle, Member, Node};

/// What a client's JSON reader accepts beyond strict JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flavor {
    pub comments: bool,
    pub trailing_commas: bool,
}

/// Where the text stops being what the client reads, 1-based.
#[derive(Debug)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at line {}, column {}",
            self.message, self.line, self.column
        )
    }
}

pub fn parse(text: &str, flavor: Flavor) -> Result<Node, SyntaxError> {
    // A byte-order mark is kept as it is; the document starts after it.
    let offset = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let body = &text[offset..];
    let options = ParseOptions {
        allow_comments: flavor.comments,
        allow_trailing_commas: flavor.trailing_commas,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    // Collected as tokens, comments skip the parser's own `allow_comments` check; where the
    // client reads none, the parser skips them itself and refuses them.
    let collect = CollectOptions {
        comments: if flavor.comments {
            CommentCollectionStrategy::AsTokens
        } else {
            CommentCollectionStrategy::Off
        },
        tokens: true,
    };
    let parsed =
        jsonc_parser::parse_to_ast(body, &collect, &options).map_err(|err| SyntaxError {
            line: err.line_display(),
            column: err.column_display(),
            message: sentence(&err.kind().to_string()),
        })?;
    strict_reading(body, parsed.tokens.as_deref().unwrap_or(&[]), flavor)?;
    let value = parsed.value.ok_or_else(|| SyntaxError {
        line: 1,
        column: 1,
        message: "the document ends where a value was expected".to_owned(),
    })?;
    Ok(node(&value, offset))
}

/// The parser's messages start with a capital and run into ours.
fn sentence(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => message.to_owned(),
    }
}

/// The text as strict JSON sees it once comments and, where allowed, trailing commas are blanked
/// out, read by a full JSON parser: numbers, escapes, control characters and whitespace are then
/// held to JSON's rules, as the clients' readers (`JSON.parse` after stripping comments) hold them.
fn strict_reading(
    body: &str,
    tokens: &[jsonc_parser::tokens::TokenAndRange<'_>],
    flavor: Flavor,
) -> Result<(), SyntaxError> {
    let mut blanks = Vec::new();
    let mut pending_comma = None;
    for token in tokens {
        match token.token {
            Token::CommentLine(_) | Token::CommentBlock(_) => blanks.push(token.range),
            Token::Comma => pending_comma = Some(token.range),
            Token::CloseBrace | Token::CloseBracket => {
                if flavor.trailing_commas {
                    blanks.extend(pending_comma.take());
                }
                pending_comma = None;
            }
            _ => pending_comma = None,
        }
    }
    blanks.sort_by_key(|range| range.start);
    let strict = if blanks.is_empty() {
        std::borrow::Cow::Borrowed(body)
    } else {
        let mut strict = String::with_capacity(body.len());
        let mut at = 0;
        for range in blanks {
            strict.push_str(&body[at..range.start]);
            // Line breaks stay, so positions keep their line.
            strict.extend(
                body[range.start..range.end]
                    .chars()
                    .map(|c| if c == '\n' { '\n' } else { ' ' }),
            );
            at = range.end;
        }
        strict.push_str(&body[at..]);
        std::borrow::Cow::Owned(strict)
    };
    serde_json::from_str::<serde::de::IgnoredAny>(&strict).map_err(|err| SyntaxError {
        line: err.line(),
        column: err.column(),
        message: strip_position(&err.to_string()),
    })?;
    Ok(())
}

/// serde_json ends its messages with " at line L column C"; the position is reported separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// The parser's value as spans in the whole text (`offset`: where the body starts in it).
/// Nesting is bounded by the parser (512 levels), and the strict reading before this by 128.
fn node(value: &Value<'_>, offset: usize) -> Node {
    let range = value.range();
    let span = range.start + offset..range.end + offset;
    let kind = match value {
        Value::Object(object) => Kind::Map(Map {
            members: object
                .properties
                .iter()
                .map(|property| {
                    let (key, name) = match &property.name {
                        ObjectPropName::String(lit) => (lit.range, lit.value.clone().into_owned()),
                        ObjectPropName::Word(word) => (word.range, word.value.to_owned()),
                    };
                    Member {
                        key: key.start + offset..key.end + offset,
                        name,
                        value: node(&property.value, offset),
                    }
                })
                .collect(),
            style: MapStyle::Braced,
        }),
        Value::Array(array) => Kind::List(
            array
                .elements
                .iter()
                .map(|item| node(item, offset))
                .collect(),
        ),
        Value::StringLit(lit) => Kind::Str(lit.value.clone().into_owned()),
        Value::NumberLit(_) | Value::BooleanLit(_) | Value::NullKeyword(_) => Kind::Other,
    };
    Node { span, kind }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: Flavor = Flavor {
        comments: false,
        trailing_commas: false,
    };
    const JSONC: Flavor = Flavor {
        comments: true,
        trailing_commas: true,
    };

    #[test]
    fn spans_point_at_the_tokens() {
        let text = "{ \"a\" : [1, \"x\\n\"], \"b\": {} }";
        let root = parse(text, STRICT).unwrap();
        let map = root.as_map().unwrap();
        let a = map.get("a").unwrap();
        assert_eq!(&text[a.key.clone()], "\"a\"");
        assert_eq!(&text[a.value.span.clone()], "[1, \"x\\n\"]");
        assert_eq!(a.value.as_list().unwrap()[1].as_str(), Some("x\n"));
        assert_eq!(&text[map.get("b").unwrap().value.span.clone()], "{}");
    }

    #[test]
    fn comments_and_trailing_commas_only_where_the_client_reads_them() {
        let text = "{\n  // servers\n  \"a\": [1, /* one */],\n}";
        assert!(parse(text, JSONC).is_ok());
        let err = parse(text, STRICT).unwrap_err();
        assert_eq!((err.line, err.column), (2, 3), "{err}");
        let no_trailing = Flavor {
            comments: true,
            trailing_commas: false,
        };
        assert!(
            parse(text, no_trailing)
                .unwrap_err()
                .message
                .contains("trailing comma")
        );
    }

    #[test]
    fn a_byte_order_mark_is_kept_out_of_the_spans() {
        let text = "\u{feff}{\"a\": \"x\"}";
        let root = parse(text, STRICT).unwrap();
        let a = root.as_map().unwrap().get("a").unwrap();
        assert_eq!(&text[a.key.clone()], "\"a\"");
        assert_eq!(&text[a.value.span.clone()], "\"x\"");
    }

    #[test]
    fn outside_comments_and_commas_jsonc_is_held_to_json() {
        for text in [
            "{\"a\": 1-2}",
            "{\"a\": 01}",
            "{\"a\": .5}",
            "{\"a\": 'x'}",
            "{a: 1}",
            "{\"a\":\u{a0}1}",
            "{\"a\": \"tab\there\"}",
            "{\"a\": 1 \"b\": 2}",
        ] {
            assert!(parse(text, JSONC).is_err(), "{text:?}");
        }
        assert!(parse("{\"a\": [1, /* c */ ], /* d */ }", JSONC).is_ok());
    }

    #[test]
    fn broken_documents_are_refused_with_a_position() {
        for text in [
            "{\"a\": }",
            "{\"a\" 1}",
            "[1, 2",
            "{\"a\": \"x}",
            "{} {}",
            "",
        ] {
            assert!(parse(text, JSONC).is_err(), "{text}");
        }
        let err = parse("{\n  \"a\": 01\n}", STRICT).unwrap_err();
        assert_eq!(err.line, 2, "{err}");
    }
}
