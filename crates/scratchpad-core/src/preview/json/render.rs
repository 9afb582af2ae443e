//! How a summary is written as preview text: a head line per position and its keys, kinds and
//! samples below it, tried from most to least detailed until it fits the budget, and cut after a
//! whole line when even the tersest does not.

use super::summary::{
    ArrStats, ID_FIELDS, Kind, MAX_SAMPLE_CHARS, MAX_TRACKED_KEYS, NumStats, ObjStats, Sample,
    Samples, Slot, StrStats, Text, cut_chars, shown_enum,
};
use crate::figures::thousands;

/// A prefix (or suffix) shared by every string sample is shown once, when at least this long
/// (chars).
const MIN_SHARED_CHARS: usize = 12;

/// Indentation per nesting level of the preview (chars).
const INDENT: &str = "  ";

/// How much of the summary to show; tried from most to least detailed until
/// the preview fits its budget. The outline (first-level keys) is given up
/// last, since it tells the model what to query.
#[derive(Debug)]
struct Detail {
    /// Keys listed per first-level object (count).
    top_keys: usize,
    /// Keys listed per deeper object (count).
    nested_keys: usize,
    /// Deepest indentation level rendered (levels).
    max_level: usize,
    /// Identifying fields sampled per array (count).
    id_fields: usize,
    /// Whether sample and enum lines are shown.
    samples: bool,
}

impl Detail {
    const fn new(top_keys: usize, nested_keys: usize, max_level: usize, id_fields: usize) -> Self {
        Self {
            top_keys,
            nested_keys,
            max_level,
            id_fields,
            samples: id_fields > 0,
        }
    }
}

const DETAILS: [Detail; 11] = [
    Detail::new(MAX_TRACKED_KEYS, MAX_TRACKED_KEYS, 4, 2),
    Detail::new(MAX_TRACKED_KEYS, 12, 4, 1),
    Detail::new(MAX_TRACKED_KEYS, 8, 3, 1),
    Detail::new(MAX_TRACKED_KEYS, 5, 3, 1),
    Detail::new(MAX_TRACKED_KEYS, 8, 2, 1),
    Detail::new(MAX_TRACKED_KEYS, 5, 2, 0),
    Detail::new(MAX_TRACKED_KEYS, 3, 2, 0),
    Detail::new(MAX_TRACKED_KEYS, 2, 2, 0),
    Detail::new(MAX_TRACKED_KEYS, 0, 1, 0),
    Detail::new(10, 0, 1, 0),
    Detail::new(5, 0, 1, 0),
];

pub(super) fn render(root: &Slot, budget_chars: usize) -> String {
    let mut tersest = Vec::new();
    for detail in &DETAILS {
        let lines = render_lines(root, detail);
        if chars_of_lines(&lines) <= budget_chars {
            return lines.join("\n");
        }
        tersest = lines;
    }
    cut_to_budget(&tersest, budget_chars)
}

fn render_lines(root: &Slot, detail: &Detail) -> Vec<String> {
    let head = match &root.obj {
        Some(obj) if root.total() == obj.count => {
            let keys = obj.max_keys;
            format!(
                "object, {} {}",
                thousands(keys),
                plural(keys, "key", "keys")
            )
        }
        _ => head(root),
    };
    let mut lines = vec![format!("JSON {head}")];
    children(root, 1, detail, &mut lines);
    if lines.len() > 1
        && let Some(first) = lines.first_mut()
    {
        first.push(':');
    }
    lines
}

/// One-line description of everything seen at a position.
fn head(slot: &Slot) -> String {
    let mut parts: Vec<(u64, String)> = Vec::new();
    if let Some(obj) = &slot.obj {
        parts.push((obj.count, object_head(obj)));
    }
    if let Some(arr) = &slot.arr {
        parts.push((arr.count, array_head(arr)));
    }
    if let Some(s) = &slot.str {
        parts.push((s.count, string_head(s)));
    }
    if let Some(n) = &slot.num {
        parts.push((n.count, number_head(n)));
    }
    if slot.trues + slot.falses > 0 {
        parts.push((slot.trues + slot.falses, bool_head(slot.trues, slot.falses)));
    }
    if slot.nulls > 0 {
        parts.push((slot.nulls, "null".to_owned()));
    }
    match parts.as_slice() {
        [] => "nothing".to_owned(),
        [(_, only)] => only.clone(),
        _ => {
            // Most frequent type first; the sort is stable, so ties keep the
            // fixed order above and the output stays deterministic.
            parts.sort_by_key(|(count, _)| std::cmp::Reverse(*count));
            let described: Vec<String> = parts
                .iter()
                .map(|(count, part)| format!("{part} ×{}", thousands(*count)))
                .collect();
            described.join(" | ")
        }
    }
}

