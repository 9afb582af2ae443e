//! TOML (Codex) read with `toml_edit`, which keeps the span of every key, value and table header;
//! the edits are then made on the text itself, like the JSON ones.

use std::ops::Range;

use toml_edit::{Item, Table, Value};

use super::tree::{Kind, Map, MapStyle, Member, Node};

/// A parsed document: its root table as nodes, and where each `[header]` starts with its path.
#[derive(Debug)]
pub struct Parsed {
    pub root: Node,
    pub headers: Vec<(usize, Vec<String>)>,
}

pub fn parse(text: &str) -> Result<Parsed, String> {
    let document = toml_edit::Document::parse(text).map_err(|err| describe(text, &err))?;
    let mut headers = Vec::new();
    let root = table(document.as_table(), &[], &mut headers);
    headers.sort_by_key(|(start, _)| *start);
    Ok(Parsed { root, headers })
}

/// The parser's message, first line only (the rest repeats the offending line, which may hold a
/// secret), with the position.
fn describe(text: &str, err: &toml_edit::TomlError) -> String {
    let message = err
        .message()
        .lines()
        .next()
        .unwrap_or("invalid TOML")
        .trim();
    match err.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rfind('\n').map_or(before, |i| &before[i + 1..]);
            format!(
                "{message} at line {line}, column {}",
                column.chars().count() + 1
            )
        }
        None => message.to_owned(),
    }
}

fn span(range: Option<Range<usize>>) -> Range<usize> {
    range.unwrap_or(0..0)
}

fn table(table: &Table, path: &[String], headers: &mut Vec<(usize, Vec<String>)>) -> Node {
    let style = if table.is_implicit() || table.is_dotted() {
        MapStyle::Implied
    } else {
        MapStyle::Block
    };
    if style == MapStyle::Block
        && let Some(header) = table.span()
        && !path.is_empty()
    {
        headers.push((header.start, path.to_vec()));
    }
    let mut members = Vec::new();
    for (name, item) in table.iter() {
        let key = span(table.key(name).and_then(|key| key.span()));
        let mut child_path = path.to_vec();
        child_path.push(name.to_owned());
        let value = match item {
            Item::Table(sub) => self::table(sub, &child_path, headers),
            Item::Value(value) => self::value(value),
            Item::ArrayOfTables(array) => {
                for sub in array.iter() {
                    if let Some(header) = sub.span() {
                        headers.push((header.start, child_path.clone()));
                    }
                }
                Node {
                    span: span(array.span()),
                    kind: Kind::Other,
                }
            }
            Item::None => continue,
        };
        members.push(Member {
            key,
            name: name.to_owned(),
            value,
        });
    }
    members.sort_by_key(|member| member.key.start);
    Node {
        span: span(table.span()),
        kind: Kind::Map(Map { members, style }),
    }
}

fn value(value: &Value) -> Node {
    let kind = match value {
        Value::String(text) => Kind::Str(text.value().clone()),
        Value::Array(array) => Kind::List(array.iter().map(self::value).collect()),
        Value::InlineTable(inline) => {
            let mut members: Vec<Member> = inline
                .iter()
                .map(|(name, item)| Member {
                    key: span(inline.key(name).and_then(|key| key.span())),
                    name: name.to_owned(),
                    value: self::value(item),
                })
                .collect();
            members.sort_by_key(|member| member.key.start);
            let dotted = inline
                .iter()
                .any(|(_, item)| matches!(item, Value::InlineTable(sub) if sub.is_dotted()));
            Kind::Map(Map {
                members,
                style: if dotted {
                    MapStyle::Implied
                } else {
                    MapStyle::Braced
                },
            })
        }
        Value::Integer(_) | Value::Float(_) | Value::Boolean(_) | Value::Datetime(_) => Kind::Other,
    };
    Node {
        span: span(value.span()),
        kind,
    }
}

/// A string as a TOML key: bare when it can be, quoted otherwise.
pub fn key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        name.to_owned()
    } else {
        basic_string(name)
    }
}

/// A TOML basic string. JSON's escapes are a subset of TOML's and serde_json never writes `\/`, so
/// its encoding is a valid TOML string.
pub fn basic_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_headers() {
        let text = "model = \"o3\"\n[mcp_servers.docs]\ncommand = 'npx' # run\nargs = [\"-y\"]\n\
                    [mcp_servers.docs.env]\nA = \"1\"\n[mcp_servers.web]\nurl = \"https://x\"\n";
        let parsed = parse(text).unwrap();
        let root = parsed.root.as_map().unwrap();
        let servers = root.get("mcp_servers").unwrap().value.as_map().unwrap();
        assert_eq!(servers.style, MapStyle::Implied);
        let docs = servers.get("docs").unwrap().value.as_map().unwrap();
        assert_eq!(docs.style, MapStyle::Block);
        let command = docs.get("command").unwrap();
        assert_eq!(&text[command.value.span.clone()], "'npx'");
        assert_eq!(command.value.as_str(), Some("npx"));
        let paths: Vec<String> = parsed.headers.iter().map(|(_, p)| p.join(".")).collect();
        assert_eq!(
            paths,
            [
                "mcp_servers.docs",
                "mcp_servers.docs.env",
                "mcp_servers.web"
            ]
        );
    }

    #[test]
    fn errors_name_the_position_not_the_line() {
        let err = parse("a = 1\nb = \"secret\n").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
        assert!(!err.contains("secret"), "{err}");
    }

    #[test]
    fn keys_are_bare_when_they_can_be() {
        assert_eq!(key("scratchpad"), "scratchpad");
        assert_eq!(key("my server"), "\"my server\"");
    }
}
