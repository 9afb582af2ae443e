//! Input schemas as compact as a model can read them. A model pays for every tool definition on every
//! turn, so the schema says what a client needs to validate a call and a model needs to make one, and
//! nothing else: no titles, no integer formats, no `null` alternatives for optional fields (leaving a
//! field out is how a call says "none"), no `default: false` (a switch left out is off), enums
//! inline, descriptions on one line, and no
//! `additionalProperties: false` (see [`input`]).

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The input schema of a tool whose arguments deserialize into `A`.
pub fn input<A: JsonSchema>() -> Arc<JsonObject> {
    let mut settings = SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    settings.inline_subschemas = true;
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<A>()
        .to_value();
    compact(&mut schema);
    if let Value::Object(root) = &mut schema {
        // The struct's doc comment names the tool for the code's readers; the tool's description
        // speaks to the model.
        root.remove("description");
        // Unknown arguments are refused by the tool itself, with a "did you mean"; a schema closed to
        // them would also refuse the aliases (`ref` for `name`) in clients that validate.
        root.remove("additionalProperties");
    }
    match schema {
        Value::Object(object) => Arc::new(object),
        // A derived schema for a struct is always an object; anything else is a programming error
        // that the definitions test catches.
        other => Arc::new(JsonObject::from_iter([("const".to_owned(), other)])),
    }
}

/// Rewrites one schema and its subschemas in place (see the module's rules).
fn compact(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return; // `true`/`false` schemas have nothing to drop.
    };
    // `anyOf: [{…}, {"type": "null"}]` (an optional enum) → the one alternative, merged in; first, so
    // that what is merged in is compacted too.
    if let Some(Value::Array(alternatives)) = object.get_mut("anyOf") {
        alternatives.retain(|alt| alt.get("type").and_then(Value::as_str) != Some("null"));
        if alternatives.len() == 1
            && let Some(Value::Object(only)) = alternatives.pop()
        {
            object.remove("anyOf");
            for (key, value) in only {
                // A type's doc comment is for the code's readers; the field's says what a model needs.
                if key != "description" {
                    object.entry(key).or_insert(value);
                }
            }
        }
    }
    object.remove("title");
    object.remove("format");
    if object.get("minimum") == Some(&Value::from(0)) {
        object.remove("minimum");
    }
    // A switch that is off unless given says nothing by saying so.
    if object.get("default") == Some(&Value::Bool(false)) {
        object.remove("default");
    }
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    // `["integer", "null"]` → `"integer"`.
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".to_owned(), only);
        }
    }
    if let Some(Value::String(description)) = object.get_mut("description") {
        *description = description.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    for (keyword, value) in object.iter_mut() {
        match (keyword.as_str(), value) {
            // Maps from names to schemas: a property may well be called `title` or `format`.
            ("properties" | "$defs", Value::Object(schemas)) => {
                schemas.values_mut().for_each(compact)
            }
            ("items" | "additionalProperties" | "not", value) => compact(value),
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(schemas)) => {
                schemas.iter_mut().for_each(compact)
            }
            // `enum`, `required`, `default`, `examples`: values, not schemas.
            _ => {}
        }
    }
}
