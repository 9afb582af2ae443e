//! Previews for content that is not text: a one-line label instead of bytes.

use crate::figures::thousands;

/// Hex digits of the BLAKE3 digest shown in a preview (chars); enough to tell
/// entries apart at a glance, short enough not to waste the model's context.
const HASH_PREFIX_CHARS: usize = 16;

/// MIME type from magic bytes, "application/octet-stream" when unknown.
pub fn sniff_mime(head: &[u8]) -> &'static str {
    infer::get(head).map_or("application/octet-stream", |kind| kind.mime_type())
}

/// "[BINARY: 45,123 bytes, blake3=<first 16 hex>…, type=image/png]"
pub fn binary_preview(bytes: u64, blake3_hex: &str, mime: &str) -> String {
    let mut hash: String = blake3_hex.chars().take(HASH_PREFIX_CHARS).collect();
    if blake3_hex.chars().count() > HASH_PREFIX_CHARS {
        hash.push('…');
    }
    format!(
        "[BINARY: {} bytes, blake3={hash}, type={mime}]",
        thousands(bytes)
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_png() {
        let head = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";
        assert_eq!(sniff_mime(head), "image/png");
    }

    #[test]
    fn sniffs_pdf() {
        assert_eq!(
            sniff_mime(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"),
            "application/pdf"
        );
    }

    #[test]
    fn sniffs_gzip() {
        assert_eq!(
            sniff_mime(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"),
            "application/gzip"
        );
    }

    #[test]
    fn unknown_and_empty_are_octet_stream() {
        assert_eq!(
            sniff_mime(b"\x00\x01\x02\x03\x04\x05"),
            "application/octet-stream"
        );
        assert_eq!(sniff_mime(b""), "application/octet-stream");
    }

    #[test]
    fn formats_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(45_123), "45,123");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn formats_binary_preview() {
        let hex = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";
        assert_eq!(
            binary_preview(45_123, hex, "image/png"),
            "[BINARY: 45,123 bytes, blake3=af1349b9f5f9a1a6…, type=image/png]"
        );
        assert_eq!(
            binary_preview(0, "abc", "application/octet-stream"),
            "[BINARY: 0 bytes, blake3=abc, type=application/octet-stream]"
        );
    }
}
