//! Query strings: the read modes of the CLI as query parameters (`?grep=RE&context=2`,
//! `?lines=A-B`, `?range=A-B`, `?jq=QUERY`, `?version=N`), parsed and written in one place, so that
//! a continuation, a link and an error's suggestion spell a read the same way the address bar does.

use std::collections::HashMap;

use scratchpad_core::ReadMode;

use crate::failure::Failure;

/// Parsed query parameters; a repeated key keeps its first value.
#[derive(Debug, Default, Clone)]
pub(crate) struct Query(HashMap<String, String>);

impl Query {
    pub fn parse(raw: Option<&str>) -> Self {
        let mut map = HashMap::new();
        for (key, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            map.entry(key.into_owned())
                .or_insert_with(|| value.into_owned());
        }
        Self(map)
    }

    /// A parameter, if given and not blank.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .get(key)
            .map(String::as_str)
            .filter(|value| !value.trim().is_empty())
    }

    /// Whether a parameter is present at all (`?summary` counts).
    pub fn has(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// A whole number parameter, if given.
    pub fn number(&self, key: &str) -> Result<Option<u64>, Failure> {
        self.get(key)
            .map(|text| {
                text.trim().replace(',', "").parse::<u64>().map_err(|_| {
                    Failure::bad_request(format!(
                        "`{key}` must be a whole number, not `{}`",
                        shown(text)
                    ))
                })
            })
            .transpose()
    }

    /// A flag parameter: present and not `0`/`false`/`off`.
    pub fn flag(&self, key: &str) -> bool {
        self.0
            .get(key)
            .is_some_and(|value| !matches!(value.trim(), "0" | "false" | "off"))
    }

    /// The read the parameters ask for, if any. Only one mode may be given.
    pub fn read_mode(&self) -> Result<Option<ReadMode>, Failure> {
        let given: Vec<&str> = MODE_KEYS
            .iter()
            .copied()
            .filter(|key| self.has(key))
            .collect();
        if given.len() > 1 {
            return Err(Failure::bad_request(format!(
                "give one way to read at a time, not {}",
                given.join(" and ")
            )));
        }
        let Some(key) = given.first() else {
            return Ok(None);
        };
        let mode = match *key {
            "grep" => {
                let pattern = self.get("grep").ok_or_else(|| {
                    Failure::bad_request("`grep` needs a regular expression, e.g. ?grep=ERROR")
                })?;
                let context = self.number("context")?.unwrap_or(0);
                if context > MAX_GREP_CONTEXT {
                    return Err(Failure::bad_request(format!(
                        "`context` is at most {MAX_GREP_CONTEXT} lines around each match"
                    )));
                }
                ReadMode::Grep {
                    pattern: pattern.to_owned(),
                    context,
                    max_matches: self.number("max")?,
                    ignore_case: self.flag("i"),
                    from: self.number("from")?,
                }
            }
            "lines" => {
                let (from, to) = span(self.get("lines"), "lines", true)?;
                ReadMode::Lines { from, to }
            }
            "range" => {
                let (start, end) = span(self.get("range"), "range", false)?;
                ReadMode::Range { start, end }
            }
            "bytes" => {
                let (offset, end) = span(self.get("bytes"), "bytes", false)?;
                ReadMode::Bytes {
                    offset,
                    length: end.map(|end| end - offset),
                }
            }
            "jq" => ReadMode::Json {
                query: self
                    .get("jq")
                    .ok_or_else(|| Failure::bad_request("`jq` needs a query, e.g. ?jq=.items[0]"))?
                    .to_owned(),
            },
            "head" => ReadMode::Head {
                n: self.number("head")?,
            },
            "tail" => ReadMode::Tail {
                n: self.number("tail")?,
            },
            "summary" => ReadMode::Summary {
                from: self.number("summary")?,
            },
            _ => ReadMode::Full {
                force: self.flag("force"),
            },
        };
        Ok(Some(mode))
    }
}

/// The keys that each name a read mode.
const MODE_KEYS: [&str; 9] = [
    "grep", "lines", "range", "bytes", "jq", "head", "tail", "summary", "full",
];

/// Context lines a grep may ask for around each match (the diff's limit too).
pub(crate) const MAX_GREP_CONTEXT: u64 = 100;

/// `A-B`, `A-` or (for lines) `A`; the en dash of the replies' headers works too.
fn span(text: Option<&str>, key: &str, lines: bool) -> Result<(u64, Option<u64>), Failure> {
    let usage = || {
        Failure::bad_request(if lines {
            format!(
                "`{key}` is FROM-TO with 1-based line numbers (e.g. 10-20), FROM- for the rest, or one line"
            )
        } else {
            format!(
                "`{key}` is FROM-TO with 0-based offsets, end exclusive (e.g. 0-2000), or FROM-"
            )
        })
    };
    let text = text.ok_or_else(usage)?.trim().replace(',', "");
    let number = |s: &str| s.trim().parse::<u64>().map_err(|_| usage());
    let (from, to) = match text.split_once(['-', '–']) {
        Some((from, to)) if to.trim().is_empty() => (number(from)?, None),
        Some((from, to)) => (number(from)?, Some(number(to)?)),
        None if lines => {
            let line = number(&text)?;
            (line, Some(line))
        }
        None => return Err(usage()),
    };
    if lines && (from == 0 || to == Some(0)) {
        return Err(Failure::bad_request(
            "lines are numbered from 1; ask for line 1 or later",
        ));
    }
    if to.is_some_and(|to| to < from) {
        return Err(Failure::bad_request(format!(
            "`{key}` starts at {from}, after its end {}",
            to.unwrap_or(from)
        )));
    }
    Ok((from, to))
}

