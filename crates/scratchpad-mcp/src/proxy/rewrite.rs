//! The proxy's rewrite rules, as functions over values: the tool list (clash prefixing, the
//! `scratchpad` argument, output schemas that accept an offloaded result), the arguments (the
//! `scratchpad` name stripped, placeholders resolved) and the results (large parts stored whole and
//! replaced by the offloaded observation plus a `resource_link`).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, ResourceContents, Tool};
use scratchpad_core::{
    EntryInfo, OffloadedObservation, PutOptions, Scratchpad, Source, Ttl, WriteCondition,
};
use serde_json::{Value, json};

use crate::tools::render;

/// The argument every proxied tool gains: store the whole output under this name.
pub const SCRATCHPAD_ARG: &str = "scratchpad";
/// An upstream tool whose name clashes with a scratchpad tool is listed under this prefix.
pub const CLASH_PREFIX: &str = "upstream_";
/// In a result over the threshold, parts at most this large (bytes) stay inline: a one-line status
/// next to a megabyte of data is cheaper shown than referenced.
pub const PART_INLINE_BYTES: usize = 512;

/// The proxied tool list and how to map a listed name back to the upstream's.
#[derive(Debug, Clone, Default)]
pub struct ToolMap {
    /// Listed name → upstream name, for every upstream tool.
    pub upstream_names: BTreeMap<String, String>,
    /// Upstream tools that already take an argument called `scratchpad`: it is theirs, not ours.
    pub own_scratchpad_arg: HashSet<String>,
}

/// Rewrites the upstream's tools for the client: renames clashes with `reserved` names (the
/// scratchpad tools) to `upstream_<name>` and says so in the description, adds the optional
/// `scratchpad` argument, and widens each output schema to also accept an offloaded observation.
pub fn rewrite_tools(upstream: Vec<Tool>, reserved: &[String]) -> (Vec<Tool>, ToolMap) {
    let mut map = ToolMap::default();
    let taken: HashSet<String> = upstream.iter().map(|t| t.name.to_string()).collect();
    let tools = upstream
        .into_iter()
        .map(|mut tool| {
            let original = tool.name.to_string();
            if reserved.contains(&original) {
                let mut renamed = format!("{CLASH_PREFIX}{original}");
                while taken.contains(&renamed) || reserved.contains(&renamed) {
                    renamed.insert_str(0, CLASH_PREFIX);
                }
                let note = format!(
                    "(Listed as `{renamed}` by the scratchpad proxy: the upstream server calls it \
                     `{original}`, a name the scratchpad's own tool has.)"
                );
                tool.description = Some(match tool.description.take() {
                    Some(text) => format!("{text}\n\n{note}").into(),
                    None => note.into(),
                });
                tool.name = renamed.into();
            }
            let listed = tool.name.to_string();
            let mut input = (*tool.input_schema).clone();
            if !add_scratchpad_arg(&mut input) {
                map.own_scratchpad_arg.insert(listed.clone());
            }
            tool.input_schema = Arc::new(input);
            if let Some(schema) = tool.output_schema.take() {
                tool.output_schema = Some(Arc::new(widen_output_schema(&schema)));
            }
            map.upstream_names.insert(listed, original);
            tool
        })
        .collect();
    (tools, map)
}

/// Adds the optional `scratchpad` property; false when the tool already has one of its own.
pub fn add_scratchpad_arg(schema: &mut JsonObject) -> bool {
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    let Value::Object(properties) = properties else {
        return false;
    };
    if properties.contains_key(SCRATCHPAD_ARG) {
        return false;
    }
    properties.insert(
        SCRATCHPAD_ARG.to_owned(),
        json!({
            "type": "string",
            "description": "Optional. Save this tool's full output in the scratchpad under this name \
                (letters, digits, `.`, `_`, `-`), whatever its size, to read slices of it later with \
                scratchpad_read or pass it to another tool as {{scratchpad:NAME}}. Not sent to the tool.",
            "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
        }),
    );
    schema
        .entry("type")
        .or_insert_with(|| Value::String("object".into()));
    true
}

/// `{"type": "object", "anyOf": [ORIGINAL, OFFLOADED]}`, with the original's `$defs`/`definitions`
/// and `$schema` lifted to the root so its `#/…` references still resolve. Every result the proxy
/// returns validates: either the upstream's own structured content or the offloaded observation.
pub fn widen_output_schema(original: &JsonObject) -> JsonObject {
    let mut inner = original.clone();
    let mut root = JsonObject::new();
    for key in ["$schema", "$defs", "definitions"] {
        if let Some(value) = inner.remove(key) {
            root.insert(key.to_owned(), value);
        }
    }
    root.insert("type".into(), Value::String("object".into()));
    root.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(inner), offloaded_schema()]),
    );
    root
}

