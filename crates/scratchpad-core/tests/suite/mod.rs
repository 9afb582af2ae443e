mod bad_inputs;
mod concurrency;
mod corpus;
mod crash;
mod formats;
mod history;
mod leases;
mod lifecycle;
mod notes;
#[cfg(feature = "postgres")]
mod postgres;
mod previews;
mod reads;
mod references;
mod sessions;
mod summaries;
