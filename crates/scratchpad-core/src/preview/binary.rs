// TEMPORARY STUB (to be replaced by the real module)
pub fn sniff_mime(head: &[u8]) -> &'static str { infer::get(head).map_or("application/octet-stream", |t| t.mime_type()) }
pub fn binary_preview(bytes: u64, blake3_hex: &str, mime: &str) -> String { format!("[BINARY: {} bytes, blake3={}…, type={mime}]", thousands(bytes), &blake3_hex[..16]) }
pub fn thousands(n: u64) -> String { let s = n.to_string(); let mut out = String::new(); for (i, c) in s.chars().enumerate() { if i > 0 && (s.len() - i) % 3 == 0 { out.push(','); } out.push(c); } out }