/// The JSON Schema of the offloaded observation (DESIGN §4).
pub fn offloaded_schema() -> Value {
    json!({
        "type": "object",
        "description": "The scratchpad proxy stored this result whole; read it with scratchpad_read.",
        "properties": {
            "ok": {"type": "boolean"},
            "scratchpad": {"type": "string", "description": "The entry's name."},
            "id": {"type": "string"},
            "kind": {"type": "string", "enum": ["text", "json", "binary"]},
            "bytes": {"type": "integer"},
            "chars": {"type": "integer"},
            "lines": {"type": "integer"},
            "tokens_est": {"type": "integer"},
            "preview": {"type": "string"},
            "metadata": {"type": "object"},
            "hint": {"type": "string"}
        },
        "required": ["ok", "scratchpad", "id", "kind", "bytes", "preview", "hint"]
    })
}

/// Removes the proxy's own `scratchpad` argument (unless the tool has its own) and returns it.
pub fn take_save_as(tool_has_own: bool, args: &mut JsonObject) -> Result<Option<String>, String> {
    if tool_has_own {
        return Ok(None);
    }
    match args.remove(SCRATCHPAD_ARG) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) if name.is_empty() => Ok(None),
        // Checked before the upstream runs, so a bad name never costs a call.
        Some(Value::String(name)) => scratchpad_core::model::validate_name("name", &name)
            .map(|()| Some(name))
            .map_err(|err| {
                format!("{err}. The tool was not called: pick another `{SCRATCHPAD_ARG}` name.")
            }),
        Some(other) => Err(format!(
            "`{SCRATCHPAD_ARG}` must be a string, the name to save the output under (got {other})"
        )),
    }
}

/// What the proxy knows about one call when it rewrites the result.
#[derive(Debug, Clone)]
pub struct CallInfo {
    /// The upstream's name of the tool: automatic entry names are `<tool>_<n>`.
    pub tool: String,
    pub args: Value,
    pub server: Option<String>,
    pub threshold: usize,
    pub save_as: Option<String>,
}

/// One piece of a result that may be stored.
enum Part {
    Text(String),
    Binary { data: Vec<u8>, metadata: JsonObject },
}

/// Applies the offload policy to a tool result. Under the threshold (serialized `content` plus
/// `structuredContent`) the result passes untouched, except that with `save_as` its text (or
/// structured content, or first binary) is also stored under that name and a note says so. Over it,
/// every part larger than [`PART_INLINE_BYTES`] (all text blocks joined; each image, audio or
/// embedded resource; the structured content) is stored whole, binary as binary, and replaced by the
/// offloaded observation and a `resource_link`. Structured content that repeats the text points at
/// the same entry. `isError` is kept.
pub fn offload_result(
    pad: &Scratchpad,
    call: &CallInfo,
    mut result: CallToolResult,
) -> scratchpad_core::Result<CallToolResult> {
    let size = serde_json::to_vec(&result.content).map_or(0, |v| v.len())
        + result
            .structured_content
            .as_ref()
            .and_then(|v| serde_json::to_vec(v).ok())
            .map_or(0, |v| v.len());
    let is_error = result.is_error.unwrap_or(false);
    if size <= call.threshold {
        if let Some(name) = &call.save_as {
            save_small(pad, call, name, &mut result)?;
        }
        return Ok(result);
    }
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect();
    let text = (!text.is_empty()).then(|| text.join("\n"));
    let store_text = text
        .as_ref()
        .is_some_and(|text| text.len() > PART_INLINE_BYTES);
    // The `scratchpad` name goes to the bulk of the result; other stored parts get automatic names.
    let bulk = bulk_part(&result, text.as_deref(), store_text);
    let mut save_as = call.save_as.clone();
    let mut name_for = |part: Bulk| {
        if bulk == Some(part) {
            save_as.take()
        } else {
            None
        }
    };
    let mut content = Vec::with_capacity(result.content.len() + 2);
    let mut text_entry: Option<EntryInfo> = None;
    let mut named: Option<EntryInfo> = None;
    for (index, block) in std::mem::take(&mut result.content).into_iter().enumerate() {
        match block {
            ContentBlock::Text(block) => {
                let Some(joined) = &text else { continue };
                if !store_text {
                    content.push(ContentBlock::Text(block));
                } else if text_entry.is_none() {
                    let name = name_for(Bulk::Text);
                    let info = store(
                        pad,
                        call,
                        name.clone(),
                        Part::Text(joined.clone()),
                        JsonObject::new(),
                    )?;
                    content.push(observation_block(&info, JsonObject::new(), is_error, pad));
                    content.push(render::resource_link(&info));
                    if name.is_some() {
                        named = Some(info.clone());
                    }
                    text_entry = Some(info);
                }
            }
            block @ (ContentBlock::Image(_)
            | ContentBlock::Audio(_)
            | ContentBlock::Resource(_)) => match binary_part(&block) {
                Some(part) if part_size(&part) > PART_INLINE_BYTES => {
                    let metadata = match &part {
                        Part::Binary { metadata, .. } => metadata.clone(),
                        Part::Text(_) => embedded_metadata(&block),
                    };
                    let name = name_for(Bulk::Block(index));
                    let info = store(pad, call, name.clone(), part, metadata.clone())?;
                    content.push(observation_block(&info, metadata, is_error, pad));
                    content.push(render::resource_link(&info));
                    if name.is_some() {
                        named = Some(info);
                    }
                }
                _ => content.push(block),
            },
            other => content.push(other),
        }
    }
    result.content = content;
    if let Some(structured) = result.structured_content.take() {
        let bytes = serde_json::to_vec(&structured).unwrap_or_default();
        result.structured_content = Some(if bytes.len() <= PART_INLINE_BYTES {
            structured
        } else {
            let info = match (&text_entry, &text) {
                (Some(info), Some(text)) if repeats_text(&structured, text) => info.clone(),
                _ => {
                    let name = name_for(Bulk::Structured);
                    let info = store(
                        pad,
                        call,
                        name.clone(),
                        Part::Text(String::from_utf8_lossy(&bytes).into_owned()),
                        JsonObject::new(),
                    )?;
                    if name.is_some() {
                        named = Some(info.clone());
                    }
                    if text_entry.is_none() {
                        result.content.push(observation_block(
                            &info,
                            JsonObject::new(),
                            is_error,
                            pad,
                        ));
                        result.content.push(render::resource_link(&info));
                    }
                    info
                }
            };
            serde_json::to_value(observation(&info, JsonObject::new(), is_error, pad))
                .unwrap_or(Value::Null)
        });
    }
    match (named, save_as) {
        (Some(info), _) => note_replaced(&info, &mut result),
        // Nothing large enough was stored on its own (many small parts): save it as a small one.
        (None, Some(name)) => save_small(pad, call, &name, &mut result)?,
        (None, None) => {}
    }
    Ok(result)
}

