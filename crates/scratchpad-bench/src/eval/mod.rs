//! The context-savings evaluation: a deterministic corpus of tool outputs with planted facts, four
//! scripted policies that answer questions about them, and a table of what each policy cost in
//! context tokens and how many questions it could answer.
//!
//! A question counts as answered when its planted answer string appears in the text the policy put in
//! the context, and that context (for this one question) is within [`WINDOW_TOKENS`].

pub mod corpus;
pub mod policy;
pub mod report;
pub mod rng;
pub mod tokens;

use std::time::{Duration, Instant};

use anyhow::Result;
use scratchpad_core::{Config, Observation, PartOutcome, Scratchpad};
use scratchpad_mcp_speak::Mcp;

use corpus::{DocKind, Document, Place, Size};
use policy::{CUT_CHARS, Episode, HEAD_CHARS, Policy};
use tokens::count_tokens;

/// A context window of this many tokens (GPT-4o class) must hold a question's whole context.
pub const WINDOW_TOKENS: usize = 128_000;
/// A larger window (Claude class), reported alongside.
pub const LARGE_WINDOW_TOKENS: usize = 200_000;

/// What to evaluate.
#[derive(Debug, Clone)]
pub struct Options {
    pub seed: u64,
    pub sizes: Vec<Size>,
}

/// One policy's answer to one question.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub document: String,
    pub kind: DocKind,
    pub size: Size,
    pub question: String,
    pub place: Place,
    pub policy: Policy,
    pub episode: Episode,
}

impl Outcome {
    /// Answered: the answer is in the context and the context fits the window.
    pub fn correct(&self) -> bool {
        self.episode.found && !self.overflows(WINDOW_TOKENS)
    }

    pub fn overflows(&self, window: usize) -> bool {
        self.episode.tokens > window
    }

    /// Answered by the first view alone (the reference with its preview and hint, for policy (d)),
    /// without any read, within the window.
    pub fn answered_without_reads(&self) -> bool {
        self.episode.found_in_first_view && self.episode.first_view_tokens <= WINDOW_TOKENS
    }
}

/// Everything measured in one run.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub seed: u64,
    pub documents: usize,
    pub corpus_bytes: usize,
    /// blake3 of every document's bytes in order: two runs with the same seed print the same hash.
    pub corpus_hash: String,
    pub outcomes: Vec<Outcome>,
    /// Per document, what policy (d) saw first: the reference JSON, or `None` when it passed inline.
    pub references: Vec<(String, Option<String>)>,
    pub elapsed: Duration,
}

/// Generates the corpus, runs every policy on every question and collects the outcomes.
pub fn evaluate(options: &Options) -> Result<Evaluation> {
    let started = Instant::now();
    let docs = corpus::corpus(options.seed, &options.sizes);
    let mut hasher = blake3::Hasher::new();
    for doc in &docs {
        hasher.update(doc.text.as_bytes());
    }
    let doc_tokens = count_whole_documents(&docs)?;
    let dir = tempfile::tempdir()?;
    let pad = Scratchpad::open_with(
        Some(&format!(
            "sqlite://{}",
            dir.path().join("eval.db").display()
        )),
        Config {
            quota_bytes: None,
            ..Config::default()
        },
    )?;
    let mut outcomes = Vec::new();
    let mut references = Vec::new();
    for (doc, &tokens) in docs.iter().zip(&doc_tokens) {
        let offload = pad.offload(&Observation::text(doc.kind.tool(), doc.text.clone()))?;
        let offload = match offload.parts.into_iter().next() {
            Some(PartOutcome::Stored(reference)) => Some(reference.observation(&Mcp)),
            _ => None,
        };
        for fact in &doc.facts {
            for policy in Policy::ALL {
                let episode = match policy {
                    Policy::Inline => policy::inline(doc, fact, tokens),
                    Policy::Cut => policy::blind_cut(doc, fact, CUT_CHARS),
                    Policy::Head => policy::blind_cut(doc, fact, HEAD_CHARS),
                    Policy::Scratchpad => policy::scratchpad(&pad, doc, &offload, tokens, fact)?,
                };
                outcomes.push(Outcome {
                    document: doc.name(),
                    kind: doc.kind,
                    size: doc.size,
                    question: fact.question.clone(),
                    place: fact.place,
                    policy,
                    episode,
                });
            }
        }
        match &offload {
            Some(reference) => {
                references.push((doc.name(), Some(serde_json::to_string_pretty(reference)?)));
                // Keep the store small while the 10 MB documents go through.
                pad.delete(&reference.scratchpad, None)?;
            }
            None => references.push((doc.name(), None)),
        }
    }
    Ok(Evaluation {
        seed: options.seed,
        documents: docs.len(),
        corpus_bytes: docs.iter().map(|d| d.text.len()).sum(),
        corpus_hash: hasher.finalize().to_hex()[..16].to_owned(),
        outcomes,
        references,
        elapsed: started.elapsed(),
    })
}

