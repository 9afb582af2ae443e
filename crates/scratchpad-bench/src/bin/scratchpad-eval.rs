//! `scratchpad-eval`: how many context tokens four ways of handling a tool output cost, and how many
//! questions about the output each can answer. Prints one Markdown report.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::Parser;
use scratchpad_bench::eval::corpus::{DEFAULT_SEED, SIZES, Size, corpus};
use scratchpad_bench::eval::{Options, evaluate, report};

#[derive(Debug, Parser)]
#[command(
    about = "Context-savings evaluation: tokens entering the context and questions answered, per policy"
)]
struct Args {
    /// Seed of the corpus generator (the recorded figures use the default).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Largest document size to include: 4KB, 100KB, 1MB or 10MB.
    #[arg(long, default_value = "10MB")]
    max_size: String,
    /// Also print one line per question and policy, with the reads policy (d) issued.
    #[arg(long)]
    trace: bool,
    /// Write the corpus (one file per document, plus facts.tsv) to this directory and exit.
    #[arg(long)]
    dump: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "scratchpad-eval: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    let wanted = args.max_size.replace(' ', "").to_uppercase();
    let last = SIZES
        .iter()
        .position(|s| s.label.replace(' ', "").to_uppercase() == wanted)
        .with_context(|| {
            format!(
                "unknown size `{}`; use one of 4KB, 100KB, 1MB, 10MB",
                args.max_size
            )
        })?;
    let sizes: Vec<Size> = SIZES[..=last].to_vec();
    if let Some(dir) = &args.dump {
        return dump(dir, args.seed, &sizes);
    }
    let run = evaluate(&Options {
        seed: args.seed,
        sizes,
    })?;
    let mut stdout = std::io::stdout().lock();
    if args.trace {
        stdout.write_all(report::trace(&run).as_bytes())?;
        writeln!(stdout)?;
    }
    stdout.write_all(report::render(&run).as_bytes())?;
    Ok(())
}

fn dump(dir: &std::path::Path, seed: u64, sizes: &[Size]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut facts = String::from("document\toffset\tplace\tquestion\tanswer\n");
    for doc in corpus(seed, sizes) {
        let ext = match doc.kind {
            scratchpad_bench::eval::corpus::DocKind::ApiJson => "json",
            _ => "txt",
        };
        std::fs::write(dir.join(format!("{}.{ext}", doc.name())), &doc.text)?;
        for fact in &doc.facts {
            facts.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\n",
                doc.name(),
                fact.offset,
                fact.place.label(),
                fact.question,
                fact.answer
            ));
        }
    }
    std::fs::write(dir.join("facts.tsv"), facts)?;
    writeln!(std::io::stdout(), "corpus written to {}", dir.display())?;
    Ok(())
}
