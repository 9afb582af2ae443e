//! The proxy's rewrite rules, as functions over values: the tool list (clash prefixing, the
//! `scratchpad` argument, output schemas that accept an offloaded result), the arguments (the
//! `scratchpad` name stripped, placeholders resolved) and the results (large parts stored whole and
//! replaced by the offloaded observation plus a `resource_link`).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, ResourceContents, Tool};
use scratchpad_core::figures::thousands;
use scratchpad_core::{Binary, Content, Observation, Part, PartOutcome, Reference, Scratchpad};
use serde_json::{Value, json};

use super::reuse::{self, ReusePolicy, StoredEntry};
use crate::tools::{Mcp, render};

/// The argument every proxied tool gains: store the whole output under this name.
pub const SCRATCHPAD_ARG: &str = "scratchpad";
/// An upstream tool whose name clashes with a scratchpad tool is listed under this prefix.
pub const CLASH_PREFIX: &str = "upstream_";

/// The proxied tool list and how to map a listed name back to the upstream's.
#[derive(Debug, Clone, Default)]
pub struct ToolMap {
    /// Listed name → upstream name, for every upstream tool.
    pub upstream_names: BTreeMap<String, String>,
    /// Upstream tools that already take an argument called `scratchpad`: it is theirs, not ours.
    pub own_scratchpad_arg: HashSet<String>,
    /// Tools whose repeated calls are answered from the stored result (listed names).
    pub reusable: HashSet<String>,
    /// Tools that declare they change nothing (listed names).
    pub read_only: HashSet<String>,
}

/// Rewrites the upstream's tools for the client: renames clashes with `reserved` names (the
/// scratchpad tools) to `upstream_<name>` and says so in the description, adds the optional
/// `scratchpad` argument (which, for a tool whose repeated calls `reuse` answers from the stored
/// result, also asks for a fresh one), and widens each output schema to also accept an offloaded
/// observation.
pub fn rewrite_tools(
    upstream: Vec<Tool>,
    reserved: &[String],
    reuse: &ReusePolicy,
) -> (Vec<Tool>, ToolMap) {
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
            // A tool with its own `scratchpad` argument has no way to ask for a fresh result.
            let own_arg = matches!(
                tool.input_schema.get("properties"),
                Some(Value::Object(properties)) if properties.contains_key(SCRATCHPAD_ARG)
            );
            let reusable = !own_arg && reuse.applies_to(&tool, &[&listed, &original]);
            if reusable {
                map.reusable.insert(listed.clone());
            }
            if reuse::declares_read_only(&tool) {
                map.read_only.insert(listed.clone());
            }
            let mut input = (*tool.input_schema).clone();
            if !add_scratchpad_arg(&mut input, reusable) {
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

const SAVE_AS_DESCRIPTION: &str = "Optional. Save this tool's full output in the scratchpad under \
this name (letters, digits, `.`, `_`, `-`), whatever its size, to read slices of it later with \
scratchpad_read or pass it to another tool as {{scratchpad:NAME}}. Not sent to the tool.";
const NAME_PATTERN: &str = "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$";

/// Adds the optional `scratchpad` property; false when the tool already has one of its own. With
/// `fresh`, the property also takes an object (`{"fresh": true, "name": …}`: call the tool even
/// though a recent identical call's result could answer). Only the type says so: the reply that
/// was answered from a stored result spells the object out, which is when a model needs it, so
/// no definition grows by a sentence that every turn would pay for.
pub fn add_scratchpad_arg(schema: &mut JsonObject, fresh: bool) -> bool {
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    let Value::Object(properties) = properties else {
        return false;
    };
    if properties.contains_key(SCRATCHPAD_ARG) {
        return false;
    }
    let kind = if fresh {
        json!(["string", "object"])
    } else {
        json!("string")
    };
    let property = json!({
        "type": kind,
        "description": SAVE_AS_DESCRIPTION,
        "pattern": NAME_PATTERN
    });
    properties.insert(SCRATCHPAD_ARG.to_owned(), property);
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

/// What the `scratchpad` control argument asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Control {
    /// Save the whole output under this name.
    pub save_as: Option<String>,
    /// Call the tool even if a recent identical call's result could answer.
    pub fresh: bool,
}

/// Removes the proxy's own `scratchpad` argument (unless the tool has its own) and returns what it
/// asked for: a name (`"NAME"`), or `{"name": NAME, "fresh": true}` with either part optional.
pub fn take_control(tool_has_own: bool, args: &mut JsonObject) -> Result<Control, String> {
    if tool_has_own {
        return Ok(Control::default());
    }
    match args.remove(SCRATCHPAD_ARG) {
        None | Some(Value::Null) => Ok(Control::default()),
        Some(Value::String(name)) => Ok(Control {
            save_as: checked_name(name)?,
            fresh: false,
        }),
        Some(Value::Object(mut fields)) => {
            let fresh = match fields.remove("fresh") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(fresh)) => fresh,
                Some(other) => {
                    return Err(format!(
                        "`{SCRATCHPAD_ARG}.fresh` must be true or false (got {other}). The tool \
                         was not called."
                    ));
                }
            };
            let save_as = match fields.remove("name") {
                None | Some(Value::Null) => None,
                Some(Value::String(name)) => checked_name(name)?,
                Some(other) => {
                    return Err(format!(
                        "`{SCRATCHPAD_ARG}.name` must be a string, the name to save the output \
                         under (got {other}). The tool was not called."
                    ));
                }
            };
            if let Some(unknown) = fields.keys().next() {
                return Err(format!(
                    "`{SCRATCHPAD_ARG}` takes a name, or {{\"name\": NAME, \"fresh\": true}}; \
                     `{unknown}` is not one of its fields. The tool was not called."
                ));
            }
            Ok(Control { save_as, fresh })
        }
        Some(other) => Err(format!(
            "`{SCRATCHPAD_ARG}` must be a string, the name to save the output under, or \
             {{\"fresh\": true}} (got {other}). The tool was not called."
        )),
    }
}