/// The query parameters that ask for `mode` (the inverse of [`Query::read_mode`]).
pub(crate) fn mode_params(mode: &ReadMode) -> Vec<(&'static str, String)> {
    let range = |from: u64, to: Option<u64>| match to {
        Some(to) => format!("{from}-{to}"),
        None => format!("{from}-"),
    };
    match mode {
        ReadMode::Head { n } => vec![("head", n.map(|n| n.to_string()).unwrap_or_default())],
        ReadMode::Tail { n } => vec![("tail", n.map(|n| n.to_string()).unwrap_or_default())],
        ReadMode::Range { start, end } => vec![("range", range(*start, *end))],
        ReadMode::Lines { from, to } => vec![("lines", range(*from, *to))],
        ReadMode::Grep {
            pattern,
            context,
            max_matches,
            ignore_case,
            from,
        } => {
            let mut params = vec![("grep", pattern.clone())];
            if *context > 0 {
                params.push(("context", context.to_string()));
            }
            if let Some(max) = max_matches {
                params.push(("max", max.to_string()));
            }
            if *ignore_case {
                params.push(("i", "1".to_owned()));
            }
            if let Some(from) = from {
                params.push(("from", from.to_string()));
            }
            params
        }
        ReadMode::Json { query } => vec![("jq", query.clone())],
        ReadMode::Bytes { offset, length } => {
            vec![("bytes", range(*offset, length.map(|l| offset + l)))]
        }
        ReadMode::Full { force } => {
            let mut params = vec![("full", "1".to_owned())];
            if *force {
                params.push(("force", "1".to_owned()));
            }
            params
        }
        ReadMode::Summary { from } => {
            vec![("summary", from.map(|f| f.to_string()).unwrap_or_default())]
        }
    }
}

/// `key=value&…`, each part encoded.
pub(crate) fn encode(params: &[(&str, String)]) -> String {
    let mut serializer = form_urlencoded::Serializer::new(String::new());
    for (key, value) in params {
        serializer.append_pair(key, value);
    }
    serializer.finish()
}

/// A user's value as a message quotes it: short, without control characters.
pub(crate) fn shown(text: &str) -> String {
    const MAX_CHARS: usize = 60;
    let clean: String = text
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_CHARS)
        .collect();
    if text.chars().count() > MAX_CHARS {
        format!("{clean}…")
    } else {
        clean
    }
}

/// A path segment, percent-encoded (names and sessions are plain already; this keeps it so).
pub(crate) fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-' => (b as char).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// The address of a session's page.
pub(crate) fn session_path(session: &str) -> String {
    format!("/s/{}", segment(session))
}

/// The address of an entry's page.
pub(crate) fn entry_path(session: &str, name: &str) -> String {
    format!("/s/{}/e/{}", segment(session), segment(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(query: &str) -> Option<ReadMode> {
        Query::parse(Some(query)).read_mode().unwrap()
    }

    #[test]
    fn every_mode_survives_a_round_trip_through_the_address_bar() {
        let modes = [
            ReadMode::Lines {
                from: 211_987,
                to: Some(212_010),
            },
            ReadMode::Lines { from: 5, to: None },
            ReadMode::Range {
                start: 0,
                end: Some(2_000),
            },
            ReadMode::grep("ERROR|panic", 2),
            ReadMode::Grep {
                pattern: "a&b=c d".into(),
                context: 0,
                max_matches: Some(10),
                ignore_case: true,
                from: Some(40),
            },
            ReadMode::Json {
                query: ".items[] | select(.id == 3)".into(),
            },
            ReadMode::Bytes {
                offset: 16,
                length: Some(48),
            },
            ReadMode::Head { n: Some(100) },
            ReadMode::Tail { n: None },
            ReadMode::Summary { from: Some(3) },
            ReadMode::Full { force: true },
        ];
        for original in modes {
            let query = encode(&mode_params(&original));
            assert_eq!(mode(&query), Some(original), "{query}");
        }
    }

    #[test]
    fn bad_spans_say_what_a_span_is() {
        for query in ["lines=0-3", "lines=9-3", "lines=x", "range=7", "grep=&x=1"] {
            let err = Query::parse(Some(query)).read_mode().unwrap_err();
            assert_eq!(err.status, http::StatusCode::BAD_REQUEST, "{query}");
        }
        assert_eq!(
            mode("lines=211,987–212,010"),
            Some(ReadMode::Lines {
                from: 211_987,
                to: Some(212_010)
            })
        );
        assert!(Query::parse(Some("lines=1&grep=x")).read_mode().is_err());
    }

    #[test]
    fn segments_stay_plain_or_get_encoded() {
        assert_eq!(segment("read_file-7.log"), "read_file-7.log");
        assert_eq!(segment("a/b c"), "a%2Fb%20c");
    }
}
