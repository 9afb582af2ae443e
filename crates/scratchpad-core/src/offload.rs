//! The offload policy, the one place that decides what of a tool's output the model sees: an
//! observation under its tool's threshold passes through untouched; above it, each large part is
//! stored whole and replaced by a reference with a preview. Faces only map their own content (MCP
//! content blocks, a function's return value) to [`Part`]s and back.

use std::borrow::Cow;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::advice::{Call, Speak, code_span};
use crate::config::Ttl;
use crate::error::{Error, Result};
use crate::model::{EntryInfo, Kind, Source};
use crate::read::{ReadMode, Stop};
use crate::scratchpad::{PutOptions, Scratchpad};
use crate::store::WriteCondition;

/// Metadata values larger than this (bytes of JSON) are not carried into a reference.
const SMALL_METADATA_BYTES: usize = 256;
/// In an observation over the threshold, parts at most this large (bytes) stay inline: a one-line
/// status next to a megabyte of data is cheaper shown than referenced.
pub const PART_INLINE_BYTES: usize = 512;

/// A tool's output as it would have entered the context.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The tool that produced it: its threshold applies, and automatic names are `<tool>_<n>`.
    pub tool: String,
    pub parts: Vec<Part>,
    /// Small fields of the original (path, status code, encoding…), kept in the references.
    pub metadata: Map<String, Value>,
    /// The tool's arguments; only a digest is stored.
    pub args: Option<Value>,
    /// The server the tool ran on.
    pub server: Option<String>,
    /// The tool reported a failure; the references say so too.
    pub is_error: bool,
    /// Keep the output under this name, whatever its size.
    pub save_as: Option<String>,
}

impl Observation {
    /// An observation of `tool` made of `parts`, with nothing else known.
    pub fn new(tool: impl Into<String>, parts: Vec<Part>) -> Self {
        Self {
            tool: tool.into(),
            parts,
            metadata: Map::new(),
            args: None,
            server: None,
            is_error: false,
            save_as: None,
        }
    }

    /// A tool's text output.
    pub fn text(tool: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(tool, vec![Part::text(text)])
    }
}

/// One piece of an observation, with small facts about it (`mimeType`, `uri`) kept in its reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub content: Content,
    pub metadata: Map<String, Value>,
}

/// What a part holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Text(String),
    /// A JSON value, e.g. an MCP result's structured content.
    Json(Value),
    /// Bytes such as an image.
    Binary(Binary),
}

impl Part {
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(Content::Text(text.into()))
    }

    pub fn json(value: Value) -> Self {
        Self::new(Content::Json(value))
    }

    pub fn new(content: Content) -> Self {
        Self {
            content,
            metadata: Map::new(),
        }
    }

    #[must_use]
    pub fn with_metadata(mut self, metadata: Map<String, Value>) -> Self {
        self.metadata = metadata;
        self
    }
}

/// Binary data as it arrived: decoded only if it is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binary {
    Bytes(Vec<u8>),
    Base64(String),
}

/// What became of one part.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "a handful per tool call, read once by the face; boxing buys nothing"
)]
pub enum PartOutcome {
    /// Shown as it was.
    Inline,
    /// Stored whole; the reference stands in for it.
    Stored(Reference),
    /// The same payload as the part at this index (structured content repeating the text): its
    /// reference stands in for both.
    SameAs(usize),
}

/// What [`Scratchpad::offload`] did, part by part.
#[derive(Debug, Clone, PartialEq)]
pub struct Offload {
    pub parts: Vec<PartOutcome>,
    /// The whole output, saved under `save_as` although it was small enough to show whole (or no
    /// part was large enough to store on its own).
    pub saved: Option<EntryInfo>,
}

impl Offload {
    /// Nothing was replaced: show the observation as it was.
    pub fn is_inline(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, PartOutcome::Inline))
    }

    /// The entry `save_as` named, if the name was used.
    pub fn named(&self, save_as: &str) -> Option<&EntryInfo> {
        self.saved
            .iter()
            .chain(self.parts.iter().filter_map(|p| match p {
                PartOutcome::Stored(reference) => Some(&reference.entry),
                PartOutcome::Inline | PartOutcome::SameAs(_) => None,
            }))
            .find(|entry| entry.name == save_as)
    }
}