/// A save-as name, checked before the upstream runs so a bad name never costs a call.
fn checked_name(name: String) -> Result<Option<String>, String> {
    if name.is_empty() {
        return Ok(None);
    }
    scratchpad_core::model::validate_name("name", &name)
        .map(|()| Some(name))
        .map_err(|err| {
            format!(
                "{}. The tool was not called: pick another `{SCRATCHPAD_ARG}` name.",
                err.render(&Mcp)
            )
        })
}

/// What the proxy knows about one call when it rewrites the result.
#[derive(Debug, Clone)]
pub struct CallInfo {
    /// The upstream's name of the tool: automatic entry names are `<tool>_<n>`.
    pub tool: String,
    pub args: Value,
    pub server: Option<String>,
    pub save_as: Option<String>,
}

/// What a part of the observation stands for in the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// All text blocks, joined.
    Text,
    /// The image, audio or embedded resource at this index of `content`.
    Block(usize),
    Structured,
}

/// Applies the engine's offload policy to a tool result: its text blocks (joined), each image,
/// audio or embedded resource, and its structured content are the parts of one observation. A
/// stored part is replaced by the offloaded observation (text) plus a `resource_link`; stored
/// structured content becomes the observation itself, so it still validates against the widened
/// output schema. With a `scratchpad` name the whole output is kept under it, and the result says
/// so. `isError` is kept.
pub fn offload_result(
    pad: &Scratchpad,
    call: &CallInfo,
    result: CallToolResult,
) -> scratchpad_core::Result<CallToolResult> {
    offload(pad, call, result).map(|offloaded| offloaded.result)
}

/// A rewritten result and the entries it refers to.
#[derive(Debug, Clone)]
pub struct Offloaded {
    pub result: CallToolResult,
    pub entries: Vec<StoredEntry>,
}

