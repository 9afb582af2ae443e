//! What a user or a client types as a lifetime, a lease's length, a lease's name and its holder, as
//! the engine parses them (every face calls these). Nothing panics; what parses prints back to text
//! that parses the same; a name refused or escaped is never recorded with a character that
//! distorts a table; and no message about a lease's length suggests `never`, which leases refuse.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scratchpad_core::Ttl;
use scratchpad_core::model::{author_from_client, unsafe_in_name, validate_author, validate_name};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);

    if let Ok(ttl) = text.parse::<Ttl>() {
        let shown = ttl.to_string();
        assert_eq!(
            shown.parse::<Ttl>().ok(),
            Some(ttl),
            "{text:?} shown as {shown:?}"
        );
    }

    match Ttl::parse_lease(&text) {
        Ok(length) => {
            let shown = format!("{}s", length.as_secs());
            assert_eq!(length.subsec_nanos(), 0, "{text:?}");
            assert_eq!(
                Ttl::parse_lease(&shown).ok(),
                Some(length),
                "{text:?} as {shown:?}"
            );
        }
        Err(err) => {
            let message = err.to_string();
            assert!(!message.contains("or `never`"), "{text:?}: {message}");
        }
    }

    if validate_name("name", &text).is_ok() {
        assert!(text.bytes().all(|b| b.is_ascii_graphic()), "{text:?}");
    }

    if validate_author(&text).is_ok() {
        assert!(
            text.trim().chars().all(|c| unsafe_in_name(c).is_none()),
            "{text:?}"
        );
    }
    if let Some(recorded) = author_from_client(&text) {
        assert!(
            validate_author(&recorded).is_ok(),
            "{text:?} recorded as {recorded:?}"
        );
        assert_eq!(
            author_from_client(&recorded).as_deref(),
            Some(recorded.as_str())
        );
    }
});
