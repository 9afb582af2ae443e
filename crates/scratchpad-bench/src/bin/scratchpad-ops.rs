//! `scratchpad-ops`: the engine's offload, slice and note operations timed in Rust, each `--reps`
//! times, printed as one JSON object of microseconds per operation. `scripts/bench-python` runs it
//! next to the same operations made through the Python package, on the same input, in the same run.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context as _, Result};
use clap::Parser;
use scratchpad_core::{Observation, PartOutcome, ReadMode, Scratchpad, WriteOptions};
use scratchpad_mcp_speak::Mcp;

#[derive(Debug, Parser)]
#[command(about = "Times offload, slice and note operations; prints microseconds as JSON")]
struct Args {
    /// The large tool output (a log); its first 1,000 bytes are the small one.
    #[arg(long)]
    input: PathBuf,
    /// A directory for the store.
    #[arg(long)]
    dir: PathBuf,
    #[arg(long, default_value_t = 31)]
    reps: usize,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let big = std::fs::read_to_string(&args.input).context("reading --input")?;
    let small: String = big.chars().take(1_000).collect();
    let pad = Scratchpad::open(&format!("sqlite://{}/ops.db", args.dir.display()))?;
    pad.write("big", &big, WriteOptions::default())?;
    let middle = (big.lines().count() / 2) as u64;
    let mut results = serde_json::Map::new();
    let mut time = |name: &str, op: &mut dyn FnMut() -> Result<()>| -> Result<()> {
        let mut micros = Vec::with_capacity(args.reps);
        for _ in 0..args.reps {
            let start = Instant::now();
            op()?;
            micros.push(start.elapsed().as_secs_f64() * 1e6);
        }
        results.insert(name.to_owned(), micros.into());
        Ok(())
    };
    // What the Python package does for `offload`: the policy, then the reference as JSON.
    let offload = |text: &str| -> Result<String> {
        let outcome = pad.offload(&Observation::text("bench", text))?;
        Ok(match outcome.parts.first() {
            Some(PartOutcome::Stored(reference)) => {
                serde_json::to_string(&reference.observation(&Mcp))?
            }
            _ => text.to_owned(),
        })
    };
    time("offload_small", &mut || offload(&small).map(drop))?;
    time("offload_large", &mut || offload(&big).map(drop))?;
    let read = |mode: ReadMode| -> Result<()> {
        pad.read("big", &mode, None)?;
        Ok(())
    };
    time("read_lines", &mut || {
        read(ReadMode::Lines {
            from: middle,
            to: Some(middle + 49),
        })
    })?;
    time("read_grep", &mut || read(ReadMode::grep("ERROR", 2)))?;
    time("read_head", &mut || read(ReadMode::Head { n: Some(50) }))?;
    time("write_note", &mut || {
        pad.write(
            "note",
            "1. reproduce the failure with the smallest input\n",
            WriteOptions::default(),
        )?;
        Ok(())
    })?;
    println!("{}", serde_json::Value::Object(results));
    Ok(())
}
