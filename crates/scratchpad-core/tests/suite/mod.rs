mod bad_inputs;
mod concurrency;
mod crash;
mod lifecycle;
mod notes;
#[cfg(feature = "postgres")]
mod postgres;
mod previews;
mod reads;
mod references;
mod sessions;
