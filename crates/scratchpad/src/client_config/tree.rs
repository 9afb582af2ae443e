//! A configuration file seen as the few shapes the edits need (maps, lists, strings), each with its
//! byte span in the original text. Edits are byte ranges replaced in that text, so everything they do
//! not touch (comments, key order, indentation, line endings) stays as it was.

use std::ops::Range;

/// A value and where it sits in the text.
#[derive(Debug, Clone)]
pub struct Node {
    pub span: Range<usize>,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Map(Map),
    List(Vec<Node>),
    /// A string, decoded.
    Str(String),
    Other,
}

#[derive(Debug, Clone)]
pub struct Map {
    pub members: Vec<Member>,
    pub style: MapStyle,
}

/// How a map is written, which decides how a member is added to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapStyle {
    /// `{ … }`: a JSON object or a TOML inline table; the span starts at `{` and ends after `}`.
    Braced,
    /// A TOML `[table]`: members are `key = value` lines; the span is the header.
    Block,
    /// A TOML table made of dotted keys or implied by a header; members can't be added safely.
    Implied,
}

#[derive(Debug, Clone)]
pub struct Member {
    /// The key token as written (quotes included).
    pub key: Range<usize>,
    pub name: String,
    pub value: Node,
}

impl Node {
    pub fn as_map(&self) -> Option<&Map> {
        match &self.kind {
            Kind::Map(map) => Some(map),
            Kind::List(_) | Kind::Str(_) | Kind::Other => None,
        }
    }

    pub fn as_list(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::List(items) => Some(items),
            Kind::Map(_) | Kind::Str(_) | Kind::Other => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(text) => Some(text),
            Kind::Map(_) | Kind::List(_) | Kind::Other => None,
        }
    }

    /// The items of a list of strings, decoded; `None` when it is not one.
    pub fn strings(&self) -> Option<Vec<&str>> {
        self.as_list()?.iter().map(Node::as_str).collect()
    }
}

impl Map {
    /// The member named `name` (the last one if the file repeats it, as clients read it).
    pub fn get(&self, name: &str) -> Option<&Member> {
        self.members.iter().rev().find(|member| member.name == name)
    }
}

/// Byte-range replacements over one text, applied together.
#[derive(Debug, Default, Clone)]
pub struct Edits {
    changes: Vec<(Range<usize>, String)>,
}

impl Edits {
    pub fn replace(&mut self, range: Range<usize>, text: impl Into<String>) {
        self.changes.push((range, text.into()));
    }

    pub fn insert(&mut self, at: usize, text: impl Into<String>) {
        self.changes.push((at..at, text.into()));
    }

    pub fn remove(&mut self, range: Range<usize>) {
        self.changes.push((range, String::new()));
    }

    pub fn extend(&mut self, other: Edits) {
        self.changes.extend(other.changes);
    }

    /// The text with every change made; `None` when two changes overlap (a bug in the rules that made
    /// them, reported instead of writing a mangled file).
    pub fn apply(&self, text: &str) -> Option<String> {
        let mut changes: Vec<&(Range<usize>, String)> = self.changes.iter().collect();
        // Back to front, so earlier offsets stay valid; at one offset an insertion goes before a
        // replacement that starts there.
        changes.sort_by_key(|(range, _)| (std::cmp::Reverse(range.start), range.is_empty()));
        let mut out = text.to_owned();
        let mut limit = text.len();
        for (range, replacement) in changes {
            if range.end > limit || range.start > range.end {
                return None;
            }
            out.replace_range(range.clone(), replacement);
            limit = range.start;
        }
        Some(out)
    }
}

/// The line ending the file uses (CRLF when any line has one).
pub fn eol(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// Where the line holding `pos` starts.
pub fn line_start(text: &str, pos: usize) -> usize {
    text[..pos].rfind('\n').map_or(0, |i| i + 1)
}

/// Just after the line break that ends the line holding `pos` (the text's end on the last line).
pub fn next_line(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1)
}

/// The spaces and tabs that start the line holding `pos`.
pub fn indent_at(text: &str, pos: usize) -> &str {
    let start = line_start(text, pos);
    let line = &text[start..];
    let end = line
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(line.len());
    &line[..end]
}

/// The whitespace run that ends at `pos`.
pub fn space_before(text: &str, pos: usize) -> &str {
    let start = text[..pos]
        .rfind(|c: char| !c.is_whitespace())
        .map_or(0, |i| i + 1);
    &text[start..pos]
}

/// The part of a whitespace run from its last line break on (`\r\n` kept whole), if it has one.
pub fn last_line_break(space: &str) -> Option<&str> {
    let newline = space.rfind('\n')?;
    let start = if space[..newline].ends_with('\r') {
        newline - 1
    } else {
        newline
    };
    Some(&space[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_back_to_front_and_refuse_overlaps() {
        let mut edits = Edits::default();
        edits.replace(0..1, "A");
        edits.insert(1, "+");
        edits.replace(1..2, "B");
        edits.remove(3..4);
        assert_eq!(edits.apply("abcd").as_deref(), Some("A+Bc"));
        let mut overlapping = Edits::default();
        overlapping.replace(0..3, "x");
        overlapping.replace(2..4, "y");
        assert_eq!(overlapping.apply("abcd"), None);
    }

    #[test]
    fn layout_helpers() {
        let text = "{\r\n    \"a\": 1\r\n}";
        assert_eq!(eol(text), "\r\n");
        let a = text.find("\"a\"").unwrap();
        assert_eq!(indent_at(text, a), "    ");
        assert_eq!(space_before(text, a), "\r\n    ");
        assert_eq!(last_line_break(space_before(text, a)), Some("\r\n    "));
        assert_eq!(next_line(text, a), text.find("}").unwrap());
    }
}
