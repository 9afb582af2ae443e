//! Real outputs of real tools (kept in `tests/real/`, paths rewritten to `/home/dev`), each with
//! its needles: the lines its preview must show (a headline and its detail), and the lines it
//! must not claim as events (levels quoted in prose, identifiers). The suggested search must find
//! the lines it says it finds.
//!
//! How they were made: a cargo workspace whose second crate does not compile; `gcc -Wall -Wextra`
//! on a file with one missing member; a Python logger that logs an exception mid-run; pytest,
//! jest, eslint, stylelint, markdownlint, flake8 and mypy on projects with one real fault among
//! many warnings; pip, uv and npm asked for conflicting versions; `apt-get -s dist-upgrade
//! python3-`; `git log --stat` of this repository; pino and structlog JSON lines with one error;
//! `find /usr -name '*.h'`; an npm lock file, an npm registry document and eslint's JSON report;
//! a training loop under tqdm and `logging` that reports its metrics (`error: 0.0841`,
//! `errors_total=0`, `FAILED: 0`), a passing `pytest -v` run whose tests are named after errors,
//! and `pip install -vv --dry-run`.

use regex::RegexBuilder;
use scratchpad_core::preview::{
    Level, PreviewConfig, TextPreview, json_shape, max_preview_chars, text_preview,
};
use scratchpad_core::read::jq::run_jq;

fn real(name: &str) -> String {
    let path = format!("{}/tests/real/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The lines the preview lists from the omitted part, with their numbers.
fn notable(preview: &str) -> Vec<&str> {
    preview
        .lines()
        .skip_while(|l| !l.starts_with("[notable lines"))
        .skip(1)
        .take_while(|l| !l.starts_with("[... end of notable lines"))
        .collect()
}

struct Case {
    file: &'static str,
    /// Pieces of text the preview must show (each within one line).
    shows: &'static [&'static str],
    /// Pieces of text that must not be in any notable line (levels quoted in prose, noise).
    not_notable: &'static [&'static str],
    /// The most severe level the preview may claim (`None`: no level at all).
    worst: Option<Level>,
}

