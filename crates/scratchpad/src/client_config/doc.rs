//! One configuration file, parsed in its client's format, with the spelling rules of that format.

use std::ops::Range;

use super::client::{Format, Shape};
use super::tree::{self, Map, Member, Node};
use super::{json, toml};

#[derive(Debug)]
pub struct Doc<'a> {
    pub text: &'a str,
    pub root: Node,
    /// TOML only: where each `[header]` starts, with its key path.
    pub headers: Vec<(usize, Vec<String>)>,
    pub shape: Shape,
    pub eol: &'static str,
}

impl<'a> Doc<'a> {
    /// Parses `text`; the error says where it stops being valid (never what the line holds: it may
    /// be a secret).
    pub fn parse(text: &'a str, shape: Shape) -> Result<Self, String> {
        let (root, headers) = match shape.format {
            Format::Json(flavor) => {
                let root = json::parse(text, flavor).map_err(|err| err.to_string())?;
                if root.as_map().is_none() {
                    return Err("the top level is not a JSON object".to_owned());
                }
                (root, Vec::new())
            }
            Format::Toml => {
                let parsed = toml::parse(text)?;
                (parsed.root, parsed.headers)
            }
        };
        Ok(Self {
            text,
            root,
            headers,
            shape,
            eol: tree::eol(text),
        })
    }

    pub fn is_toml(&self) -> bool {
        self.shape.format == Format::Toml
    }

    pub fn root_map(&self) -> &Map {
        // Checked at parse time for JSON; a TOML document is always a table.
        self.root.as_map().unwrap_or(&EMPTY)
    }

    /// The member holding the servers, if the file has one.
    pub fn servers_member(&self) -> Option<&Member> {
        self.root_map().get(self.shape.servers_key)
    }

    /// The servers, by name, in file order; an error when the servers key holds something else.
    pub fn servers(&self) -> Result<Vec<(&str, &Node)>, String> {
        let Some(member) = self.servers_member() else {
            return Ok(Vec::new());
        };
        let map = member
            .value
            .as_map()
            .ok_or_else(|| format!("`{}` is not an object of servers", self.shape.servers_key))?;
        Ok(map
            .members
            .iter()
            .map(|m| (m.name.as_str(), &m.value))
            .collect())
    }

    pub fn slice(&self, range: Range<usize>) -> &'a str {
        &self.text[range]
    }

    /// A string literal in this format.
    pub fn string(&self, text: &str) -> String {
        toml::basic_string(text)
    }

    /// A key in this format.
    pub fn key(&self, name: &str) -> String {
        if self.is_toml() {
            toml::key(name)
        } else {
            toml::basic_string(name)
        }
    }

    /// What separates a key from its value, copied from `member` when it is plain.
    pub fn assign(&self, member: &Member) -> String {
        let between = self.slice(member.key.end..member.value.span.start);
        let sign = if self.is_toml() { '=' } else { ':' };
        let plain = between.chars().all(|c| c == sign || c == ' ' || c == '\t')
            && between.matches(sign).count() == 1;
        if plain {
            between.to_owned()
        } else if self.is_toml() {
            " = ".to_owned()
        } else {
            ": ".to_owned()
        }
    }

    /// The file's indentation step: its smallest non-empty line indent (a tab if that is a tab).
    pub fn indent_unit(&self) -> String {
        let mut unit: Option<&str> = None;
        for line in self.text.lines() {
            let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
            if indent.is_empty() || line.trim().is_empty() {
                continue;
            }
            if indent.starts_with('\t') {
                return "\t".to_owned();
            }
            if unit.is_none_or(|u| indent.len() < u.len()) {
                unit = Some(indent);
            }
        }
        unit.unwrap_or("  ").to_owned()
    }
}

static EMPTY: Map = Map {
    members: Vec::new(),
    style: tree::MapStyle::Braced,
};

/// Whether a command is this program, whatever directory it is in.
pub fn is_scratchpad(command: &str) -> bool {
    let base = command.rsplit(['/', '\\']).next().unwrap_or(command);
    let base = base.strip_suffix(".exe").unwrap_or(base);
    base == "scratchpad"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratchpad_is_recognised_by_its_file_name() {
        assert!(is_scratchpad("scratchpad"));
        assert!(is_scratchpad("/home/ada/.cargo/bin/scratchpad"));
        assert!(is_scratchpad("C:\\tools\\scratchpad.exe"));
        assert!(!is_scratchpad("npx"));
        assert!(!is_scratchpad("/opt/scratchpad/bin/server"));
    }
}
