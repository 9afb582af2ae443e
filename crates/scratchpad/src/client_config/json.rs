//! JSON and JSONC (comments, and for VS Code trailing commas) read into spans: a small recursive
//! descent that keeps where every key and value is, so edits touch only those tokens.

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

/// Nesting deeper than this is refused rather than risking the stack (bytes of a file, not a server).
const MAX_DEPTH: usize = 256;

pub fn parse(text: &str, flavor: Flavor) -> Result<Node, SyntaxError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        flavor,
    };
    // A byte-order mark is kept as it is; the document starts after it.
    if text.starts_with('\u{feff}') {
        parser.pos = '\u{feff}'.len_utf8();
    }
    parser.trivia()?;
    let root = parser.value(0)?;
    parser.trivia()?;
    if parser.pos < parser.bytes.len() {
        return Err(parser.error("unexpected text after the end of the document"));
    }
    if !flavor.comments && !flavor.trailing_commas {
        // A second opinion from a full JSON parser for what this reader may let through (number
        // forms, control characters in strings).
        let body = text.trim_start_matches('\u{feff}');
        if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(body) {
            return Err(SyntaxError {
                line: err.line(),
                column: err.column(),
                message: strip_position(&err.to_string()),
            });
        }
    }
    Ok(root)
}

/// serde_json ends its messages with " at line L column C"; the position is reported separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    flavor: Flavor,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> SyntaxError {
        let before = &self.text[..self.pos.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rfind('\n').map_or(before, |i| &before[i + 1..]);
        SyntaxError {
            line,
            column: column.chars().count() + 1,
            message: message.to_owned(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips whitespace and, where allowed, comments.
    fn trivia(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') if self.bytes.get(self.pos + 1) == Some(&b'/') => {
                    if !self.flavor.comments {
                        return Err(self.error("comments are not allowed in this file"));
                    }
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                Some(b'/') if self.bytes.get(self.pos + 1) == Some(&b'*') => {
                    if !self.flavor.comments {
                        return Err(self.error("comments are not allowed in this file"));
                    }
                    let start = self.pos;
                    match self.text[self.pos + 2..].find("*/") {
                        Some(end) => self.pos += 2 + end + 2,
                        None => {
                            self.pos = start;
                            return Err(self.error("a /* comment is never closed"));
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nesting is too deep"));
        }
        let start = self.pos;
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => {
                let text = self.string()?;
                Ok(Node {
                    span: start..self.pos,
                    kind: Kind::Str(text),
                })
            }
            Some(b'-' | b'0'..=b'9') => {
                while self.peek().is_some_and(|b| {
                    b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')
                }) {
                    self.pos += 1;
                }
                Ok(Node {
                    span: start..self.pos,
                    kind: Kind::Other,
                })
            }
            Some(_) => {
                for word in ["true", "false", "null"] {
                    if self.text[self.pos..].starts_with(word) {
                        self.pos += word.len();
                        return Ok(Node {
                            span: start..self.pos,
                            kind: Kind::Other,
                        });
                    }
                }
                Err(self.error("expected a value"))
            }
            None => Err(self.error("the document ends where a value was expected")),
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => self.pos += 2,
                Some(b'\n') | None => {
                    self.pos = start;
                    return Err(self.error("a string is never closed"));
                }
                Some(_) => self.pos += 1,
            }
        }
        let raw = &self.text[start..self.pos.min(self.text.len())];
        serde_json::from_str::<String>(raw).map_err(|_| {
            self.pos = start;
            self.error("a string has an invalid escape")
        })
    }

    fn object(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut members = Vec::new();
        loop {
            self.trivia()?;
            match self.peek() {
                Some(b'}') => {
                    if !members.is_empty() && !self.flavor.trailing_commas {
                        return Err(self.error("a trailing comma is not allowed in this file"));
                    }
                    break;
                }
                Some(b'"') => {}
                _ => return Err(self.error("expected a \"key\" or `}`")),
            }
            let key_start = self.pos;
            let name = self.string()?;
            let key = key_start..self.pos;
            self.trivia()?;
            if self.peek() != Some(b':') {
                return Err(self.error("expected `:` after a key"));
            }
            self.pos += 1;
            self.trivia()?;
            let value = self.value(depth + 1)?;
            members.push(Member { key, name, value });
            self.trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => break,
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
        self.pos += 1;
        Ok(Node {
            span: start..self.pos,
            kind: Kind::Map(Map {
                members,
                style: MapStyle::Braced,
            }),
        })
    }

    fn array(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.trivia()?;
            if self.peek() == Some(b']') {
                if !items.is_empty() && !self.flavor.trailing_commas {
                    return Err(self.error("a trailing comma is not allowed in this file"));
                }
                break;
            }
            items.push(self.value(depth + 1)?);
            self.trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => break,
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
        self.pos += 1;
        Ok(Node {
            span: start..self.pos,
            kind: Kind::List(items),
        })
    }
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