/// A stored part, as the model is told about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub entry: EntryInfo,
    /// Small fields of the original kept with it.
    pub metadata: Map<String, Value>,
    /// False when the tool reported a failure.
    pub ok: bool,
}

impl Reference {
    /// The §4 observation that replaces the part, with the hint in the face's syntax.
    pub fn observation(&self, speak: &dyn Speak) -> OffloadedObservation {
        let info = &self.entry;
        OffloadedObservation {
            ok: self.ok,
            scratchpad: info.name.clone(),
            id: info.id.clone(),
            kind: info.kind,
            bytes: info.bytes,
            chars: info.chars,
            lines: info.lines,
            tokens_est: info.tokens_est(),
            preview: info.preview.clone(),
            metadata: self.metadata.clone(),
            hint: hint(info).render(speak),
        }
    }
}

/// What replaces a large part in the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OffloadedObservation {
    pub ok: bool,
    /// The entry's name: pass it to read tools, or as `{{scratchpad:NAME}}` in arguments.
    pub scratchpad: String,
    pub id: String,
    pub kind: Kind,
    pub bytes: u64,
    pub chars: u64,
    pub lines: u64,
    pub tokens_est: u64,
    pub preview: String,
    #[serde(skip_serializing_if = "Map::is_empty", default)]
    pub metadata: Map<String, Value>,
    pub hint: String,
}

/// How to read more of an entry: calls that work on it as written, in the face's syntax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub name: String,
    /// The read that finds what matters most in it, and what it will find.
    pub finds: Option<(Call, String)>,
    /// Other reads worth knowing.
    pub reads: Vec<Call>,
}

impl Hint {
    /// "Full output saved as `x`. C finds …. Read slices with A or B. Pass it whole to another
    /// tool as {{scratchpad:x}}."
    pub fn render(&self, speak: &dyn Speak) -> String {
        let name = &self.name;
        let mut out = format!("Full output saved as `{name}`.");
        if let Some((call, finds)) = &self.finds {
            out.push_str(&format!(" {} finds {finds}.", code_span(&speak.call(call))));
        }
        let calls: Vec<String> = self
            .reads
            .iter()
            .map(|call| code_span(&speak.call(call)))
            .collect();
        match calls.split_last() {
            Some((last, [])) => out.push_str(&format!(" Read slices with {last}.")),
            Some((last, rest)) => {
                out.push_str(&format!(" Read slices with {} or {last}.", rest.join(", ")));
            }
            None => {}
        }
        out.push_str(&format!(
            " Pass it whole to another tool as `{{{{scratchpad:{name}}}}}`."
        ));
        out
    }
}

/// The reads suggested for an entry: for text, the search its preview found the most severe
/// lines with (when there are any), else its templates, then its start and end.
pub fn hint(info: &EntryInfo) -> Hint {
    let name = &info.name;
    let read = |mode| Call::read(name, mode);
    let first_lines = || {
        read(ReadMode::Lines {
            from: 1,
            to: Some(100),
        })
    };
    let (finds, reads) = match info.kind {
        Kind::Text => {
            let finds = info
                .profile
                .as_ref()
                .and_then(|profile| profile.grep.as_ref())
                .map(|grep| {
                    let mode = ReadMode::Grep {
                        pattern: grep.pattern.clone(),
                        context: u64::from(grep.context),
                        max_matches: None,
                        ignore_case: grep.ignore_case,
                        from: None,
                    };
                    (read(mode), grep.finds.clone())
                });
            let mut reads = Vec::new();
            if finds.is_none() {
                reads.push(read(ReadMode::Summary { from: None }));
            }
            reads.push(first_lines());
            reads.push(read(ReadMode::Tail { n: Some(100) }));
            (finds, reads)
        }
        Kind::Json => {
            // The queries the JSON pass found valid for this document; `type` is valid for any
            // (entries stored before the pass learned them).
            let queries = info
                .profile
                .as_ref()
                .map(|profile| profile.json_queries.as_slice())
                .filter(|queries| !queries.is_empty())
                .unwrap_or(&[]);
            let mut reads: Vec<Call> = if queries.is_empty() {
                vec![read(ReadMode::Json {
                    query: "type".into(),
                })]
            } else {
                queries
                    .iter()
                    .map(|query| {
                        read(ReadMode::Json {
                            query: query.clone(),
                        })
                    })
                    .collect()
            };
            // Queries chosen from the data say what the first one finds.
            let finds = info
                .profile
                .as_ref()
                .and_then(|profile| profile.json_finds.clone())
                .filter(|_| !queries.is_empty())
                .map(|finds| (reads.remove(0), finds));
            (finds, reads)
        }
        Kind::Binary => (
            None,
            vec![read(ReadMode::Bytes {
                offset: 0,
                length: Some(3_000),
            })],
        ),
    };
    Hint {
        name: name.clone(),
        finds,
        reads,
    }
}