const CASES: &[Case] = &[
    Case {
        file: "cargo_build_error.txt",
        shows: &[
            "367: error[E0308]: mismatched types",
            "368:   --> src/main.rs:5:22",
            "expected `u64`, found `u32`",
        ],
        not_notable: &["Compiling app"],
        worst: Some(Level::Error),
    },
    Case {
        file: "gcc_error.txt",
        shows: &[
            "212: prog.c:35:20: error: ‘struct point’ has no member named ‘z’",
            "213:   35 |     return p->x * p->z;",
        ],
        not_notable: &["In function ‘f30’"],
        worst: Some(Level::Error),
    },
    Case {
        file: "python_logged_traceback.txt",
        shows: &[
            "83: 2026-11-25 18:47:11,390 ERROR billing: record inv-00080 failed",
            "88:   File \"/home/dev/billing/app.py\", line 6, in parse_amount",
            "89:   return int(record[\"amount\"][\"value\"]) / record[\"amount\"][\"scale\"]",
            "91: ZeroDivisionError: division by zero  [traceback from line 84]",
        ],
        not_notable: &["DEBUG"],
        worst: Some(Level::Error),
    },
    Case {
        file: "pytest_failures.txt",
        shows: &[
            "158: test_calc.py::test_config_loads FAILED",
            "E       AssertionError: timeout must default to a minute",
            "1 failed, 251 passed",
        ],
        not_notable: &["PASSED"],
        worst: Some(Level::Error),
    },
    Case {
        file: "jest_failures.txt",
        shows: &[
            "96:   ● cart › applies coupon",
            "-   \"discount\": 0.15,",
            "+   \"discount\": 0.1,",
            "at Object.toEqual (src/cart.test.js:65:18)",
            "Tests:       2 failed, 90 passed, 92 total",
        ],
        not_notable: &["✓"],
        worst: Some(Level::Error),
    },
    Case {
        file: "eslint_stylish.txt",
        shows: &[
            "1704:   /home/dev/shop/src/module23.js",
            "1777:   25:29  error    'fetchConfig' is not defined",
            "[levels: 2 error, 2,880 warning]",
            "✖ 2881 problems (1 error, 2880 warnings)",
        ],
        not_notable: &[],
        worst: Some(Level::Error),
    },
    Case {
        file: "stylelint.txt",
        shows: &[
            "307:   css/style5.css",
            "368:   102:3   ✖  Unknown property \"colr\"",
            "[levels: 2 error, 473 warning]",
        ],
        not_notable: &[],
        worst: Some(Level::Error),
    },
    Case {
        file: "markdownlint.txt",
        shows: &["error MD004/ul-style", "[levels: 1,080 error]"],
        not_notable: &[],
        worst: Some(Level::Error),
    },
    Case {
        file: "git_log_stat.txt",
        shows: &["commit 84fc13293c338a239cb35e2135d2f127fe49b168"],
        not_notable: &["FATAL", "PANIC", "panic", "Killed process", "ERROR"],
        worst: None,
    },
    Case {
        file: "apt_upgrade_plan.txt",
        shows: &[
            "16: The following packages will be REMOVED:",
            "50: 120 upgraded, 0 newly installed, 39 to remove and 0 not upgraded.",
        ],
        not_notable: &["Inst ", "Conf "],
        worst: Some(Level::Warning),
    },
    Case {
        file: "pip_resolution.txt",
        shows: &[
            "ERROR: Cannot install flask==3.0.0 and werkzeug==2.0.0",
            "flask 3.0.0 depends on Werkzeug>=3.0.0",
        ],
        not_notable: &[],
        worst: Some(Level::Error),
    },
    Case {
        file: "pino_jsonl.txt",
        shows: &[
            "81: level=50 msg=\"failed to price order\" err.type=\"TypeError\" err.message=\"Cannot read properties of undefined (reading 'lineItems')\" at Object.<anonymous> (/home/dev/orders/app.js:8:17)",
        ],
        not_notable: &["\"hostname\""],
        worst: Some(Level::Error),
    },
    Case {
        file: "structlog_jsonl.txt",
        shows: &[
            "43: level=\"error\" event=\"settlement failed\" exception.exc_type=\"ZeroDivisionError\" exception.exc_value=\"division by zero\" at /home/dev/billing/slog.py:5 in settle",
        ],
        not_notable: &["\"deployment\""],
        worst: Some(Level::Error),
    },
    Case {
        file: "find_headers.txt",
        shows: &[
            "[7,743 paths under /usr: include/ 7,296 (node/ 2,363, llvm-14/ 1,577, linux/ 763, …)",
            "[by extension: .h 7,743]",
        ],
        not_notable: &[],
        worst: None,
    },
    // Progress and metric lines name errors without reporting any: none of them is an event.
    Case {
        file: "ml_training_log.txt",
        shows: &["2026-11-26 04:31:15,712 INFO train: done: 200 steps, errors: 0, failures: 0"],
        not_notable: &["processed", "error"],
        worst: None,
    },
    Case {
        file: "pytest_passing.txt",
        shows: &["301 passed in 1.60s"],
        not_notable: &["PASSED"],
        worst: None,
    },
    Case {
        file: "pip_install_verbose.txt",
        shows: &["Would install"],
        not_notable: &[],
        worst: None,
    },
];

fn check(case: &Case) -> TextPreview {
    let text = real(case.file);
    let config = PreviewConfig::default();
    let preview = text_preview(&text, &config);
    let shown = &preview.text;
    assert!(
        shown.chars().count() <= max_preview_chars(&config),
        "{}: over its bound",
        case.file
    );
    for needle in case.shows {
        assert!(
            shown.contains(needle),
            "{}: the preview does not show {needle:?}:\n{shown}",
            case.file
        );
    }
    for row in notable(shown) {
        for noise in case.not_notable {
            assert!(
                !row.contains(noise),
                "{}: {noise:?} was listed as notable: {row}\n{shown}",
                case.file
            );
        }
    }
    let worst = preview
        .profile
        .levels
        .most_severe()
        .filter(|&l| l >= Level::Warning);
    assert_eq!(
        worst, case.worst,
        "{}: most severe level\n{shown}",
        case.file
    );
    preview
}

#[test]
fn real_outputs_show_their_failures_with_their_detail() {
    for case in CASES {
        check(case);
    }
}

/// Regression: a successful `git log --stat` was previewed as `1 fatal, 8 error`, every one of
/// them a level word quoted in a commit message.
#[test]
fn levels_quoted_in_commit_messages_are_not_events() {
    let case = CASES.iter().find(|c| c.file == "git_log_stat.txt").unwrap();
    let preview = check(case);
    assert_eq!(preview.profile.levels.leveled(), 0, "{}", preview.text);
    assert!(preview.profile.grep.is_none());
}

