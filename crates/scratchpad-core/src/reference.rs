//! Pass by reference: `{{scratchpad:NAME}}` placeholders replaced by stored content, whole or a part.

use std::io::Read;

use crate::advice::{Advice, Call};
use crate::error::{Error, Result};
use crate::figures::thousands;
use crate::model::Kind;
use crate::read::ReadMode;
use crate::read::source::{EntryContent, from_io};
use crate::scratchpad::Scratchpad;
use crate::store::Entry;

const OPEN: &str = "{{scratchpad:";

/// What the placeholders of one call may still expand to (bytes).
struct Allowance {
    left: u64,
    limit: u64,
}

impl Allowance {
    fn take(&mut self, bytes: u64) -> Result<()> {
        if bytes > self.left {
            return Err(self.exceeded());
        }
        self.left -= bytes;
        Ok(())
    }

    fn exceeded(&self) -> Error {
        Error::TooLarge(Advice::text(format!(
            "the placeholders of this call expand to more than {} bytes, the limit per call \
             (`resolve_max_bytes` in the configuration); select parts with #lines=A-B or #range=A-B, \
             or pass fewer placeholders",
            thousands(self.limit)
        )))
    }
}

impl Scratchpad {
    /// Replaces every `{{scratchpad:NAME}}` (optionally `#lines=A-B`, `#range=A-B`, `#json=QUERY`) in
    /// `text` with the entry's content from this session. `\{{` stands for a literal `{{`.
    /// Unknown names are errors, never left in place. All placeholders together expand to at most
    /// the configured `resolve_max_bytes`.
    pub fn resolve(&self, text: &str) -> Result<String> {
        self.resolve_within(text, &mut self.allowance())
    }

    /// Resolves placeholders inside every string of a JSON value (tool arguments), all of them
    /// together within one allowance.
    pub fn resolve_json(&self, value: &serde_json::Value) -> Result<serde_json::Value> {
        self.resolve_value(value, &mut self.allowance())
    }

    fn allowance(&self) -> Allowance {
        let limit = self.config().resolve_max_bytes;
        Allowance { left: limit, limit }
    }

    fn resolve_value(
        &self,
        value: &serde_json::Value,
        allowance: &mut Allowance,
    ) -> Result<serde_json::Value> {
        use serde_json::Value;
        Ok(match value {
            Value::String(s) if s.contains("{{") => {
                Value::String(self.resolve_within(s, allowance)?)
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.resolve_value(v, allowance))
                    .collect::<Result<_>>()?,
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| Ok((k.clone(), self.resolve_value(v, allowance)?)))
                    .collect::<Result<_>>()?,
            ),
            other => other.clone(),
        })
    }

    fn resolve_within(&self, text: &str, allowance: &mut Allowance) -> Result<String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("{{") {
            if rest[..at].ends_with('\\') {
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
            let (name, selector) = match inner.split_once('#') {
                Some((name, selector)) => (name.trim(), Some(selector)),
                None => (inner.trim(), None),
            };
            let value = self.with_entry(name, |entry| expand(self, entry, selector, allowance))?;
            out.push_str(&value);
            rest = &candidate[close + 2..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// One placeholder's value: the whole entry, or the part its selector names.
fn expand(
    pad: &Scratchpad,
    entry: &Entry,
    selector: Option<&str>,
    allowance: &mut Allowance,
) -> Result<String> {
    let info = &entry.info;
    let name = &info.name;
    let Some(selector) = selector else {
        if info.kind == Kind::Binary {
            return Err(Error::WrongKind(Advice::text(format!(
                "`{name}` is binary and cannot be placed into text; pass a text or JSON entry"
            ))));
        }
        allowance.take(info.bytes)?;
        let mut text = String::new();
        EntryContent::new(pad.store(), entry)
            .reader_at_byte(0)?
            .read_to_string(&mut text)
            .map_err(from_io)?;
        return Ok(text);
    };
    let (key, value) = selector
        .split_once('=')
        .ok_or_else(|| bad_selector(selector))?;
    // A selection that starts past the end would put nothing where the caller expects content.
    let past_end = |what: &str, size: u64| {
        Error::InvalidArgument(
            Advice::text(format!(
                "#{selector} starts past the end of `{name}`, which has {} {what}; its end is what ",
                thousands(size)
            ))
            .call(Call::read(name, ReadMode::Tail { n: None }))
            .and(" shows"),
        )
    };
    // Read without a cut: the allowance is the bound, and a cut part would be silently wrong.
    let budget = usize::try_from(allowance.left).unwrap_or(usize::MAX);
    let part = |mode: ReadMode| {
        let reply = pad.read_entry(entry, &mode, Some(budget))?;
        if reply.truncated {
            return Err(allowance.exceeded());
        }
        Ok(reply.text)
    };
    let text = match key {
        "lines" => {
            let (from, to) = parse_span(value).ok_or_else(|| bad_span(selector))?;
            if from > info.lines {
                return Err(past_end("lines", info.lines));
            }
            let mut text = part(ReadMode::Lines { from, to })?;
            // Lines come back each with its newline; the selection is the lines between them.
            if text.ends_with('\n') {
                text.pop();
            }
            text
        }
        "range" => {
            let (start, end) = parse_span(value).ok_or_else(|| bad_span(selector))?;
            if start >= info.chars && start > 0 {
                return Err(past_end("characters", info.chars));
            }
            part(ReadMode::Range { start, end })?
        }
        "json" => {
            let text = part(ReadMode::Json {
                query: value.to_owned(),
            })?;
            let text = text.trim_end();
            // A single string result goes in raw, as `jq -r` would print it.
            match serde_json::from_str::<serde_json::Value>(text) {
                Ok(serde_json::Value::String(s)) => s,
                _ => text.to_owned(),
            }
        }
        _ => return Err(bad_selector(selector)),
    };
    allowance.take(text.len() as u64)?;
    Ok(text)
}

/// `A-B`, `A-` (to the end), or `N` for `N-N`.
fn parse_span(value: &str) -> Option<(u64, Option<u64>)> {
    match value.split_once('-') {
        Some((a, b)) if b.trim().is_empty() => Some((a.trim().parse().ok()?, None)),
        Some((a, b)) => Some((a.trim().parse().ok()?, Some(b.trim().parse().ok()?))),
        None => value.trim().parse().ok().map(|n| (n, Some(n))),
    }
}

fn bad_span(selector: &str) -> Error {
    Error::invalid(format!(
        "`#{selector}` is not a span: write A-B with whole numbers (lines 1-based and inclusive, \
         e.g. #lines=10-20, #lines=7 or #lines=7- for the rest; ranges in characters, end exclusive, \
         e.g. #range=0-500)"
    ))
}

fn bad_selector(selector: &str) -> Error {
    Error::invalid(format!(
        "unknown selector `#{selector}`; use #lines=10-20, #range=0-500 or #json=.items[0].id"
    ))
}

#[cfg(test)]
mod tests {
    use super::parse_span;

    #[test]
    fn spans_take_the_forms_every_range_argument_takes() {
        assert_eq!(parse_span("10-20"), Some((10, Some(20))));
        assert_eq!(parse_span("7"), Some((7, Some(7))));
        assert_eq!(parse_span("7-"), Some((7, None)));
        assert_eq!(parse_span("x-2"), None);
    }
}
