// TEMPORARY STUB (to be replaced by the real module)
#[derive(Debug, thiserror::Error)]
pub enum JqError { #[error("{0}")] Syntax(String) }
pub fn run_jq(document: &[u8], program: &str) -> Result<Vec<serde_json::Value>, JqError> {
    let v: serde_json::Value = serde_json::from_slice(document).map_err(|e| JqError::Syntax(e.to_string()))?;
    match program { "." => Ok(vec![v]), p => Ok(vec![v.pointer(&p.replace('.', "/")).cloned().unwrap_or_default()]) }
}