fn object_head(obj: &ObjStats) -> String {
    format!("object{{{}}}", range(obj.min_keys, obj.max_keys))
}

fn array_head(arr: &ArrStats) -> String {
    let mut out = format!("array[{}]", range(arr.min_len, arr.max_len));
    if arr.tracked && !arr.items.is_empty() {
        let items = head(&arr.items);
        if items.contains(" | ") {
            out.push_str(&format!(" of ({items})"));
        } else {
            out.push_str(&format!(" of {items}"));
        }
    }
    out
}

fn string_head(s: &StrStats) -> String {
    if s.count == 1 {
        format!("string({}) = {}", thousands(s.max_chars), s.first.quoted())
    } else {
        format!("string({})", range(s.min_chars, s.max_chars))
    }
}

fn number_head(n: &NumStats) -> String {
    if n.count == 1 || n.min.as_f64() == n.max.as_f64() {
        format!("number = {}", n.min)
    } else {
        format!("number {}..{}", n.min, n.max)
    }
}

fn bool_head(trues: u64, falses: u64) -> String {
    match (trues, falses) {
        (_, 0) => "true".to_owned(),
        (0, _) => "false".to_owned(),
        _ => format!(
            "boolean (true ×{}, false ×{})",
            thousands(trues),
            thousands(falses)
        ),
    }
}

/// Lines below a position's head line, at indentation `level`.
fn children(slot: &Slot, level: usize, detail: &Detail, out: &mut Vec<String>) {
    if level > detail.max_level {
        return;
    }
    if let Some(obj) = &slot.obj {
        object_children(obj, level, detail, out);
    }
    if let Some(arr) = &slot.arr {
        array_children(arr, level, detail, out);
    }
    if detail.samples
        && let Some(values) = shown_enum(slot)
    {
        let listed: Vec<String> = values
            .iter()
            .map(|(value, count)| format!("{} ×{}", quote(value, false), thousands(*count)))
            .collect();
        out.push(format!("{}values: {}", indent(level), listed.join(", ")));
    }
}

fn object_children(obj: &ObjStats, level: usize, detail: &Detail, out: &mut Vec<String>) {
    if !obj.tracked {
        return;
    }
    let max_keys = if level <= 1 {
        detail.top_keys
    } else {
        detail.nested_keys
    };
    let shown = obj.keys.len().min(max_keys);
    // When only some keys fit, show the most common ones, in document order.
    let mut picked: Vec<usize> = (0..obj.keys.len()).collect();
    picked.sort_by_key(|&i| std::cmp::Reverse(obj.keys.get(i).map_or(0, |entry| entry.present)));
    picked.truncate(shown);
    picked.sort_unstable();
    for entry in picked.iter().filter_map(|&i| obj.keys.get(i)) {
        let presence = if entry.present < obj.count {
            format!(
                " (in {} of {})",
                thousands(entry.present),
                thousands(obj.count)
            )
        } else {
            String::new()
        };
        out.push(format!(
            "{}{}{presence}: {}",
            indent(level),
            entry.name.quoted(),
            head(&entry.slot)
        ));
        let key_line = out.len() - 1;
        children(&entry.slot, level + 1, detail, out);
        if out.len() > key_line + 1
            && let Some(line) = out.get_mut(key_line)
        {
            line.push(':');
        }
    }
    let (hidden, at_least) = if obj.count == 1 {
        (obj.max_keys.saturating_sub(shown as u64), false)
    } else {
        let tracked_hidden = (obj.keys.len() - shown) as u64;
        (
            tracked_hidden + obj.other_keys.len() as u64,
            obj.other_keys_overflow,
        )
    };
    if hidden > 0 {
        let at_least = if at_least { "≥" } else { "" };
        out.push(format!(
            "{}… {at_least}{} more {}",
            indent(level),
            thousands(hidden),
            plural(hidden, "key", "keys")
        ));
    }
}

