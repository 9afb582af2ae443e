//! jq queries over a JSON entry, with a large result shown by its shape and a budgeted start.

use super::source::{self, EntryContent};
use super::{JQ_MAX_BYTES, ReadMode, ReadReply, first_lines, jq};
use crate::advice::{Advice, Call};
use crate::error::{Error, Result};
use crate::figures::thousands;
use crate::model::{EntryInfo, Kind};

pub(super) fn query(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    query: &str,
    budget: u64,
) -> Result<ReadReply> {
    if info.kind != Kind::Json {
        let advice = Advice::text(format!(
            "`{}` is {}, not one JSON document, so jq queries do not apply; read it with ",
            info.name, info.kind
        ));
        let advice = match info.kind {
            Kind::Binary => advice.call(Call::read(
                &info.name,
                ReadMode::Bytes {
                    offset: 0,
                    length: Some(3_000),
                },
            )),
            Kind::Text | Kind::Json => advice
                .call(Call::read(&info.name, ReadMode::grep("PATTERN", 2)))
                .and(" or ")
                .call(first_lines(&info.name)),
        };
        return Err(Error::WrongKind(advice));
    }
    if info.bytes > JQ_MAX_BYTES {
        return Err(Error::TooLarge(Advice::text(format!(
            "`{}` is {} bytes; jq loads the whole document and this build stops at {} bytes. \
             Use grep to find the part you need, then lines to read it",
            info.name,
            thousands(info.bytes),
            thousands(JQ_MAX_BYTES)
        ))));
    }
    let mut document = Vec::with_capacity(usize::try_from(info.bytes).unwrap_or(0));
    content
        .reader_at_byte(0)?
        .with_read_ahead(|reader| std::io::copy(reader, &mut document))
        .map_err(source::from_io)?;
    let values = jq::run_jq_until(&document, query, jq::JqLimits::from_env(), content.stop)
        .map_err(|err| match err {
            jq::JqError::Stopped(message) => Error::Stopped(message.into()),
            jq::JqError::Syntax(message)
            | jq::JqError::Runtime(message)
            | jq::JqError::NotJson(message)
            | jq::JqError::Limit(message) => Error::invalid(message),
        })?;
    let count = values.len();
    let mut notes = Vec::new();
    if count >= jq::MAX_OUTPUTS {
        notes.push(format!(
            "the query produced more than {} results and was stopped there; narrow it or count with \
             `[...] | length`",
            thousands(jq::MAX_OUTPUTS as u64)
        ));
    }
    let mut text = String::new();
    for value in &values {
        let rendered = if count == 1 {
            serde_json::to_string_pretty(value)
        } else {
            serde_json::to_string(value)
        }
        .unwrap_or_default();
        text.push_str(&rendered);
        text.push('\n');
    }
    let total_chars = text.chars().count() as u64;
    let truncated = total_chars > budget;
    if truncated {
        // The result is large itself: show its shape and a budgeted start.
        // One result is a document; several are shaped as the array they would make.
        let (shape, outer) = if count == 1 {
            (
                crate::preview::json_shape(text.as_bytes(), 1_000)
                    .ok()
                    .flatten(),
                format!("{query} | "),
            )
        } else {
            let array = serde_json::to_vec(&values).unwrap_or_default();
            (
                crate::preview::json_shape(array.as_slice(), 1_000)
                    .ok()
                    .flatten(),
                format!("[{query}] | "),
            )
        };
        let (shape, narrower) = match shape {
            // Queries valid for the result, as the shape pass found them: no `keys` of an array,
            // no slice of an object.
            Some(shape) => {
                let queries: Vec<String> = shape
                    .queries
                    .iter()
                    .filter(|q| q.as_str() != ".")
                    .map(|q| format!("`{outer}{q}`"))
                    .collect();
                (shape.preview, queries.join(", "))
            }
            None => (String::new(), format!("`{outer}length`")),
        };
        notes.push(format!(
            "the result has {} characters, over the reply budget; narrow the query (e.g. {narrower}). \
             Its shape:\n{shape}",
            thousands(total_chars)
        ));
        let cut: String = text
            .chars()
            .take(usize::try_from(budget).unwrap_or(usize::MAX))
            .collect();
        text = cut;
        text.push_str("\n…");
    }
    Ok(ReadReply {
        notes,
        truncated,
        ..ReadReply::new(
            info,
            text,
            format!(
                "jq `{}` over {} bytes: {} result{}",
                jq::excerpt(query),
                thousands(info.bytes),
                count,
                if count == 1 { "" } else { "s" }
            ),
        )
    })
}
