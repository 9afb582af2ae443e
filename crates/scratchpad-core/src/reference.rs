//! Pass by reference: `{{scratchpad:NAME}}` placeholders replaced by stored content, whole or a part.

use std::io::Read;

use crate::error::{Error, Result};
use crate::model::Kind;
use crate::read::ReadMode;
use crate::scratchpad::Scratchpad;

/// Largest value one placeholder may expand to (bytes).
pub const RESOLVE_MAX_BYTES: u64 = 256 * 1024 * 1024;

const OPEN: &str = "{{scratchpad:";

impl Scratchpad {
    /// Replaces every `{{scratchpad:NAME}}` (optionally `#lines=A-B`, `#range=A-B`, `#json=QUERY`) in
    /// `text` with the entry's content from this session. `\{{` stands for a literal `{{`.
    /// Unknown names are errors, never left in place.
    pub fn resolve(&self, text: &str) -> Result<String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("{{") {
            let escaped = rest[..at].ends_with('\\');
            if escaped {
                out.push_str(&rest[..at - 1]);
                out.push_str("{{");
                rest = &rest[at + 2..];
                continue;
            }
            out.push_str(&rest[..at]);
            let candidate = &rest[at..];
            if !candidate.starts_with(OPEN) {
                out.push_str("{{");
                rest = &rest[at + 2..];
                continue;
            }
            let Some(close) = candidate.find("}}") else {
                return Err(Error::invalid(format!(
                    "unterminated placeholder `{}`; write {{{{scratchpad:NAME}}}}",
                    candidate.chars().take(60).collect::<String>()
                )));
            };
            let inner = &candidate[OPEN.len()..close];
            out.push_str(&self.expand(inner)?);
            rest = &candidate[close + 2..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// Resolves placeholders inside every string of a JSON value (tool arguments).
    pub fn resolve_json(&self, value: &serde_json::Value) -> Result<serde_json::Value> {
        use serde_json::Value;
        Ok(match value {
            Value::String(s) if s.contains("{{") => Value::String(self.resolve(s)?),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.resolve_json(v))
                    .collect::<Result<_>>()?,
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| Ok((k.clone(), self.resolve_json(v)?)))
                    .collect::<Result<_>>()?,
            ),
            other => other.clone(),
        })
    }

    fn expand(&self, inner: &str) -> Result<String> {
        let (name, selector) = match inner.split_once('#') {
            Some((name, selector)) => (name.trim(), Some(selector)),
            None => (inner.trim(), None),
        };
        let info = self.get(name)?;
        let unbounded = Some(usize::MAX / 2);
        let Some(selector) = selector else {
            if info.bytes > RESOLVE_MAX_BYTES {
                return Err(Error::TooLarge(format!(
                    "`{name}` is {} bytes, over the {} a placeholder may expand to; select a part with #lines=A-B or #range=A-B",
                    crate::preview::thousands(info.bytes),
                    crate::preview::thousands(RESOLVE_MAX_BYTES)
                )));
            }
            if info.kind == Kind::Binary {
                return Err(Error::WrongKind(format!(
                    "`{name}` is binary and cannot be placed into text; pass a text or JSON entry"
                )));
            }
            let (_, mut reader) = self.open_content(name)?;
            let mut text = String::new();
            reader
                .read_to_string(&mut text)
                .map_err(crate::read::source::from_io)?;
            return Ok(text);
        };
        let (key, value) = selector
            .split_once('=')
            .ok_or_else(|| bad_selector(selector))?;
        // A selection that starts past the end would put nothing where the caller expects content.
        let past_end = |what: &str, size: u64| {
            Error::invalid(format!(
                "#{selector} starts past the end of `{name}`, which has {} {what}; \
                 scratchpad_read shows what is there",
                crate::preview::thousands(size)
            ))
        };
        match key {
            "lines" => {
                let (from, to) = parse_span(value).ok_or_else(|| bad_span(selector))?;
                if from > info.lines {
                    return Err(past_end("lines", info.lines));
                }
                let reply = self.read(name, &ReadMode::Lines { from, to: Some(to) }, unbounded)?;
                Ok(reply.unnumbered_lines().collect::<Vec<_>>().join("\n"))
            }
            "range" => {
                let (start, end) = parse_span(value).ok_or_else(|| bad_span(selector))?;
                if start >= info.chars && start > 0 {
                    return Err(past_end("characters", info.chars));
                }
                Ok(self
                    .read(
                        name,
                        &ReadMode::Range {
                            start,
                            end: Some(end),
                        },
                        unbounded,
                    )?
                    .text)
            }
            "json" => {
                let reply = self.read(
                    name,
                    &ReadMode::Json {
                        query: value.to_owned(),
                    },
                    unbounded,
                )?;
                let text = reply.text.trim_end().to_owned();
                // A single string result goes in raw, as `jq -r` would print it.
                Ok(match serde_json::from_str::<serde_json::Value>(&text) {
                    Ok(serde_json::Value::String(s)) => s,
                    _ => text,
                })
            }
            _ => Err(bad_selector(selector)),
        }
    }
}

/// `A-B`, or `N` for `N-N`.
fn parse_span(value: &str) -> Option<(u64, u64)> {
    match value.split_once('-') {
        Some((a, b)) => Some((a.trim().parse().ok()?, b.trim().parse().ok()?)),
        None => value.trim().parse().ok().map(|n| (n, n)),
    }
}

fn bad_span(selector: &str) -> Error {
    Error::invalid(format!(
        "`#{selector}` is not a span: write A-B with whole numbers (lines 1-based and inclusive, \
         e.g. #lines=10-20 or #lines=7; ranges in characters, end exclusive, e.g. #range=0-500)"
    ))
}

fn bad_selector(selector: &str) -> Error {
    Error::invalid(format!(
        "unknown selector `#{selector}`; use #lines=10-20, #range=0-500 or #json=.items[0].id"
    ))
}
