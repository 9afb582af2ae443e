//! Listings of paths (`find`, `git ls-files`, `tar -t`, `fd`, `rg --files`): one path a line and
//! nothing else, where head and tail show a few names and every line has the same template. What
//! a reader wants first is the tree: the directories that hold most of the paths, with counts,
//! and the extensions.
//!
//! Counted while the lines stream past, within bounded memory: directory counts at the first
//! `DEPTH` levels below the root, and extensions, each map capped. A listing stops being counted
//! as soon as too many of its lines are not paths, so other outputs pay for a few lines only.

use std::collections::HashMap;

use crate::figures::thousands;

/// Directory levels counted below the root of each path.
const DEPTH: usize = 4;
/// Distinct directories counted; later ones are left out of the tree (their paths still count).
const MAX_DIRECTORIES: usize = 4_096;
/// Distinct extensions counted.
const MAX_EXTENSIONS: usize = 256;
/// Bytes of a line that may be a path.
const MAX_PATH_BYTES: usize = 4_096;
/// Lines that must be seen before an output can be called a listing.
const MIN_PATHS: u64 = 20;
/// Directories and extensions a preview names.
const SHOWN: usize = 6;
/// Characters of each of the two lines a listing's summary takes, at most.
pub const MAX_RENDER_CHARS: usize = 800;

/// What the lines seen so far say about a listing of paths.
#[derive(Debug, Default)]
pub struct PathStats {
    lines: u64,
    paths: u64,
    /// Counting stopped: too many lines were not paths.
    off: bool,
    directories: HashMap<Vec<u8>, u64>,
    extensions: HashMap<Vec<u8>, u64>,
    /// Paths without an extension.
    bare: u64,
}

/// A path on its own line: no blanks or control characters, and a `/` in it, or a name with an
/// extension.
fn is_path(line: &[u8]) -> bool {
    !line.is_empty()
        && line.len() <= MAX_PATH_BYTES
        && !line.ends_with(b":")
        && line.iter().all(|&b| b > b' ' && b != 0x7f)
        && memchr::memchr(b'/', line).is_some()
}

impl PathStats {
    /// Feeds one line (without its newline).
    #[inline]
    pub fn line(&mut self, line: &[u8]) {
        // Every line of every preview comes through here and most outputs are not listings: the
        // stopped case stays a test in the caller, without the cost of a call.
        if !self.off {
            self.count(line);
        }
    }

    fn count(&mut self, line: &[u8]) {
        self.lines += 1;
        if line.is_empty() {
            return;
        }
        if !is_path(line) {
            // One line in ten may be something else (a header, a `find: … Permission denied`).
            if (self.lines - self.paths) * 10 > self.lines.max(MIN_PATHS) {
                self.off = true;
                self.directories = HashMap::new();
                self.extensions = HashMap::new();
            }
            return;
        }
        self.paths += 1;
        let path = line.strip_suffix(b"/").unwrap_or(line);
        let (dir, name) = match memchr::memrchr(b'/', path) {
            Some(slash) => (&path[..slash], &path[slash + 1..]),
            None => (&path[..0], path),
        };
        // Every directory above the path, from the root down, to DEPTH levels.
        let mut end = 0;
        for _ in 0..DEPTH {
            let from = if end == 0 && dir.first() == Some(&b'/') {
                1
            } else {
                end + 1
            };
            if from > dir.len() {
                break;
            }
            end = memchr::memchr(b'/', &dir[from..]).map_or(dir.len(), |s| from + s);
            let key = &dir[..end];
            if let Some(count) = self.directories.get_mut(key) {
                *count += 1;
            } else if self.directories.len() < MAX_DIRECTORIES {
                self.directories.insert(key.to_vec(), 1);
            }
            if end == dir.len() {
                break;
            }
        }
        match memchr::memrchr(b'.', name) {
            Some(dot) if dot > 0 && name.len() - dot <= 12 => {
                let ext = &name[dot..];
                if let Some(count) = self.extensions.get_mut(ext) {
                    *count += 1;
                } else if self.extensions.len() < MAX_EXTENSIONS {
                    self.extensions.insert(ext.to_vec(), 1);
                }
            }
            _ => self.bare += 1,
        }
    }

    /// True when the lines seen are a listing of paths.
    pub fn is_listing(&self) -> bool {
        !self.off && self.paths >= MIN_PATHS && self.paths * 10 >= self.lines * 9
    }

    /// The directory that holds the most paths below the listing's common root, and its count.
    pub fn largest_directory(&self) -> Option<(String, u64)> {
        let root = self.root();
        self.children(&root)
            .into_iter()
            .next()
            .map(|(dir, count)| (String::from_utf8_lossy(&dir).into_owned(), count))
    }

    /// The deepest directory that holds every path (`/usr` for `find /usr`), empty when none.
    fn root(&self) -> Vec<u8> {
        let mut root: Vec<u8> = Vec::new();
        loop {
            let next = self
                .children(&root)
                .into_iter()
                .find(|(_, count)| *count == self.paths);
            match next {
                Some((dir, _)) => root = dir,
                None => return root,
            }
        }
    }