/// The suggested search, run as suggested, finds exactly the lines it says it finds: every line
/// at the levels it names, and the numbers it lists.
#[test]
fn suggested_searches_find_what_they_promise() {
    for case in CASES {
        let text = real(case.file);
        let preview = text_preview(&text, &PreviewConfig::default());
        let Some(grep) = &preview.profile.grep else {
            continue;
        };
        let regex = RegexBuilder::new(&grep.pattern)
            .case_insensitive(grep.ignore_case)
            .build()
            .unwrap_or_else(|e| panic!("{}: {e}", case.file));
        let found: Vec<u64> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| regex.is_match(l))
            .map(|(i, _)| i as u64 + 1)
            .collect();
        assert!(
            !found.is_empty(),
            "{}: /{}/ finds nothing",
            case.file,
            grep.pattern
        );
        // "error at lines 212 and 276": each named line is found.
        for number in grep
            .finds
            .split(|c: char| !c.is_ascii_digit() && c != ',')
            .filter(|w| !w.is_empty() && w.chars().any(|c| c.is_ascii_digit()))
            .filter(|_| grep.finds.contains(" at line"))
        {
            let number: u64 = number.trim_matches(',').replace(',', "").parse().unwrap();
            assert!(
                found.contains(&number),
                "{}: /{}/ misses line {number} ({})",
                case.file,
                grep.pattern,
                grep.finds
            );
        }
        if let Some(count) = grep.finds.strip_prefix("the ") {
            let count: u64 = count
                .split(' ')
                .next()
                .unwrap()
                .replace(',', "")
                .parse()
                .unwrap();
            assert_eq!(found.len() as u64, count, "{}: {}", case.file, grep.finds);
        }
        assert!(
            (2..=10).contains(&grep.context) || grep.finds.contains(" paths under "),
            "{}: context {}",
            case.file,
            grep.context
        );
    }
}

/// A compiler's block is wider than two lines: the search shows it whole.
#[test]
fn the_suggested_context_covers_the_block() {
    let text = real("cargo_build_error.txt");
    let preview = text_preview(&text, &PreviewConfig::default());
    let grep = preview.profile.grep.unwrap();
    // error[E0308] at 367, its label at 371.
    assert!(grep.context >= 4, "{}", grep.context);
}

/// JSON documents: a shape within budget, and queries chosen from the data that run on the
/// document and find what they say: the items that differ, what tells items apart.
#[test]
fn real_json_documents_suggest_queries_that_find_what_differs() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "npm_package_lock.json",
            &[(
                ".packages | to_entries | .[:100] | from_entries | map_values(.version?)",
                "the `version` of the first 100 of the 552 entries in `.packages`",
            )],
        ),
        (
            "eslint_json.json",
            &[
                (
                    r#"[.[].messages[] | select(.ruleId == "no-undef") | .message]"#,
                    "the `message` of the item whose `ruleId` is \"no-undef\" in `.[].messages`",
                ),
                ("[.[] | select(.errorCount > 0) | .filePath]", ""),
            ],
        ),
        ("npm_view_eslint.json", &[]),
    ];
    for (file, want) in cases {
        let text = real(file);
        let shape = json_shape(text.as_bytes(), 1_500)
            .unwrap()
            .unwrap_or_else(|| panic!("{file} is JSON"));
        assert!(
            shape.preview.chars().count() <= 1_500,
            "{file}: {}",
            shape.preview
        );
        for (i, (query, finds)) in want.iter().enumerate() {
            assert_eq!(
                shape.queries.get(i).map(String::as_str),
                Some(*query),
                "{file}: {:?}",
                shape.queries
            );
            if i == 0 {
                assert_eq!(shape.finds.as_deref(), Some(*finds), "{file}");
            }
        }
        for query in &shape.queries {
            let out =
                run_jq(text.as_bytes(), query).unwrap_or_else(|e| panic!("{file}: {query}: {e:?}"));
            assert!(
                out.iter()
                    .all(|v| v != &serde_json::Value::Null && v != &serde_json::json!([])),
                "{file}: {query}: {out:?}"
            );
        }
    }
    // The error eslint found, by both of its queries.
    let text = real("eslint_json.json");
    let shape = json_shape(text.as_bytes(), 1_500).unwrap().unwrap();
    let messages = run_jq(text.as_bytes(), &shape.queries[0]).unwrap();
    assert_eq!(
        messages,
        [serde_json::json!(["'fetchConfig' is not defined."])]
    );
    let files = run_jq(text.as_bytes(), &shape.queries[1]).unwrap();
    assert_eq!(
        files,
        [serde_json::json!(["/home/dev/shop/src/module23.js"])]
    );
}
