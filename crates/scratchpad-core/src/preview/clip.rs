//! Lines cut to a width for showing, the one way every part of a preview cuts them.

/// At most `max` characters of `line`, with `…` when cut.
pub fn shorten(line: &str, max: usize) -> String {
    let line = line.trim_end_matches('\r');
    match line.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}