/// A part of a result that may be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bulk {
    /// All text blocks, joined.
    Text,
    /// The image, audio or embedded resource at this index of `content`.
    Block(usize),
    Structured,
}

/// The largest part that will be stored on its own, if any.
fn bulk_part(result: &CallToolResult, text: Option<&str>, store_text: bool) -> Option<Bulk> {
    let mut parts: Vec<(usize, Bulk)> = Vec::new();
    if let (true, Some(text)) = (store_text, text) {
        parts.push((text.len(), Bulk::Text));
    }
    for (index, block) in result.content.iter().enumerate() {
        if let Some(size) = stored_size(block).filter(|size| *size > PART_INLINE_BYTES) {
            parts.push((size, Bulk::Block(index)));
        }
    }
    if let Some(structured) = &result.structured_content {
        let size = serde_json::to_vec(structured).map_or(0, |v| v.len());
        let repeated = store_text && text.is_some_and(|text| repeats_text(structured, text));
        if size > PART_INLINE_BYTES && !repeated {
            parts.push((size, Bulk::Structured));
        }
    }
    parts
        .into_iter()
        .max_by_key(|(size, _)| *size)
        .map(|(_, part)| part)
}

/// Says so when a `scratchpad` name replaced an entry that already existed.
fn note_replaced(info: &EntryInfo, result: &mut CallToolResult) {
    if info.version > 1 {
        result.content.push(ContentBlock::text(format!(
            "[scratchpad: `{}` already existed; it now holds this output (version {})]",
            info.name, info.version
        )));
    }
}

/// Whether structured content carries the same payload as the text: the text is its JSON, or it
/// holds the text as one of its string values (e.g. `{"content": TEXT}`).
fn repeats_text(structured: &Value, text: &str) -> bool {
    if serde_json::from_str::<Value>(text).is_ok_and(|parsed| &parsed == structured) {
        return true;
    }
    match structured {
        Value::Object(map) => map.values().any(|v| v.as_str() == Some(text)),
        _ => false,
    }
}

fn save_small(
    pad: &Scratchpad,
    call: &CallInfo,
    name: &str,
    result: &mut CallToolResult,
) -> scratchpad_core::Result<()> {
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect();
    let part = if !text.is_empty() {
        Part::Text(text.join("\n"))
    } else if let Some(structured) = &result.structured_content {
        Part::Text(structured.to_string())
    } else if let Some(part) = result.content.iter().find_map(binary_part) {
        part
    } else {
        Part::Text(String::new())
    };
    let info = store(pad, call, Some(name.to_owned()), part, JsonObject::new())?;
    result.content.push(ContentBlock::text(format!(
        "[scratchpad: the full output is saved as `{}` ({} bytes); pass {{{{scratchpad:{}}}}} to \
         another tool to use it without reading it]",
        info.name,
        render::thousands(info.bytes),
        info.name
    )));
    result.content.push(render::resource_link(&info));
    note_replaced(&info, result);
    Ok(())
}