/// [`offload_result`], also saying which entries the result refers to.
pub fn offload(
    pad: &Scratchpad,
    call: &CallInfo,
    mut result: CallToolResult,
) -> scratchpad_core::Result<Offloaded> {
    let is_error = result.is_error.unwrap_or(false);
    let mut parts = Vec::new();
    let mut origins = Vec::new();
    let text_blocks = result
        .content
        .iter()
        .filter(|block| matches!(block, ContentBlock::Text(_)))
        .count();
    // One text block (the usual large result) is moved into the observation, not copied: a
    // 200 MB result is then held once. It is moved back below if it stays inline.
    let mut moved_text = None;
    if text_blocks == 1
        && let Some((index, ContentBlock::Text(text))) = result
            .content
            .iter_mut()
            .enumerate()
            .find(|(_, block)| matches!(block, ContentBlock::Text(_)))
    {
        parts.push(Part::text(std::mem::take(&mut text.text)));
        origins.push(Origin::Text);
        moved_text = Some(index);
    } else if text_blocks > 1 {
        let texts: Vec<&str> = result
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect();
        parts.push(Part::text(texts.join("\n")));
        origins.push(Origin::Text);
    }
    for (index, block) in result.content.iter().enumerate() {
        if let Some(part) = binary_part(block) {
            parts.push(part);
            origins.push(Origin::Block(index));
        }
    }
    if let Some(structured) = result.structured_content.take() {
        parts.push(Part::json(structured));
        origins.push(Origin::Structured);
    }
    let mut observation = Observation::new(call.tool.clone(), parts);
    observation.args = Some(call.args.clone());
    observation.server = call.server.clone();
    observation.is_error = is_error;
    observation.save_as = call.save_as.clone();
    let offload = pad.offload(&observation)?;
    let outcome = |origin: Origin| {
        origins
            .iter()
            .position(|o| *o == origin)
            .map(|index| &offload.parts[index])
    };
    let reference_of = |outcome: &PartOutcome| match outcome {
        PartOutcome::Stored(reference) => Some(reference.clone()),
        PartOutcome::SameAs(index) => match &offload.parts[*index] {
            PartOutcome::Stored(reference) => Some(reference.clone()),
            PartOutcome::Inline | PartOutcome::SameAs(_) => None,
        },
        PartOutcome::Inline => None,
    };
    let text_reference = outcome(Origin::Text).and_then(reference_of);
    if let (None, Some(index)) = (&text_reference, moved_text)
        && let (
            Some(ContentBlock::Text(block)),
            Some(Part {
                content: Content::Text(text),
                ..
            }),
        ) = (result.content.get_mut(index), observation.parts.first_mut())
    {
        block.text = std::mem::take(text);
    }
    let mut content = Vec::with_capacity(result.content.len() + 2);
    let mut text_replaced = false;
    for (index, block) in std::mem::take(&mut result.content).into_iter().enumerate() {
        match (&block, outcome(Origin::Block(index)).and_then(reference_of)) {
            (ContentBlock::Text(_), _) => match &text_reference {
                Some(reference) if !text_replaced => {
                    content.extend(reference_blocks(reference));
                    text_replaced = true;
                }
                Some(_) => {}
                None => content.push(block),
            },
            (_, Some(reference)) => content.extend(reference_blocks(&reference)),
            (_, None) => content.push(block),
        }
    }
    result.content = content;
    if let Some(outcome) = outcome(Origin::Structured) {
        let Some(Part {
            content: Content::Json(original),
            ..
        }) = observation.parts.pop()
        else {
            unreachable!("the structured content is the last part")
        };
        result.structured_content = Some(match reference_of(outcome) {
            None => original,
            Some(reference) => {
                if text_reference.is_none() {
                    result.content.extend(reference_blocks(&reference));
                }
                serde_json::to_value(reference.observation(&Mcp)).unwrap_or(Value::Null)
            }
        });
    }
    if let Some(saved) = &offload.saved {
        result.content.push(ContentBlock::text(format!(
            "[scratchpad: the full output is saved as `{}` ({} bytes); pass {{{{scratchpad:{}}}}} to \
             another tool to use it without reading it]",
            saved.name,
            thousands(saved.bytes),
            saved.name
        )));
        result.content.push(render::resource_link(saved));
    }
    if let Some(named) = call.save_as.as_deref().and_then(|name| offload.named(name))
        && named.version > 1
    {
        result.content.push(ContentBlock::text(format!(
            "[scratchpad: `{}` already existed; it now holds this output (version {})]",
            named.name, named.version
        )));
    }
    let entries = offload
        .parts
        .iter()
        .filter_map(|part| match part {
            PartOutcome::Stored(reference) => Some(&reference.entry),
            PartOutcome::Inline | PartOutcome::SameAs(_) => None,
        })
        .chain(&offload.saved)
        .map(|info| StoredEntry {
            id: info.id.clone(),
            name: info.name.clone(),
            hash: info.hash.clone(),
        })
        .collect();
    Ok(Offloaded { result, entries })
}

/// What stands in for a stored part: the offloaded observation as text, and a link to the entry.
fn reference_blocks(reference: &Reference) -> [ContentBlock; 2] {
    let observation = reference.observation(&Mcp);
    [
        ContentBlock::text(serde_json::to_string(&observation).unwrap_or_default()),
        render::resource_link(&reference.entry),
    ]
}

/// Image and audio data and blob resources as binary parts; text resources as text parts.
fn binary_part(block: &ContentBlock) -> Option<Part> {
    let binary = |data: &str| Part::new(Content::Binary(Binary::Base64(data.to_owned())));
    match block {
        ContentBlock::Image(image) => {
            Some(binary(&image.data).with_metadata(mime(&image.mime_type)))
        }
        ContentBlock::Audio(audio) => {
            Some(binary(&audio.data).with_metadata(mime(&audio.mime_type)))
        }
        ContentBlock::Resource(resource) => match &resource.resource {
            ResourceContents::TextResourceContents { text, .. } => {
                Some(Part::text(text.clone()).with_metadata(embedded_metadata(block)))
            }
            ResourceContents::BlobResourceContents { blob, .. } => {
                Some(binary(blob).with_metadata(embedded_metadata(block)))
            }
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
