//! Token counts with the o200k_base encoding (GPT-4o and later), which `tiktoken-rs` ships inside the
//! crate, so counting needs no network.

/// Tokens `text` costs in a context window, counted exactly.
pub fn count_tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_known_strings() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("hello world"), 2);
        // Logs run at roughly 450 tokens per 1,000 bytes in this encoding (DESIGN §11).
        let line = "2026-11-21T10:14:03.512Z INFO  checkout-api req=req_3k9x GET /v1/carts/88121 200 14ms\n";
        let tokens = count_tokens(&line.repeat(100));
        let per_kb = tokens * 1_000 / (line.len() * 100);
        assert!(
            (250..=600).contains(&per_kb),
            "{per_kb} tokens per 1,000 bytes"
        );
    }
}
