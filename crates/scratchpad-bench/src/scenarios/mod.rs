//! The scenarios, grouped by what they measure.

pub(crate) mod previews;
pub(crate) mod reads;
pub(crate) mod shell;
pub(crate) mod writes;
