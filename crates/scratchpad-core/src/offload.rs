//! The offload policy: small observations pass through untouched, large ones are stored whole and
//! replaced by a reference with a preview.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::{EntryInfo, Kind, Source};
use crate::read::{ReadMode, Syntax};
use crate::scratchpad::{PutOptions, Scratchpad, Ttl};
use crate::store::WriteCondition;

/// Metadata values larger than this (bytes of JSON) are not carried into the offloaded observation.
const SMALL_METADATA_BYTES: usize = 256;

/// A tool's output as it would have entered the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// The tool that produced it (used for the automatic name `<tool>_<n>`).
    pub tool: String,
    pub content: ObservationContent,
    /// Small fields of the original (path, status code, encoding…), kept in the reference.
    #[serde(default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// The tool's arguments; only a digest is stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The tool reported a failure; the reference says so too.
    #[serde(default)]
    pub is_error: bool,
}

/// The payload of an observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "lowercase")]
pub enum ObservationContent {
    Text(String),
    Json(serde_json::Value),
    Binary(Vec<u8>),
}

impl ObservationContent {
    /// The bytes that would be stored (JSON serialized compactly).
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Self::Text(text) => text.as_bytes().to_vec(),
            Self::Json(value) => serde_json::to_vec(value).unwrap_or_default(),
            Self::Binary(data) => data.clone(),
        }
    }

    /// Size in bytes as it would enter the context.
    pub fn size(&self) -> usize {
        match self {
            Self::Text(text) => text.len(),
            Self::Json(value) => serde_json::to_vec(value).map_or(0, |v| v.len()),
            Self::Binary(data) => data.len(),
        }
    }
}

/// What replaces a large observation in the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OffloadedObservation {
    pub ok: bool,
    /// The entry's name: pass it as `ref` to read tools, or as `{{scratchpad:NAME}}` in arguments.
    pub scratchpad: String,
    pub id: String,
    pub kind: Kind,
    pub bytes: u64,
    pub chars: u64,
    pub lines: u64,
    pub tokens_est: u64,
    pub preview: String,
    #[serde(skip_serializing_if = "serde_json::Map::is_empty", default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
    pub hint: String,
}

/// The outcome of [`Scratchpad::offload`].
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "one value per tool call, moved once, never stored in bulk"
)]
pub enum Offload {
    /// Small enough: the observation as it was; `saved` when a name asked for it to be kept anyway.
    Inline {
        observation: Observation,
        saved: Option<EntryInfo>,
    },
    /// Stored whole; show this instead.
    Offloaded(OffloadedObservation),
}

impl Scratchpad {
    /// Applies the offload policy: inline under the tool's threshold, stored and referenced above it.
    /// With `save_as`, the output is stored under that name whatever its size.
    pub fn offload(&self, observation: Observation, save_as: Option<&str>) -> Result<Offload> {
        let size = observation.content.size();
        let threshold = self.config().threshold_for(&observation.tool);
        if size <= threshold && save_as.is_none() {
            return Ok(Offload::Inline {
                observation,
                saved: None,
            });
        }
        let source = Source {
            tool: Some(observation.tool.clone()),
            args_digest: observation.args.as_ref().map(|args| {
                let bytes = serde_json::to_vec(args).unwrap_or_default();
                blake3::hash(&bytes).to_hex()[..16].to_owned()
            }),
            server: observation.server.clone(),
        };
        let metadata = small_metadata(&observation.metadata);
        let bytes = observation.content.to_bytes();
        let info = self.put(
            &mut bytes.as_slice(),
            PutOptions {
                name: save_as.map(str::to_owned),
                source,
                meta: serde_json::Value::Object(metadata.clone()),
                ttl: Ttl::Default,
                condition: Some(WriteCondition::Any),
                ..PutOptions::default()
            },
        )?;
        if size <= threshold {
            return Ok(Offload::Inline {
                observation,
                saved: Some(info),
            });
        }
        let hint = hint(&info, self.syntax());
        Ok(Offload::Offloaded(OffloadedObservation {
            ok: !observation.is_error,
            scratchpad: info.name.clone(),
            id: info.id.clone(),
            kind: info.kind,
            bytes: info.bytes,
            chars: info.chars,
            lines: info.lines,
            tokens_est: info.tokens_est(),
            preview: info.preview,
            metadata,
            hint,
        }))
    }
}

fn small_metadata(
    metadata: &serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    metadata
        .iter()
        .filter(|(_, v)| serde_json::to_vec(v).is_ok_and(|b| b.len() <= SMALL_METADATA_BYTES))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The "how to read more" sentence of a reference, with calls that work as written.
pub fn hint(info: &EntryInfo, syntax: &Syntax) -> String {
    let name = &info.name;
    let call = |mode: ReadMode| mode.render_call(name, syntax);
    let reads = match info.kind {
        Kind::Text => format!(
            "{}, {} or {}",
            call(ReadMode::Grep {
                // The common failure words; notable lines in the preview use a wider net.
                pattern: "ERROR|FATAL|FAIL|panic|Traceback|Exception".into(),
                context: 2,
                max_matches: None,
                ignore_case: false,
                from: None,
            }),
            call(ReadMode::Lines {
                from: 1,
                to: Some(100),
            }),
            call(ReadMode::Tail { n: Some(2_000) })
        ),
        Kind::Json => format!(
            "{} or {}",
            call(ReadMode::Json {
                query: "keys".into()
            }),
            call(ReadMode::Grep {
                pattern: "\"id\"".into(),
                context: 0,
                max_matches: None,
                ignore_case: false,
                from: None,
            })
        ),
        Kind::Binary => call(ReadMode::Bytes {
            offset: 0,
            length: Some(3_000),
        }),
    };
    format!(
        "Full output saved as `{name}`. Read slices with {reads}. Pass it whole to another tool as {{{{scratchpad:{name}}}}}."
    )
}