fn array_children(arr: &ArrStats, level: usize, detail: &Detail, out: &mut Vec<String>) {
    if !arr.tracked {
        return;
    }
    // Items are described on the array's own line, so their contents sit
    // one level below it, like an object's keys.
    children(&arr.items, level, detail, out);
    if !detail.samples {
        return;
    }
    if let Some(kinds) = kinds_line(arr) {
        out.push(format!("{}{kinds}", indent(level)));
    }
    // A field already listed with all its distinct values needs no samples.
    let listed_as_enum = |field: &str| {
        arr.items.obj.as_ref().is_some_and(|obj| {
            obj.keys
                .iter()
                .any(|entry| entry.name.text == field && shown_enum(&entry.slot).is_some())
        })
    };
    // Fields whose samples tell items apart come first, short ones before long ones: `name`
    // before an `id` of 90 characters, and before a `type` every item shares.
    let mut id_lines: Vec<(&&str, &Samples)> = ID_FIELDS
        .iter()
        .zip(&arr.ids)
        .filter(|(field, samples)| samples.count > 0 && !listed_as_enum(field))
        .collect();
    id_lines.sort_by_key(|(field, samples)| {
        let long = arr.items.obj.as_ref().is_some_and(|obj| {
            obj.keys.iter().any(|entry| {
                entry.name.text == **field
                    && entry
                        .slot
                        .str
                        .as_ref()
                        .is_some_and(|s| s.max_chars > MAX_SAMPLE_CHARS as u64)
            })
        });
        (samples.shown() < 2, long)
    });
    let id_lines = id_lines.into_iter().take(detail.id_fields);
    for (field, samples) in id_lines {
        out.push(format!(
            "{}samples of .{field}: {}",
            indent(level),
            sample_list(samples)
        ));
    }
    if arr.values.count > 0 && arr.items.has_scalars() && shown_enum(&arr.items).is_none() {
        out.push(format!(
            "{}samples: {}",
            indent(level),
            sample_list(&arr.values)
        ));
    }
}

/// The distinct samples; strings that share a long prefix or suffix are shown by the part that
/// tells them apart, with the shared part said once: `"…anyhow@1.0.86", "…serde@1.0.200"
/// (all start "registry+https://github.com/rust-lang/crates.io-index#")`.
fn sample_list(samples: &Samples) -> String {
    let all: Vec<&Sample> = samples.first.iter().chain(samples.last.as_ref()).collect();
    let strings: Vec<&Text> = all
        .iter()
        .filter_map(|s| match s {
            Sample::Str(text) => Some(text),
            _ => None,
        })
        .collect();
    // What the samples shown share is said once, so that each shows what tells it apart; "all"
    // only when every value shares it, not just the samples.
    let (prefix, suffix) = if strings.len() >= 2 && strings.len() == all.len() {
        shared_affixes(&strings, usize::MAX, usize::MAX)
    } else {
        (0, 0)
    };
    let all_start = prefix <= samples.shared.prefix.chars().count();
    let all_end = suffix <= samples.shared.suffix_rev.chars().count();
    let text_of = |sample: &Sample| match sample {
        Sample::Str(text) if prefix + suffix > 0 => distinct_part(text, prefix, suffix),
        other => sample_text(other),
    };
    let mut shown: Vec<String> = samples.first.iter().map(text_of).collect();
    if let Some(last) = &samples.last {
        if samples.count > samples.shown() as u64 {
            shown.push("…".to_owned());
        }
        shown.push(text_of(last));
    }
    let mut out = shown.join(", ");
    if let Some(first) = strings.first() {
        if prefix > 0 {
            let shared: String = first.text.chars().take(prefix).collect();
            let (kept, cut) = cut_chars(&shared, 2 * MAX_SAMPLE_CHARS);
            let who = if all_start { "all" } else { "these" };
            out.push_str(&format!(" ({who} start {})", quote(kept, cut)));
        }
        if suffix > 0 {
            let chars = first.text.chars().count();
            let shared: String = first.text.chars().skip(chars - suffix).collect();
            let who = if all_end { "all" } else { "these" };
            out.push_str(&format!(" ({who} end {})", quote(&shared, false)));
        }
    }
    out
}