/// The size [`binary_part`] would give `block`, without decoding it (base64 is 4 characters for 3
/// bytes).
fn stored_size(block: &ContentBlock) -> Option<usize> {
    let decoded = |data: &str| data.len() / 4 * 3;
    match block {
        ContentBlock::Image(image) => Some(decoded(&image.data)),
        ContentBlock::Audio(audio) => Some(decoded(&audio.data)),
        ContentBlock::Resource(resource) => match &resource.resource {
            ResourceContents::TextResourceContents { text, .. } => Some(text.len()),
            ResourceContents::BlobResourceContents { blob, .. } => Some(decoded(blob)),
            _ => None,
        },
        _ => None,
    }
}

fn part_size(part: &Part) -> usize {
    match part {
        Part::Text(text) => text.len(),
        Part::Binary { data, .. } => data.len(),
    }
}

/// Image and audio data and blob resources as bytes; text resources as text.
fn binary_part(block: &ContentBlock) -> Option<Part> {
    let decode = |data: &str| base64::engine::general_purpose::STANDARD.decode(data).ok();
    match block {
        ContentBlock::Image(image) => Some(Part::Binary {
            data: decode(&image.data)?,
            metadata: mime(&image.mime_type),
        }),
        ContentBlock::Audio(audio) => Some(Part::Binary {
            data: decode(&audio.data)?,
            metadata: mime(&audio.mime_type),
        }),
        ContentBlock::Resource(resource) => match &resource.resource {
            ResourceContents::TextResourceContents { text, .. } => Some(Part::Text(text.clone())),
            ResourceContents::BlobResourceContents { blob, .. } => Some(Part::Binary {
                data: decode(blob)?,
                metadata: embedded_metadata(block),
            }),
            _ => None,
        },
        _ => None,
    }
}

fn mime(mime_type: &str) -> JsonObject {
    let mut map = JsonObject::new();
    map.insert("mimeType".into(), Value::String(mime_type.to_owned()));
    map
}

fn embedded_metadata(block: &ContentBlock) -> JsonObject {
    let mut map = JsonObject::new();
    if let ContentBlock::Resource(resource) = block {
        let (ResourceContents::TextResourceContents { uri, mime_type, .. }
        | ResourceContents::BlobResourceContents { uri, mime_type, .. }) = &resource.resource
        else {
            return map;
        };
        map.insert("uri".into(), Value::String(uri.clone()));
        if let Some(mime_type) = mime_type {
            map.insert("mimeType".into(), Value::String(mime_type.clone()));
        }
    }
    map
}

fn store(
    pad: &Scratchpad,
    call: &CallInfo,
    name: Option<String>,
    part: Part,
    metadata: JsonObject,
) -> scratchpad_core::Result<EntryInfo> {
    let bytes = match part {
        Part::Text(text) => text.into_bytes(),
        Part::Binary { data, .. } => data,
    };
    let source = Source {
        tool: Some(call.tool.clone()),
        args_digest: Some(blake3::hash(call.args.to_string().as_bytes()).to_hex()[..16].to_owned()),
        server: call.server.clone(),
    };
    pad.put(
        &mut bytes.as_slice(),
        PutOptions {
            name,
            source,
            meta: Value::Object(metadata),
            ttl: Ttl::Default,
            condition: Some(WriteCondition::Any),
            ..PutOptions::default()
        },
    )
}

/// The §4 offloaded observation of a stored part.
pub fn observation(
    info: &EntryInfo,
    metadata: JsonObject,
    is_error: bool,
    pad: &Scratchpad,
) -> OffloadedObservation {
    OffloadedObservation {
        ok: !is_error,
        scratchpad: info.name.clone(),
        id: info.id.clone(),
        kind: info.kind,
        bytes: info.bytes,
        chars: info.chars,
        lines: info.lines,
        tokens_est: info.tokens_est(),
        preview: info.preview.clone(),
        metadata,
        hint: scratchpad_core::hint(info, pad.syntax()),
    }
}

fn observation_block(
    info: &EntryInfo,
    metadata: JsonObject,
    is_error: bool,
    pad: &Scratchpad,
) -> ContentBlock {
    let observation = observation(info, metadata, is_error, pad);
    ContentBlock::text(serde_json::to_string(&observation).unwrap_or_default())
}
