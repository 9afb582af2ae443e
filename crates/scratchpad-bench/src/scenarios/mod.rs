//! The scenarios, grouped by what they measure.

pub(crate) mod previews;
pub(crate) mod reads;
pub(crate) mod writes;