/// Characters shared at the start and at the end of every string (0 when under
/// [`MIN_SHARED_CHARS`]), cut back to a boundary between words so that the parts shown read well.
/// The samples are not every value: what they share is capped by what all values share
/// (`max_prefix`, `max_suffix` characters).
fn shared_affixes(strings: &[&Text], max_prefix: usize, max_suffix: usize) -> (usize, usize) {
    let chars: Vec<Vec<char>> = strings.iter().map(|t| t.text.chars().collect()).collect();
    let shortest = chars.iter().map(Vec::len).min().unwrap_or(0);
    let mut prefix = (0..shortest.min(max_prefix))
        .take_while(|&i| chars.iter().all(|c| c[i] == chars[0][i]))
        .count();
    // Back to just after a separator, and leave every value something of its own.
    while prefix > 0
        && (prefix == shortest
            || chars[0][prefix - 1].is_alphanumeric() && chars[0][prefix].is_alphanumeric())
    {
        prefix -= 1;
    }
    if prefix < MIN_SHARED_CHARS {
        prefix = 0;
    }
    // A cut string's end is not its end.
    let mut suffix = if strings.iter().any(|t| t.cut) {
        0
    } else {
        (0..(shortest - prefix).min(max_suffix))
            .take_while(|&i| {
                chars
                    .iter()
                    .all(|c| c[c.len() - 1 - i] == chars[0][chars[0].len() - 1 - i])
            })
            .count()
    };
    let first = &chars[0];
    while suffix > 0
        && (prefix + suffix == shortest
            || first[first.len() - suffix].is_alphanumeric()
                && first[first.len() - suffix - 1].is_alphanumeric())
    {
        suffix -= 1;
    }
    if suffix < MIN_SHARED_CHARS {
        suffix = 0;
    }
    (prefix, suffix)
}

/// `"…middle…"`: a string without its shared prefix and suffix, cut to [`MAX_SAMPLE_CHARS`].
fn distinct_part(text: &Text, prefix: usize, suffix: usize) -> String {
    let chars = text.text.chars().count();
    let middle: String = text
        .text
        .chars()
        .skip(prefix)
        .take(chars - prefix - suffix)
        .collect();
    let (kept, cut) = cut_chars(&middle, MAX_SAMPLE_CHARS);
    let mut out = quote(kept, cut || (text.cut && suffix == 0));
    if prefix > 0 {
        out.insert(1, '…');
    }
    if suffix > 0 && !cut {
        out.insert(out.len() - 1, '…');
    }
    out
}

fn sample_text(sample: &Sample) -> String {
    match sample {
        Sample::Null => "null".to_owned(),
        Sample::Bool(b) => b.to_string(),
        Sample::Num(n) => n.to_string(),
        Sample::Str(text) => {
            let (kept, cut) = cut_chars(&text.text, MAX_SAMPLE_CHARS);
            quote(kept, cut || text.cut)
        }
        Sample::Array => "[…]".to_owned(),
        Sample::Object => "{…}".to_owned(),
    }
}

