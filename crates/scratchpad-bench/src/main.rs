//! `scratchpad-bench`: each scenario runs next to a physical baseline in the same process and the same
//! run, repeated, and prints min, median and the ratio of medians. Machines here are noisy; ratios
//! measured side by side are what the targets are stated in.

mod data;
mod harness;
mod scenarios;
mod ui;

use anyhow::Result;
use clap::Parser;

use crate::data::{log_bytes, open_pad, put_named};
use crate::harness::print_rows;
use crate::scenarios::previews::{json_preview, line_profiles};
use crate::scenarios::reads::{cold_start, grep_vs_ripgrep, list_and_gc, slice_reads};
use crate::scenarios::shell::{bash_capture, bash_env_capture};
use crate::scenarios::writes::{
    NOTE_EDIT_BYTES, cli_pipe_gig, cli_put_file, dedup, note_edits, offload_large,
    offload_small_entries, postgres_rows, stream_gig,
};

#[derive(Debug, Parser)]
#[command(about = "Benchmarks against baselines measured in the same run")]
struct Args {
    /// Size of the large-entry scenarios in MB (1 for a quick run, 100 for the recorded figures).
    #[arg(long, default_value_t = 100)]
    mb: u64,
    /// Repetitions of each scenario (the 1 GB stream runs once).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Also stream 1 GB from a pipe (takes about 10 s and 1.2 GB of disk).
    #[arg(long)]
    gig: bool,
    /// Only run scenarios whose name contains this text, in any case.
    #[arg(long)]
    only: Option<String>,
    /// Also offload the log into this PostgreSQL store and grep it (a throwaway database: the
    /// scenario deletes what it wrote). `scripts/pg-cluster start` prints a URL to use.
    #[arg(long, value_name = "URL")]
    pg: Option<String>,
    /// Exit at once: the trivial binary the CLI cold start is compared with.
    #[arg(long, hide = true)]
    noop: bool,
}

fn main() -> Result<()> {
    let args = Args::parse();
    if args.noop {
        return Ok(());
    }
    // Any case: the rows print "JSON", the scenario keys are "json".
    let only = args.only.as_deref().map(str::to_lowercase);
    let want = |name: &str| {
        only.as_deref()
            .is_none_or(|o| name.to_lowercase().contains(o))
    };
    let mb = args.mb.max(1);
    let size = mb * 1_000_000;
    let reps = args.reps.max(1);
    let mut rows = Vec::new();
    println!(
        "scratchpad-bench: {mb} MB entries, {reps} repetitions, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    // First, so its peak memory is not inflated by what earlier scenarios left in the heap.
    if args.gig && want("stream") {
        rows.push(stream_gig()?);
    }
    if args.gig && want("cli") {
        rows.push(cli_pipe_gig()?);
    }
    if want("offload-5k") {
        rows.push(offload_small_entries(reps.min(3))?);
    }
    let log = log_bytes(size)?;
    if want("offload-large") {
        rows.extend(offload_large(&log, reps)?);
    }
    if want("cli") {
        rows.extend(cli_put_file(&log, reps)?);
    }
    if want("read") || want("grep") || want("dedup") || want("cold") {
        let dir = tempfile::tempdir()?;
        let pad = open_pad(dir.path())?;
        put_named(&pad, "log", &mut log.as_slice())?;
        if want("read") {
            rows.extend(slice_reads(&pad, dir.path(), reps)?);
        }
        if want("grep") {
            rows.extend(grep_vs_ripgrep(&pad, &log, reps)?);
        }
        if want("dedup") {
            rows.push(dedup(&pad, &log, reps)?);
        }
        if want("cold") {
            rows.push(cold_start(dir.path(), reps)?);
        }
    }
    if want("bash") {
        let dir = tempfile::tempdir()?;
        rows.push(bash_capture(dir.path(), reps)?);
        rows.push(bash_env_capture(dir.path(), reps)?);
    }
    if [
        "classify every line, INFO-heavy log",
        "classify every line, unleveled test run",
        "text preview (classify, group, head, tail)",
        "summary read (every line templated)",
    ]
    .iter()
    .any(|name| want(name))
    {
        rows.extend(line_profiles(&log, reps, &want)?);
    }
    if let Some(url) = &args.pg
        && want("postgres")
    {
        rows.extend(postgres_rows(url, &log, reps)?);
    }
    drop(log);
    if want("note edits") {
        rows.push(note_edits(size.min(NOTE_EDIT_BYTES))?);
    }
    if want("json") {
        rows.push(json_preview(size, reps)?);
    }
    if want("list") || want("gc") {
        rows.extend(list_and_gc(size, reps.min(3))?);
    }
    if want("ui") {
        // The view's figures are stated for a 1 GB entry: `--gig` gives it that size.
        let entry = if args.gig { 1_000_000_000 } else { size };
        rows.extend(ui::rows(entry, reps)?);
    }
    print_rows(&rows);
    Ok(())
}
