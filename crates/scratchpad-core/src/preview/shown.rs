//! Which line of the entry each line of a text preview shows, so that a view of the preview can
//! take a reader from a line of it to that line in the whole content. The preview's layout is
//! written in [`super::text`]; this reads it back, and its tests make both move together.

use crate::figures::thousands;

/// For each line of a text entry's `preview` (split at `\n`, without the piece after a final
/// newline), the line of the entry it shows: the head's and the tail's lines, each notable line (and
/// the detail under it), and for the omitted-part marker the first line it stands for. `None` for
/// the preview's own remarks. Only text previews show lines of the entry; a JSON or binary preview
/// describes its entry instead.
pub fn shown_lines(preview: &str) -> Vec<Option<u64>> {
    let lines: Vec<&str> = preview
        .strip_suffix('\n')
        .unwrap_or(preview)
        .split('\n')
        .collect();
    let Some((marker, omitted)) = lines
        .iter()
        .enumerate()
        .find_map(|(i, line)| omitted_marker(line).map(|span| (i, span)))
    else {
        // The whole content: line i of the preview is line i + 1.
        return (1..=lines.len() as u64).map(Some).collect();
    };
    let mut shown = Vec::with_capacity(lines.len());
    shown.extend((1..=marker as u64).map(Some));
    shown.push(Some(omitted.first));
    let mut at = marker + 1;
    // The remarks that follow the marker, in the order the preview writes them.
    for prefix in [LEVELS, UNGROUPED] {
        if lines.get(at).is_some_and(|line| line.starts_with(prefix)) {
            shown.push(None);
            at += 1;
        }
    }
    if lines
        .get(at)
        .is_some_and(|line| line.starts_with(NOTABLE_START))
    {
        shown.push(None);
        at += 1;
        while let Some(line) = lines.get(at) {
            at += 1;
            if *line == NOTABLE_END {
                shown.push(None);
                break;
            }
            shown.push(notable_number(line));
        }
    }
    let tail = (lines.len() - at) as u64;
    let first_tail_line = omitted.total.saturating_sub(tail) + 1;
    shown.extend((0..tail).map(|i| Some(first_tail_line + i)));
    shown
}

const LEVELS: &str = "[levels: ";
const UNGROUPED: &str = "[more than ";
const NOTABLE_START: &str = "[notable lines from the omitted part";
const NOTABLE_END: &str = "[... end of notable lines ...]";

/// The lines an omitted-part marker stands for: `[... 88,042 characters omitted: lines 12–2,391 of
/// 2,402 ...]`.
struct Omitted {
    first: u64,
    total: u64,
}

fn omitted_marker(line: &str) -> Option<Omitted> {
    let rest = line.strip_prefix("[... ")?.strip_suffix(" ...]")?;
    let (_, span) = rest.split_once(" characters omitted: ")?;
    let (lines, total) = span.rsplit_once(" of ")?;
    let first = lines
        .strip_prefix("lines ")
        .and_then(|range| range.split_once('–').map(|(first, _)| first))
        .or_else(|| lines.strip_prefix("line "))?;
    Some(Omitted {
        first: number(first)?,
        total: number(total)?,
    })
}

/// `   150000: text` (a notable line, or the detail under one) → 150000.
fn notable_number(line: &str) -> Option<u64> {
    let (number_part, _) = line.split_once(": ")?;
    let digits = number_part.trim_start();
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// A number as previews print it (`2,402`); only the forms [`thousands`] writes.
fn number(text: &str) -> Option<u64> {
    let value: u64 = text.replace(',', "").parse().ok()?;
    (thousands(value) == text).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preview::{PreviewConfig, text_preview};

    /// Each shown line's text against the line of the content it says it shows.
    fn assert_consistent(content: &str, preview: &str) -> Vec<Option<u64>> {
        let shown = shown_lines(preview);
        let content_lines: Vec<&str> = content.split('\n').collect();
        let preview_lines: Vec<&str> = preview
            .strip_suffix('\n')
            .unwrap_or(preview)
            .split('\n')
            .collect();
        assert_eq!(shown.len(), preview_lines.len(), "{preview}");
        for (text, line) in preview_lines.iter().zip(&shown) {
            let Some(line) = line else { continue };
            let original = content_lines[usize::try_from(*line).unwrap() - 1];
            // Head and tail lines are the content's (a tail may start inside a line); notable lines
            // carry their number and a possibly cut text.
            let stripped = text
                .split_once(": ")
                .filter(|(n, _)| n.trim().parse::<u64>() == Ok(*line))
                .map_or(*text, |(_, rest)| rest);
            let key: String = stripped.chars().take(20).collect();
            let key = key.trim_end_matches('…');
            assert!(
                original.contains(key) || text.starts_with("[... "),
                "preview line {text:?} claims line {line}: {original:?}"
            );
        }
        shown
    }

    #[test]
    fn head_notable_and_tail_lines_map_to_the_lines_they_show() {
        let content: String = (1..=3_000)
            .map(|i| match i {
                1_234 => "2026-11-21T10:00:00Z ERROR disk full on /var\n".to_owned(),
                2_100 => "2026-11-21T10:00:01Z FATAL cannot recover\n".to_owned(),
                _ => format!("2026-11-21T10:00:00Z INFO step {i} ok\n"),
            })
            .collect();
        let preview = text_preview(&content, &PreviewConfig::default()).text;
        let shown = assert_consistent(&content, &preview);
        assert_eq!(shown.first(), Some(&Some(1)));
        assert_eq!(shown.last(), Some(&Some(3_000)));
        assert!(shown.contains(&Some(1_234)), "{preview}");
        assert!(shown.contains(&Some(2_100)), "{preview}");
    }

    #[test]
    fn a_tail_that_starts_inside_a_line_and_no_final_newline_still_map() {
        let content: String = (1..=500)
            .map(|i| format!("a fairly long line number {i} with words\n"))
            .collect::<String>()
            + "no newline at the end";
        let preview = text_preview(&content, &PreviewConfig::default()).text;
        let shown = assert_consistent(&content, &preview);
        assert_eq!(shown.last(), Some(&Some(501)));
    }

    #[test]
    fn a_complete_preview_is_the_content_line_for_line() {
        assert_eq!(
            shown_lines("one\ntwo\nthree\n"),
            vec![Some(1), Some(2), Some(3)]
        );
    }

    #[test]
    fn numbers_are_read_only_as_previews_write_them() {
        assert_eq!(number("2,402"), Some(2_402));
        assert_eq!(number("2402"), None);
        assert_eq!(number("12"), Some(12));
        assert_eq!(notable_number("   150000: ERROR x"), Some(150_000));
        assert_eq!(notable_number("[3 more groups]"), None);
    }
}