/// `kinds: {id,name,price} ×40, {… +error} ×2, string ×1` for arrays whose object items do not
/// all have the same keys; `None` when they do.
fn kinds_line(arr: &ArrStats) -> Option<String> {
    let kinds = &arr.kinds;
    let key_sets = kinds
        .seen
        .iter()
        .filter(|(k, _)| matches!(k, Kind::Object(_)))
        .count();
    if key_sets < 2 {
        return None;
    }
    let names: Vec<&str> = arr
        .items
        .obj
        .as_ref()
        .map(|obj| obj.keys.iter().map(|k| k.name.text.as_str()).collect())
        .unwrap_or_default();
    let mut seen: Vec<&(Kind, u64)> = kinds.seen.iter().collect();
    seen.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let base = seen.iter().find_map(|(k, _)| match k {
        Kind::Object(mask) => Some(*mask),
        _ => None,
    });
    let name = |bit: u32| -> String {
        match names.get(bit as usize) {
            Some(name) if bit < 63 => cut_chars(name, 16).0.to_owned(),
            _ => "…".to_owned(),
        }
    };
    let bits = |mask: u64| (0..64).filter(move |b| mask & (1 << b) != 0);
    let label = |kind: &Kind| -> String {
        match *kind {
            Kind::Null => "null".to_owned(),
            Kind::Bool => "boolean".to_owned(),
            Kind::Number => "number".to_owned(),
            Kind::String => "string".to_owned(),
            Kind::Array => "array".to_owned(),
            Kind::Object(mask) if Some(mask) == base => {
                let listed: Vec<String> = bits(mask).take(6).map(name).collect();
                let more = if bits(mask).count() > 6 { ",…" } else { "" };
                format!("{{{}{more}}}", listed.join(","))
            }
            Kind::Object(mask) => {
                let base = base.unwrap_or(0);
                let added = bits(mask & !base).take(4).map(|b| format!("+{}", name(b)));
                let removed = bits(base & !mask).take(4).map(|b| format!("-{}", name(b)));
                let changes: Vec<String> = added.chain(removed).collect();
                format!("{{… {}}}", changes.join(" "))
            }
        }
    };
    let mut parts: Vec<String> = seen
        .iter()
        .map(|(kind, n)| format!("{} ×{}", label(kind), thousands(*n)))
        .collect();
    if kinds.other > 0 {
        parts.push(format!("other ×{}", thousands(kinds.other)));
    }
    let total = seen.len() + usize::from(kinds.other > 0);
    Some(format!("{total} kinds: {}", parts.join(", ")))
}

impl Text {
    fn quoted(&self) -> String {
        quote(&self.text, self.cut)
    }
}

fn range(min: u64, max: u64) -> String {
    if min == max {
        thousands(min)
    } else {
        format!("{}..{}", thousands(min), thousands(max))
    }
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

fn indent(level: usize) -> String {
    INDENT.repeat(level)
}

/// `s` as a JSON string literal, with "…" inside the quotes if it was cut.
/// Escaping keeps every value on its own line.
fn quote(s: &str, cut: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // U+2028/2029 end lines in some viewers, like control characters.
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    if cut {
        out.push('…');
    }
    out.push('"');
    out
}

fn chars_of_lines(lines: &[String]) -> usize {
    lines.iter().map(|line| line.chars().count()).sum::<usize>() + lines.len().saturating_sub(1)
}

/// Keeps whole lines while they fit, then a "…" line; cuts inside the first
/// line only when not even that fits.
fn cut_to_budget(lines: &[String], budget_chars: usize) -> String {
    const ELLIPSIS: &str = "…";
    if chars_of_lines(lines) <= budget_chars {
        return lines.join("\n");
    }
    let mut out = String::new();
    let mut used = 0;
    for line in lines {
        let separator = usize::from(!out.is_empty());
        // Room for this line plus the final "\n…".
        let needed = separator + line.chars().count() + 2;
        if used + needed > budget_chars {
            break;
        }
        if separator == 1 {
            out.push('\n');
        }
        out.push_str(line);
        used += needed - 2;
    }
    if out.is_empty() {
        let first = lines.first().map_or("", String::as_str);
        let (kept, _) = cut_chars(first, budget_chars.saturating_sub(1));
        return if budget_chars == 0 {
            String::new()
        } else {
            format!("{kept}{ELLIPSIS}")
        };
    }
    out.push('\n');
    out.push_str(ELLIPSIS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_whole_lines() {
        let lines: Vec<String> = ["first line", "second", "third"].map(String::from).to_vec();
        assert_eq!(cut_to_budget(&lines, 100), "first line\nsecond\nthird");
        assert_eq!(cut_to_budget(&lines, 20), "first line\nsecond\n…");
        assert_eq!(cut_to_budget(&lines, 12), "first line\n…");
        assert_eq!(cut_to_budget(&lines, 11), "first line…");
        assert_eq!(cut_to_budget(&lines, 5), "firs…");
        assert_eq!(cut_to_budget(&lines, 1), "…");
        assert_eq!(cut_to_budget(&lines, 0), "");
    }
}
