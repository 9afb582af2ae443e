mod bad_inputs;
mod concurrency;
mod corpus;
mod crash;
mod disk_full;
mod formats;
mod history;
mod integrity;
mod leases;
mod lifecycle;
mod notes;
mod owner_view;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "postgres")]
mod postgres_tls;
mod previews;
mod reads;
mod real_outputs;
mod references;
mod removal;
mod reuse;
mod sessions;
mod side_files;
mod store_folders;
mod summaries;
