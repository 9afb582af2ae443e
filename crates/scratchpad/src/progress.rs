//! A progress line on stderr for long `put`/`run` inputs, and only where a person is watching.

use std::io::IsTerminal as _;

use indicatif::{ProgressBar, ProgressStyle};

/// Input below this never shows progress: it is over before anyone would read it (bytes).
const SHOW_AFTER_BYTES: u64 = 8 * 1024 * 1024;

/// Creates the bar lazily, once the input passes [`SHOW_AFTER_BYTES`].
#[derive(Debug)]
pub struct Progress {
    enabled: bool,
    total: Option<u64>,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// `total` is the input size when known (a file), for a bar instead of a spinner.
    pub fn new(json: bool, total: Option<u64>) -> Self {
        Self {
            enabled: !json && std::io::stderr().is_terminal(),
            total,
            bar: None,
        }
    }

    pub fn update(&mut self, bytes: u64) {
        if !self.enabled || bytes < SHOW_AFTER_BYTES {
            return;
        }
        let total = self.total;
        // Created at the current position, so the rate does not count the bytes before it appeared.
        let bar = self.bar.get_or_insert_with(|| match total {
            Some(total) => ProgressBar::new(total).with_style(
                ProgressStyle::with_template("storing {bar:30} {bytes}/{total_bytes} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
            None => ProgressBar::new_spinner()
                .with_style(
                    ProgressStyle::with_template("{spinner} storing {bytes} {elapsed}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                )
                .with_position(bytes),
        });
        bar.set_position(bytes);
    }

    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
