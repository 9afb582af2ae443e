//! Forms of lines that differ by one name: `Inst bash [5.2-2] (…)`, `Inst coreutils [9.1-1] (…)`.
//! The template masks what looks variable (numbers, paths, ids), but a name made of letters
//! (a package, a host, a user, a table) looks like a word, so a package list, an install log or
//! an inventory had one template per name: a summary of 1,024 templates that says nothing.
//!
//! A place of a form is masked once lines that are the same everywhere else have taken
//! [`VARIANTS_TO_MASK`] different words there: more than an enumeration has (`connection reset`,
//! `refused`, `closed` stay apart), as few as a list of names passes at once. The groups seen so
//! far at that place are then merged into the first, whose template gets `#` there, and later
//! lines of the form join it.
//!
//! Only new templates do this work (a template seen before finds its group by its hash), and
//! memory is bounded: at most [`MAX_FORMS`] places are remembered, each with a few group numbers.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::template::{hash, words};

/// Different words one place takes before it is masked (count).
pub(crate) const VARIANTS_TO_MASK: usize = 8;

/// Words of a template tried as the place that varies, at most (bounds the work per template).
const MAX_PLACES: usize = 16;

/// Places remembered, at most (each about 100 bytes).
const MAX_FORMS: usize = 65_536;

/// What is known about one place of one form.
#[derive(Debug, Default)]
struct Form {
    /// Groups of the form with different words at the place, first seen first.
    groups: Vec<u32>,
    /// The group they became one with, once there were enough.
    merged: Option<u32>,
}

/// A place of a template: the number of its word, and the key of the template with that word
/// masked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    pub word: usize,
    pub key: u64,
}

/// The forms seen, by the templates their places make.
#[derive(Debug, Default)]
pub(crate) struct Forms {
    forms: HashMap<u64, Form, BuildHasherDefault<super::template::Prehashed>>,
    scratch: Vec<u8>,
}

impl Forms {
    /// The places of `template` where a word stands (not `#`), each keyed by the template with
    /// that word masked and `mix` (the level and kind the group key holds).
    pub fn places(&mut self, template: &[u8], mix: u64) -> Vec<Place> {
        let mut places = Vec::new();
        for (word, (start, end)) in words(template).enumerate() {
            if places.len() >= MAX_PLACES {
                break;
            }
            if &template[start..end] == b"#" {
                continue;
            }
            self.scratch.clear();
            self.scratch.extend_from_slice(&template[..start]);
            self.scratch.push(b'#');
            self.scratch.extend_from_slice(&template[end..]);
            places.push(Place {
                word,
                key: hash(&self.scratch) ^ mix,
            });
        }
        places
    }

    /// The group a form of these places was merged into, if one was.
    pub fn merged(&self, places: &[Place]) -> Option<u32> {
        places
            .iter()
            .find_map(|place| self.forms.get(&place.key).and_then(|form| form.merged))
    }

    /// Notes that `group` has these places. When one of them has now taken enough words, returns
    /// it with the groups to merge (first seen first, `group` last).
    pub fn add(&mut self, group: u32, places: &[Place]) -> Option<(Place, Vec<u32>)> {
        for place in places {
            let known = self.forms.contains_key(&place.key);
            if !known && self.forms.len() >= MAX_FORMS {
                continue;
            }
            let form = self.forms.entry(place.key).or_default();
            if form.merged.is_some() || form.groups.len() >= VARIANTS_TO_MASK {
                continue;
            }
            form.groups.push(group);
            if form.groups.len() == VARIANTS_TO_MASK {
                return Some((*place, form.groups.clone()));
            }
        }
        None
    }

    /// Records that the form of `place` is now `group`.
    pub fn set_merged(&mut self, place: Place, group: u32) {
        if let Some(form) = self.forms.get_mut(&place.key) {
            form.merged = Some(group);
            form.groups = Vec::new();
        }
    }
}
