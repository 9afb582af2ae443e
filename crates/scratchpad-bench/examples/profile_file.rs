//! Shows what the engine makes of a text file: the preview, its profile (level counts and the
//! suggested search, as JSON) and the summary read.
//!
//! ```sh
//! cargo run --release -p scratchpad-bench --example profile_file -- /var/log/syslog
//! cargo run --release -p scratchpad-bench --example profile_file -- --summary 4000 build.log
//! ```

use std::io::Read;

use anyhow::{Context, Result};
use scratchpad_core::preview::{PreviewConfig, TextPreviewBuilder};
use scratchpad_core::read::summary::{SummaryOptions, summarize};

fn main() -> Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut budget = None;
    if args.first().is_some_and(|a| a == "--summary") {
        budget = Some(args.get(1).context("--summary BUDGET")?.parse()?);
        args.drain(..2);
    }
    let path = args
        .first()
        .context("usage: profile_file [--summary BUDGET] FILE")?;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    if let Some(shape) = scratchpad_core::preview::json_shape_preview(bytes.as_slice(), 1_500)? {
        println!("{shape}");
        return Ok(());
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut builder = TextPreviewBuilder::new(&PreviewConfig::default());
    builder.push(&text);
    let preview = builder.finish();
    println!("{}", preview.text);
    println!(
        "---- profile\n{}",
        serde_json::to_string_pretty(&preview.profile)?
    );
    if let Some(budget_chars) = budget {
        let summary = summarize(
            bytes.as_slice(),
            &SummaryOptions {
                skip: 0,
                budget_chars,
            },
        )?;
        println!("---- summary\n{}", summary.render());
    }
    Ok(())
}
