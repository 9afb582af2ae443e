// TEMPORARY STUB (to be replaced by the real module)
pub fn json_shape_preview(input: impl std::io::Read, _budget_chars: usize) -> std::io::Result<Option<String>> {
    Ok(serde_json::from_reader::<_, serde_json::Value>(input).ok().map(|v| format!("JSON {}", if v.is_object() {"object"} else {"value"})))
}
