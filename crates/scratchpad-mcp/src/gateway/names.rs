//! Names the gateway lists an upstream's tools and prompts under: `server__tool`, made of the
//! characters every model API accepts in a tool name (`^[A-Za-z0-9_-]{1,64}$`: OpenAI, Anthropic
//! and Gemini each reject dots, spaces and longer names), unique across all upstreams and the
//! scratchpad's own tools, and the same for the same servers and tools every time.

use std::collections::HashSet;

/// Longest name every model API accepts (characters, all ASCII here).
pub const MAX_NAME_CHARS: usize = 64;
/// Between the server's part and the tool's.
pub const SEPARATOR: &str = "__";
/// Hex digits of the hash that tells shortened or clashing names apart.
const HASH_HEX_DIGITS: usize = 8;

/// Whether `name` is accepted by every model API as a tool name.
pub fn is_valid(name: &str) -> bool {
    (1..=MAX_NAME_CHARS).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// The name `item` of `server` would have if nothing had to change: the one a name is compared
/// with to decide whether its description must say what the upstream calls it.
pub fn plain(server: &str, item: &str) -> String {
    format!("{server}{SEPARATOR}{item}")
}

/// Listed names for `items` (server, tool or prompt name), in the same order: `server__item` with
/// every character outside `[A-Za-z0-9_-]` replaced by `_`; a name longer than 64 characters, or
/// one that would clash with a `reserved` name or another item's, is cut and ends in `_` and a
/// hash of the original server and item names. Which of two clashing items keeps the plain name
/// does not depend on the order they are given in: an item whose name needed no change wins, then
/// the smaller (server, item) pair.
pub fn assign(items: &[(&str, &str)], reserved: &[&str]) -> Vec<String> {
    let candidates: Vec<(String, bool)> = items
        .iter()
        .map(|(server, item)| {
            let joined = format!("{}{SEPARATOR}{}", sanitize(server), sanitize(item));
            let unchanged = joined == plain(server, item);
            if joined.len() > MAX_NAME_CHARS {
                (hashed(&joined, server, item, 0), false)
            } else {
                (joined, unchanged)
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| {
        candidates[b]
            .1
            .cmp(&candidates[a].1)
            .then_with(|| items[a].cmp(&items[b]))
    });
    let mut taken: HashSet<String> = reserved.iter().map(|name| (*name).to_owned()).collect();
    let mut names = vec![String::new(); items.len()];
    for index in order {
        let (server, item) = items[index];
        let mut name = candidates[index].0.clone();
        let mut salt = 0;
        while taken.contains(&name) {
            salt += 1;
            name = hashed(&candidates[index].0, server, item, salt);
        }
        taken.insert(name.clone());
        names[index] = name;
    }
    names
}

/// `text` with every character a model API refuses in a name replaced by `_`; never empty.
pub(crate) fn sanitize(text: &str) -> String {
    if text.is_empty() {
        return "_".to_owned();
    }
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `base` cut to leave room for `_` and the hash of (`server`, `item`, `salt`).
fn hashed(base: &str, server: &str, item: &str, salt: u32) -> String {
    let mut hasher = blake3::Hasher::new();
    // Lengths first, so ("a_", "b") and ("a", "_b") hash apart.
    hasher.update(&(server.len() as u64).to_le_bytes());
    hasher.update(server.as_bytes());
    hasher.update(&(item.len() as u64).to_le_bytes());
    hasher.update(item.as_bytes());
    hasher.update(&salt.to_le_bytes());
    let hex = hasher.finalize().to_hex();
    let keep = MAX_NAME_CHARS - 1 - HASH_HEX_DIGITS;
    // `base` is ASCII (sanitized), so any byte index is a character boundary.
    let cut = &base[..base.len().min(keep)];
    format!("{cut}_{}", &hex[..HASH_HEX_DIGITS])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_names_stay_as_they_are() {
        let names = assign(
            &[("filesystem", "read_file"), ("everything", "echo")],
            &["scratchpad_read"],
        );
        assert_eq!(names, ["filesystem__read_file", "everything__echo"]);
    }

    #[test]
    fn dots_and_spaces_become_underscores() {
        assert_eq!(
            assign(&[("my.server", "get item")], &[]),
            ["my_server__get_item"]
        );
    }

    #[test]
    fn a_long_name_is_cut_and_ends_in_a_hash() {
        let tool = "a".repeat(80);
        let name = &assign(&[("github", &tool)], &[])[0];
        assert_eq!(name.len(), MAX_NAME_CHARS);
        assert!(name.starts_with("github__aaaa"));
        assert!(is_valid(name));
    }

    #[test]
    fn of_two_servers_that_read_alike_the_exact_one_keeps_the_plain_name() {
        for items in [
            [("every.thing", "echo"), ("every_thing", "echo")],
            [("every_thing", "echo"), ("every.thing", "echo")],
        ] {
            let names = assign(&items, &[]);
            let exact = items
                .iter()
                .position(|(s, _)| *s == "every_thing")
                .unwrap_or(0);
            assert_eq!(names[exact], "every_thing__echo");
            assert!(names[1 - exact].starts_with("every_thing__echo_"));
        }
    }

    fn name_part() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z_]{1,12}",
            "[A-Za-z0-9_.\\- ]{0,30}",
            "\\PC{0,90}",
            Just("scratchpad".to_owned()),
            Just("read".to_owned()),
        ]
    }

    proptest! {
        #[test]
        fn any_names_give_valid_unique_names_whatever_their_order(
            items in proptest::collection::vec((name_part(), name_part()), 0..24),
        ) {
            let borrowed: Vec<(&str, &str)> =
                items.iter().map(|(s, t)| (s.as_str(), t.as_str())).collect();
            let reserved = ["scratchpad_read", "scratchpad__read"];
            let names = assign(&borrowed, &reserved);
            prop_assert_eq!(names.len(), borrowed.len());
            let unique: HashSet<&String> = names.iter().collect();
            prop_assert_eq!(unique.len(), names.len());
            for name in &names {
                prop_assert!(is_valid(name), "invalid name {:?}", name);
                prop_assert!(!reserved.contains(&name.as_str()));
            }
            prop_assert_eq!(&assign(&borrowed, &reserved), &names);
            // Given in the opposite order, every item keeps its name (unless two items are the
            // same pair, which are interchangeable).
            let mut reversed = borrowed.clone();
            reversed.reverse();
            let mut again = assign(&reversed, &reserved);
            again.reverse();
            let distinct: HashSet<&(&str, &str)> = borrowed.iter().collect();
            if distinct.len() == borrowed.len() {
                prop_assert_eq!(again, names);
            }
        }
    }
}
