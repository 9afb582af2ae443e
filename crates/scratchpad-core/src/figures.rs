//! Figures as every face writes them: `1,234,567`, `1 line`, `2,500 lines`.

pub use crate::preview::thousands;

/// `n` with the noun that fits it: `1 line`, `2,500 lines`.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn nouns_agree_with_their_numbers() {
        assert_eq!(counted(0, "line", "lines"), "0 lines");
        assert_eq!(counted(1, "entry", "entries"), "1 entry");
        assert_eq!(counted(2_500, "match", "matches"), "2,500 matches");
    }
}
