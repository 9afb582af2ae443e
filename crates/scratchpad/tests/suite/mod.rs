mod bad_input;
mod json_output;
mod notes;
mod put_read;
mod run;
mod sessions;
mod snapshots;