/// A part on its way through the policy: its size in the context, and its JSON serialized once.
struct Sized {
    context_bytes: usize,
    json: Option<Vec<u8>>,
}

fn measure(part: &Part) -> Sized {
    match &part.content {
        Content::Text(text) => Sized {
            context_bytes: text.len(),
            json: None,
        },
        Content::Json(value) => {
            let json = serde_json::to_vec(value).unwrap_or_default();
            Sized {
                context_bytes: json.len(),
                json: Some(json),
            }
        }
        Content::Binary(Binary::Base64(text)) => Sized {
            context_bytes: text.len(),
            json: None,
        },
        Content::Binary(Binary::Bytes(bytes)) => Sized {
            context_bytes: bytes.len().div_ceil(3) * 4,
            json: None,
        },
    }
}

impl Scratchpad {
    /// Applies the offload policy. Under the tool's threshold (all parts together, as they would
    /// enter the context) every part stays inline; with `save_as` the whole output is also stored
    /// under that name. Over it, every part larger than [`PART_INLINE_BYTES`] (or the threshold, if
    /// smaller) is stored whole (binary as binary) and replaced by a reference, and at least the
    /// largest part is; JSON that repeats an earlier stored text points at the text's entry;
    /// `save_as` names the largest stored part.
    pub fn offload(&self, observation: &Observation) -> Result<Offload> {
        self.offload_until(observation, Stop::default())
    }

    /// [`offload`](Self::offload), giving up as `stop` says while a part is stored. Parts stored
    /// before it gave up stay stored; the part it was storing leaves nothing.
    pub fn offload_until(&self, observation: &Observation, stop: Stop<'_>) -> Result<Offload> {
        if let Some(name) = &observation.save_as {
            crate::model::validate_name("name", name)?;
        }
        let sized: Vec<Sized> = observation.parts.iter().map(measure).collect();
        let total: usize = sized.iter().map(|s| s.context_bytes).sum();
        let mut outcomes = vec![PartOutcome::Inline; observation.parts.len()];
        if !self.is_large(Some(&observation.tool), total as u64) {
            let saved = match &observation.save_as {
                Some(name) => Some(self.save_whole(observation, &sized, name, stop)?),
                None => None,
            };
            return Ok(Offload {
                parts: outcomes,
                saved,
            });
        }
        // Small side parts stay inline, unless the threshold itself is smaller.
        let inline_max =
            PART_INLINE_BYTES.min(self.config().threshold_for(Some(&observation.tool)));
        let mut stored: Vec<usize> = Vec::new();
        for (index, (part, size)) in observation.parts.iter().zip(&sized).enumerate() {
            if size.context_bytes <= inline_max {
                continue;
            }
            if let Content::Json(value) = &part.content
                && let Some(text) = repeated_text(value, &observation.parts, &stored)
            {
                outcomes[index] = PartOutcome::SameAs(text);
                continue;
            }
            stored.push(index);
        }
        // Over the threshold, at least the bulk of the output is stored, however it is split.
        if stored.is_empty()
            && let Some(largest) = (0..sized.len())
                .filter(|&i| matches!(outcomes[i], PartOutcome::Inline))
                .max_by_key(|&i| sized[i].context_bytes)
        {
            stored.push(largest);
        }
        // The name goes to the bulk of the output; other stored parts get automatic names.
        let bulk = stored
            .iter()
            .copied()
            .max_by_key(|&index| sized[index].context_bytes);
        for &index in &stored {
            let name = observation.save_as.clone().filter(|_| Some(index) == bulk);
            let part = &observation.parts[index];
            let bytes = part_bytes(part, &sized[index])?;
            let reference = self.store_part(observation, &bytes, &part.metadata, name, stop)?;
            outcomes[index] = PartOutcome::Stored(reference);
        }
        Ok(Offload {
            parts: outcomes,
            saved: None,
        })
    }