/// Exact o200k counts of whole documents (what policy (a) puts in the context), on every core:
/// tokenizing 60 MB is most of the run.
fn count_whole_documents(docs: &[Document]) -> Result<Vec<usize>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![0; docs.len()];
    // Largest first, dealt round-robin, so the threads finish together.
    let mut order: Vec<usize> = (0..docs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(docs[i].text.len()));
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let mine: Vec<usize> = order.iter().copied().skip(t).step_by(threads).collect();
                scope.spawn(move || {
                    mine.into_iter()
                        .map(|i| (i, count_tokens(&docs[i].text)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| anyhow::anyhow!("a token-counting thread panicked"))
            })
            .collect::<Result<Vec<_>>>()
    })?;
    for (i, n) in results.into_iter().flatten() {
        counts[i] = n;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::corpus::{DEFAULT_SEED, SIZES};
    use super::*;

    fn small_run() -> Evaluation {
        evaluate(&Options {
            seed: DEFAULT_SEED,
            sizes: vec![SIZES[0], SIZES[1]],
        })
        .unwrap()
    }

    #[test]
    fn scratchpad_answers_a_small_corpus_fully_and_blind_cuts_miss_the_middle_and_end() {
        let run = small_run();
        assert!(!run.outcomes.is_empty());
        for outcome in &run.outcomes {
            let what = format!(
                "{} on {}: {:?} ({} tokens, reads {:?})",
                outcome.policy.label(),
                outcome.document,
                outcome.question,
                outcome.episode.tokens,
                outcome.episode.calls
            );
            match (outcome.policy, outcome.place) {
                (Policy::Inline | Policy::Scratchpad, _) => assert!(outcome.correct(), "{what}"),
                (Policy::Cut | Policy::Head, Place::Middle | Place::End) => {
                    assert!(!outcome.correct(), "{what}")
                }
                (Policy::Cut | Policy::Head, Place::Start) => assert!(outcome.correct(), "{what}"),
                (Policy::Cut, Place::Early) => assert!(outcome.correct(), "{what}"),
                (Policy::Head, Place::Early) => assert!(!outcome.correct(), "{what}"),
            }
        }
    }

    #[test]
    fn scratchpad_costs_less_than_inline_on_offloaded_documents() {
        let run = small_run();
        let total = |policy: Policy, size: usize| -> usize {
            run.outcomes
                .iter()
                .filter(|o| o.policy == policy && o.size.bytes == size)
                .map(|o| o.episode.tokens)
                .sum()
        };
        let (inline, ours) = (
            total(Policy::Inline, SIZES[1].bytes),
            total(Policy::Scratchpad, SIZES[1].bytes),
        );
        assert!(ours * 5 < inline, "scratchpad {ours} vs inline {inline}");
        // Under the offload threshold the engine passes the output through: the same as inline.
        assert_eq!(
            total(Policy::Inline, SIZES[0].bytes),
            total(Policy::Scratchpad, SIZES[0].bytes)
        );
    }

    #[test]
    fn an_inline_megabyte_log_overflows_the_window_and_counts_as_unanswered() {
        let doc = corpus::document(DEFAULT_SEED, DocKind::Log, SIZES[2]);
        let fact = &doc.facts[0];
        let tokens = count_tokens(&doc.text);
        assert!(tokens > LARGE_WINDOW_TOKENS, "{tokens} tokens");
        let outcome = Outcome {
            document: doc.name(),
            kind: doc.kind,
            size: doc.size,
            question: fact.question.clone(),
            place: fact.place,
            policy: Policy::Inline,
            episode: policy::inline(&doc, fact, tokens),
        };
        assert!(outcome.episode.found);
        assert!(outcome.overflows(WINDOW_TOKENS));
        assert!(!outcome.correct());
    }
}