    /// The directories right below `parent` (`""` for the top), most paths first.
    fn children(&self, parent: &[u8]) -> Vec<(Vec<u8>, u64)> {
        let mut out: Vec<(Vec<u8>, u64)> = self
            .directories
            .iter()
            .filter(|(dir, _)| is_child(parent, dir))
            .map(|(dir, &count)| (dir.clone(), count))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// `[7,743 paths under /usr: include/ 7,158 (x86_64-linux-gnu/ 1,504, …), lib/ 412, …]` and
    /// the extensions, or nothing when the lines are not a listing.
    pub fn render(&self) -> Option<String> {
        if !self.is_listing() {
            return None;
        }
        let root = self.root();
        let label = |dir: &[u8], parent: &[u8]| {
            let rest = &dir[parent.len()..];
            let rest = rest.strip_prefix(b"/").unwrap_or(rest);
            format!("{}/", String::from_utf8_lossy(rest))
        };
        let mut parts = Vec::new();
        let children = self.children(&root);
        for (dir, count) in children.iter().take(SHOWN) {
            let grandchildren = self.children(dir);
            let inner: Vec<String> = grandchildren
                .iter()
                .take(3)
                .map(|(g, c)| format!("{} {}", label(g, dir), thousands(*c)))
                .collect();
            let more = if grandchildren.len() > 3 { ", …" } else { "" };
            if inner.is_empty() {
                parts.push(format!("{} {}", label(dir, &root), thousands(*count)));
            } else {
                parts.push(format!(
                    "{} {} ({}{more})",
                    label(dir, &root),
                    thousands(*count),
                    inner.join(", ")
                ));
            }
        }
        if children.len() > SHOWN {
            parts.push(format!(
                "{} more directories",
                thousands(children.len() as u64 - SHOWN as u64)
            ));
        }
        let under = if root.is_empty() {
            String::new()
        } else {
            format!(" under {}", String::from_utf8_lossy(&root))
        };
        let mut text = super::clip::shorten(
            &format!(
                "[{} paths{under}: {}",
                thousands(self.paths),
                if parts.is_empty() {
                    "no subdirectories".to_owned()
                } else {
                    parts.join(", ")
                }
            ),
            MAX_RENDER_CHARS - 2,
        );
        text.push_str("]\n");
        let mut extensions: Vec<(&Vec<u8>, &u64)> = self.extensions.iter().collect();
        extensions.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let mut named: Vec<String> = extensions
            .iter()
            .take(SHOWN)
            .map(|(ext, count)| format!("{} {}", String::from_utf8_lossy(ext), thousands(**count)))
            .collect();
        if extensions.len() > SHOWN {
            named.push(format!(
                "{} more",
                thousands((extensions.len() - SHOWN) as u64)
            ));
        }
        if self.bare > 0 {
            named.push(format!("no extension {}", thousands(self.bare)));
        }
        let extensions = format!("[by extension: {}", named.join(", "));
        text.push_str(&super::clip::shorten(&extensions, MAX_RENDER_CHARS - 2));
        text.push_str("]\n");
        Some(text)
    }
}

/// True when `dir` sits right below `parent` (`""` is above the top directories).
fn is_child(parent: &[u8], dir: &[u8]) -> bool {
    if parent.is_empty() {
        // A top directory: `/usr`, `src`, `.` — no further `/` after its first byte.
        return memchr::memchr(b'/', dir.get(1..).unwrap_or_default()).is_none();
    }
    dir.len() > parent.len() + 1
        && dir.starts_with(parent)
        && dir[parent.len()] == b'/'
        && memchr::memchr(b'/', &dir[parent.len() + 1..]).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(lines: &[&str]) -> PathStats {
        let mut stats = PathStats::default();
        for line in lines {
            stats.line(line.as_bytes());
        }
        stats
    }

    #[test]
    fn a_find_listing_is_summed_up_by_directory_and_extension() {
        let mut lines = Vec::new();
        for i in 0..30 {
            lines.push(format!("/usr/include/linux/h{i}.h"));
        }
        for i in 0..10 {
            lines.push(format!("/usr/include/x86_64-linux-gnu/bits/b{i}.h"));
        }
        for i in 0..5 {
            lines.push(format!("/usr/lib/gcc/g{i}.h"));
        }
        lines.push("/usr/share/doc/README".to_owned());
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let stats = stats(&refs);
        let text = stats.render().unwrap();
        assert!(text.starts_with("[46 paths under /usr: include/ 40 (linux/ 30, x86_64-linux-gnu/ 10), lib/ 5 (gcc/ 5), share/ 1 (doc/ 1)]"), "{text}");
        assert!(
            text.contains("[by extension: .h 45, no extension 1]"),
            "{text}"
        );
        assert_eq!(
            stats.largest_directory(),
            Some(("/usr/include".to_owned(), 40))
        );
    }

    #[test]
    fn a_log_is_not_a_listing_and_stops_being_counted() {
        let mut stats = PathStats::default();
        for i in 0..1000 {
            stats.line(format!("2026-11-21T10:00:{i:02} INFO GET /api/v1/items/{i}").as_bytes());
        }
        assert!(!stats.is_listing());
        assert!(stats.off);
        assert!(stats.render().is_none());
    }

    #[test]
    fn relative_listings_have_no_common_root_unless_they_share_one() {
        let lines: Vec<String> = (0..25).map(|i| format!("src/mod{i}/lib.rs")).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let text = stats(&refs).render().unwrap();
        assert!(text.starts_with("[25 paths under src: mod0/ 1, "), "{text}");
    }
}