    fn store_part(
        &self,
        observation: &Observation,
        bytes: &[u8],
        part_metadata: &Map<String, Value>,
        name: Option<String>,
        stop: Stop<'_>,
    ) -> Result<Reference> {
        let mut metadata = small_metadata(&observation.metadata);
        metadata.extend(small_metadata(part_metadata));
        let entry = self.put_bytes(
            bytes,
            PutOptions {
                name,
                source: Source {
                    tool: Some(observation.tool.clone()),
                    args_digest: observation.args.as_ref().map(|args| {
                        let bytes = serde_json::to_vec(args).unwrap_or_default();
                        blake3::hash(&bytes).to_hex()[..16].to_owned()
                    }),
                    server: observation.server.clone(),
                },
                meta: Value::Object(metadata.clone()),
                ttl: Ttl::Default,
                condition: Some(WriteCondition::Any),
                stop,
                ..PutOptions::default()
            },
        )?;
        Ok(Reference {
            entry,
            metadata,
            ok: !observation.is_error,
        })
    }

    /// The whole output under `name`: its text, else its JSON, else its first binary part.
    fn save_whole(
        &self,
        observation: &Observation,
        sized: &[Sized],
        name: &str,
        stop: Stop<'_>,
    ) -> Result<EntryInfo> {
        let texts: Vec<&str> = observation
            .parts
            .iter()
            .filter_map(|part| match &part.content {
                Content::Text(text) => Some(text.as_str()),
                Content::Json(_) | Content::Binary(_) => None,
            })
            .collect();
        let no_metadata = Map::new();
        let first = |json: bool| {
            observation.parts.iter().position(|part| {
                matches!(
                    (&part.content, json),
                    (Content::Json(_), true) | (Content::Binary(_), false)
                )
            })
        };
        let (bytes, metadata) = match texts.as_slice() {
            [] => match first(true).or_else(|| first(false)) {
                Some(index) => {
                    let part = &observation.parts[index];
                    (part_bytes(part, &sized[index])?, &part.metadata)
                }
                None => (Cow::Borrowed(&[][..]), &no_metadata),
            },
            [text] => (Cow::Borrowed(text.as_bytes()), &no_metadata),
            texts => (Cow::Owned(texts.join("\n").into_bytes()), &no_metadata),
        };
        Ok(self
            .store_part(observation, &bytes, metadata, Some(name.to_owned()), stop)?
            .entry)
    }
}

/// The bytes to store for a part: text as it is, JSON as serialized once, binary decoded. Only
/// base64 is copied (decoded); the rest is borrowed, so a large part is held once.
fn part_bytes<'a>(part: &'a Part, sized: &'a Sized) -> Result<Cow<'a, [u8]>> {
    Ok(match &part.content {
        Content::Text(text) => Cow::Borrowed(text.as_bytes()),
        Content::Json(_) => Cow::Borrowed(sized.json.as_deref().unwrap_or_default()),
        Content::Binary(Binary::Bytes(bytes)) => Cow::Borrowed(bytes),
        Content::Binary(Binary::Base64(text)) => Cow::Owned(
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|e| Error::invalid(format!("binary content is not valid base64: {e}")))?,
        ),
    })
}

/// The stored text part this JSON repeats, if any: the text is this JSON, or the JSON holds the
/// text as one of its string values (`{"content": TEXT}`).
fn repeated_text(value: &Value, parts: &[Part], stored: &[usize]) -> Option<usize> {
    stored.iter().copied().find(|&index| {
        let Content::Text(text) = &parts[index].content else {
            return false;
        };
        let holds =
            matches!(value, Value::Object(map) if map.values().any(|v| v.as_str() == Some(text)));
        holds || serde_json::from_str::<Value>(text).is_ok_and(|parsed| &parsed == value)
    })
}

fn small_metadata(metadata: &Map<String, Value>) -> Map<String, Value> {
    metadata
        .iter()
        .filter(|(_, v)| serde_json::to_vec(v).is_ok_and(|b| b.len() <= SMALL_METADATA_BYTES))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}
