//! The corpus: realistic tool outputs of six kinds at several sizes, each with planted facts whose
//! exact answer string and byte offset are known, and the question an agent would ask about each.
//!
//! Everything is drawn from [`Rng`] seeded by the caller, so a seed names the same bytes everywhere.

mod formats;

use std::fmt::Write as _;

use super::rng::{HEX, LOWER_ALNUM, Rng, UPPER_ALNUM};

/// The seed the recorded figures use.
pub const DEFAULT_SEED: u64 = 20_261_121;

/// Document sizes: 4 KB (just under the engine's 4,096-byte offload threshold), 100 KB, 1 MB, 10 MB.
pub const SIZES: [Size; 4] = [
    Size {
        label: "4 KB",
        bytes: 3_900,
    },
    Size {
        label: "100 KB",
        bytes: 100_000,
    },
    Size {
        label: "1 MB",
        bytes: 1_000_000,
    },
    Size {
        label: "10 MB",
        bytes: 10_000_000,
    },
];

/// A target document size (bytes; documents end on a whole line or value, within ~1 % of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub label: &'static str,
    pub bytes: usize,
}

/// The kinds of tool output an agent meets most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocKind {
    Log,
    ApiJson,
    Listing,
    TestRun,
    Source,
    Search,
    NginxError,
    Logfmt,
    JsonLines,
    Logcat,
    Journald,
    PythonLogging,
    Log4j,
    Klog,
    Pytest,
    GoTest,
    Jest,
    Maven,
    CargoBuild,
}

impl DocKind {
    pub const ALL: [Self; 19] = [
        Self::Log,
        Self::ApiJson,
        Self::Listing,
        Self::TestRun,
        Self::Source,
        Self::Search,
        Self::NginxError,
        Self::Logfmt,
        Self::JsonLines,
        Self::Logcat,
        Self::Journald,
        Self::PythonLogging,
        Self::Log4j,
        Self::Klog,
        Self::Pytest,
        Self::GoTest,
        Self::Jest,
        Self::Maven,
        Self::CargoBuild,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Self::Log => "service log",
            Self::ApiJson => "API JSON",
            Self::Listing => "directory listing",
            Self::TestRun => "test run",
            Self::Source => "source file",
            Self::Search => "search results",
            Self::NginxError => "nginx error log",
            Self::Logfmt => "logfmt log",
            Self::JsonLines => "JSON-lines log",
            Self::Logcat => "logcat",
            Self::Journald => "journald",
            Self::PythonLogging => "Python logging",
            Self::Log4j => "log4j service",
            Self::Klog => "klog",
            Self::Pytest => "pytest run",
            Self::GoTest => "go test run",
            Self::Jest => "jest run",
            Self::Maven => "Maven Surefire run",
            Self::CargoBuild => "cargo build",
        }
    }

    /// The tool that would have produced it (the engine names entries after it).
    pub fn tool(self) -> &'static str {
        match self {
            Self::Log | Self::Logfmt | Self::JsonLines | Self::Log4j | Self::Klog => "kubectl_logs",
            Self::ApiJson => "http_get",
            Self::Listing => "list_files",
            Self::TestRun => "cargo_test",
            Self::Source => "read_file",
            Self::Search => "ripgrep",
            Self::NginxError => "read_log",
            Self::Logcat => "adb_logcat",
            Self::Journald => "journalctl",
            Self::PythonLogging => "docker_logs",
            Self::Pytest => "pytest",
            Self::GoTest => "go_test",
            Self::Jest => "npm_test",
            Self::Maven => "mvn_test",
            Self::CargoBuild => "cargo_build",
        }
    }

    /// The outputs in real formats: each tests whether the reference alone shows what matters.
    pub fn is_format(self) -> bool {
        !matches!(
            self,
            Self::Log | Self::ApiJson | Self::Listing | Self::TestRun | Self::Source | Self::Search
        )
    }

    /// The largest size generated for this kind: the format documents stop at 1 MB, which keeps
    /// the run short and already puts the planted line in the middle of thousands.
    pub fn max_bytes(self) -> usize {
        if self.is_format() {
            1_000_000
        } else {
            usize::MAX
        }
    }
}

/// Where a planted answer sits, which decides what a blind cut can see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Within the first 200 characters.
    Start,
    /// After 200 and within the first 1,500 characters.
    Early,
    /// Past the first 1,500 characters and before the last 500 (the tail a preview shows).
    Middle,
    /// Within the last 500 characters.
    End,
}

impl Place {
    pub fn label(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Early => "early",
            Self::Middle => "middle",
            Self::End => "end",
        }
    }
}

/// What an agent takes from the question's wording and its knowledge of the output's format: the only
/// thing the reading policy gets besides what the engine shows it. Never the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// The first lines of the output.
    Start,
    /// The last lines of the output.
    End,
    /// A line matching this regex, the search the agent would type.
    Grep {
        pattern: &'static str,
        ignore_case: bool,
        /// What a line that answers the question looks like, when not every hit does (the agent's
        /// judgement on reading the hits; it says nothing about where the answer is). `None`: any hit.
        answered_by: Option<&'static str>,
    },
    /// The lines just before the line matching this regex.
    Before { pattern: &'static str },
    /// The JSON object whose `id` is `id`, and its field named like `field`.
    JsonById { id: String, field: &'static str },
    /// The value of the JSON key whose name contains this word.
    JsonKey { word: &'static str },
}

/// A planted fact: a question and the exact string that answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub question: String,
    pub answer: String,
    /// Byte offset of the answer's first occurrence in the document.
    pub offset: usize,
    pub place: Place,
    pub ask: Ask,
}

/// One tool output with its planted facts.
#[derive(Debug, Clone)]
pub struct Document {
    pub kind: DocKind,
    pub size: Size,
    pub text: String,
    pub facts: Vec<Fact>,
}

impl Document {
    /// `service-log-1MB`: a short handle for tables and dumps.
    pub fn name(&self) -> String {
        format!(
            "{}-{}",
            self.kind.label().replace(' ', "-").to_lowercase(),
            self.size.label.replace(' ', "")
        )
    }
}

/// Every kind at every size in `sizes`, in a fixed order.
pub fn corpus(seed: u64, sizes: &[Size]) -> Vec<Document> {
    let mut docs = Vec::new();
    for &size in sizes {
        for kind in DocKind::ALL {
            if size.bytes <= kind.max_bytes() {
                docs.push(document(seed, kind, size));
            }
        }
    }
    docs
}

/// One document; the same seed, kind and size always give the same bytes.
pub fn document(seed: u64, kind: DocKind, size: Size) -> Document {
    let mut rng = Rng::derive(seed, &format!("{}/{}", kind.label(), size.bytes));
    let mut out = Builder::new(size.bytes);
    match kind {
        DocKind::Log => service_log(&mut rng, &mut out),
        DocKind::ApiJson => api_json(&mut rng, &mut out),
        DocKind::Listing => listing(&mut rng, &mut out),
        DocKind::TestRun => test_run(&mut rng, &mut out),
        DocKind::Source => source_file(&mut rng, &mut out),
        DocKind::Search => search_results(&mut rng, &mut out),
        DocKind::NginxError => formats::nginx_error(&mut rng, &mut out),
        DocKind::Logfmt => formats::logfmt(&mut rng, &mut out),
        DocKind::JsonLines => formats::json_lines(&mut rng, &mut out),
        DocKind::Logcat => formats::logcat(&mut rng, &mut out),
        DocKind::Journald => formats::journald(&mut rng, &mut out),
        DocKind::PythonLogging => formats::python_logging(&mut rng, &mut out),
        DocKind::Log4j => formats::log4j(&mut rng, &mut out),
        DocKind::Klog => formats::klog(&mut rng, &mut out),
        DocKind::Pytest => formats::pytest(&mut rng, &mut out),
        DocKind::GoTest => formats::go_test(&mut rng, &mut out),
        DocKind::Jest => formats::jest(&mut rng, &mut out),
        DocKind::Maven => formats::maven(&mut rng, &mut out),
        DocKind::CargoBuild => formats::cargo_build(&mut rng, &mut out),
    }
    Document {
        kind,
        size,
        text: out.text,
        facts: out.facts,
    }
}

/// Accumulates a document and records where each planted answer lands.
struct Builder {
    text: String,
    facts: Vec<Fact>,
    target: usize,
}

impl Builder {
    fn new(target: usize) -> Self {
        Self {
            text: String::with_capacity(target + 4_096),
            facts: Vec::new(),
            target,
        }
    }

    fn line(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
    }

    /// True once `percent` % of the target size is written.
    fn past(&self, percent: usize) -> bool {
        self.text.len() >= self.target * percent / 100
    }

    /// Bytes still to write before the document reaches its target, keeping `reserve` for its ending.
    fn room(&self, reserve: usize) -> usize {
        self.target.saturating_sub(self.text.len() + reserve)
    }

    /// Writes `before`, the answer and `after`, and records the fact.
    fn plant(&mut self, before: &str, answer: &str, after: &str, fact: Planted) {
        self.text.push_str(before);
        let offset = self.text.len();
        self.text.push_str(answer);
        self.text.push_str(after);
        self.facts.push(Fact {
            question: fact.question,
            answer: answer.to_owned(),
            offset,
            place: fact.place,
            ask: fact.ask,
        });
    }
}

/// A fact's question side, before it is written.
struct Planted {
    question: String,
    place: Place,
    ask: Ask,
}

fn planted(question: impl Into<String>, place: Place, ask: Ask) -> Planted {
    Planted {
        question: question.into(),
        place,
        ask,
    }
}

/// Milliseconds since midnight as an RFC 3339 timestamp on 2026-11-21 (wrapping past a day).
fn timestamp(ms: u64) -> String {
    let day_ms = ms % 86_400_000;
    format!(
        "2026-11-21T{:02}:{:02}:{:02}.{:03}Z",
        day_ms / 3_600_000,
        day_ms / 60_000 % 60,
        day_ms / 1_000 % 60,
        day_ms % 1_000
    )
}

// ---------------------------------------------------------------------------------------------------
// Service log

const ROUTES: [&str; 8] = [
    "GET /v1/carts/{n}",
    "POST /v1/carts/{n}/items",
    "GET /v1/products/SKU-{n}",
    "PATCH /v1/carts/{n}",
    "POST /v1/checkout/sessions",
    "GET /v1/shipping/rates?zip={n}",
    "GET /healthz",
    "DELETE /v1/carts/{n}/items/{n}",
];

fn service_log(rng: &mut Rng, out: &mut Builder) {
    let pod = format!(
        "checkout-api-7c9f{}-{}",
        rng.token(5, HEX),
        rng.token(5, LOWER_ALNUM)
    );
    out.plant(
        "==> pod/",
        &pod,
        " <==\n",
        planted("Which pod are these logs from?", Place::Start, Ask::Start),
    );
    // Spread the lines over about 14 hours whatever the size.
    let step = (50_400_000 / (out.target as u64 / 110).max(1)).max(2);
    let mut ms = 6 * 3_600_000 + rng.below(3_600_000);
    let mut tick = |rng: &mut Rng| {
        ms += rng.between(step / 2, step * 3 / 2);
        timestamp(ms)
    };
    let last_event = format!("evt_{}", rng.token(16, LOWER_ALNUM));
    let ending_len = 200;
    let (mut failed_charge, mut crashed) = (false, false);
    while out.room(ending_len) > 0 {
        let ts = tick(rng);
        if !failed_charge && out.past(45) {
            failed_charge = true;
            let req = format!("req_{}", rng.token(20, LOWER_ALNUM));
            out.plant(
                &format!(
                    "{ts} ERROR payments-client charge failed: card processor returned 502 Bad Gateway (order=ord_{}, amount=4599 EUR, req=",
                    rng.token(10, UPPER_ALNUM)
                ),
                &req,
                ")\n",
                planted(
                    "A payment charge failed somewhere in this log. What was the request id of the failed charge?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "ERROR.*charge",
                        ignore_case: true,
                        answered_by: None,
                    },
                ),
            );
            continue;
        }
        if !crashed && out.past(70) {
            crashed = true;
            let pool = format!("orders-primary-{}", rng.token(6, LOWER_ALNUM));
            out.plant(
                &format!("{ts} WARN  checkout-db connection pool exhausted: 64/64 in use, 212 waiting (pool="),
                &pool,
                ")\n",
                planted(
                    "The service hit a FATAL error. What warning was logged right before it: which connection pool was exhausted?",
                    Place::Middle,
                    Ask::Before { pattern: "FATAL" },
                ),
            );
            let ts = tick(rng);
            out.line(&format!(
                "{ts} FATAL checkout-worker-3 no database connection within 30s; worker exiting (exit code 70)"
            ));
            let ts = tick(rng);
            out.line(&format!(
                "{ts} INFO  supervisor restarting checkout-worker-3 (restart 1 of 5)"
            ));
            continue;
        }
        let req = format!("req_{}", rng.token(20, LOWER_ALNUM));
        let roll = rng.below(1_000);
        let line = match roll {
            0..=3 => format!(
                "{ts} ERROR inventory-client upstream timeout after 2000ms (attempt {}/3) req={req}",
                rng.between(1, 3)
            ),
            4..=5 => format!(
                "{ts} ERROR checkout-api request failed: 499 client closed request req={req}"
            ),
            6..=60 => format!(
                "{ts} WARN  checkout-db slow query {}ms: SELECT id, items, updated_at FROM carts WHERE id = $1 req={req}",
                rng.between(500, 3_000)
            ),
            61..=200 => format!(
                "{ts} DEBUG cart-cache hit key=cart:{} ttl={}s",
                rng.between(10_000, 999_999),
                rng.between(30, 600)
            ),
            201..=300 => format!(
                "{ts} INFO  payments-client charge ok amount={} EUR order=ord_{} req={req}",
                rng.between(100, 99_999),
                rng.token(10, UPPER_ALNUM)
            ),
            301..=380 => format!(
                "{ts} INFO  inventory-client reserve sku=SKU-{} qty={} ok in {}ms",
                rng.between(10_000, 99_999),
                rng.between(1, 5),
                rng.between(3, 90)
            ),
            _ => {
                let route = rng
                    .pick(&ROUTES)
                    .replace("{n}", &rng.between(1_000, 999_999).to_string());
                let status = *rng.pick(&[200, 200, 200, 200, 201, 204, 304, 404, 409]);
                format!(
                    "{ts} INFO  checkout-api req={req} {route} {status} {}ms",
                    rng.between(1, 250)
                )
            }
        };
        out.line(&line);
    }
    let ts = tick(rng);
    out.line(&format!(
        "{ts} INFO  checkout-api received SIGTERM, draining {} open connections",
        rng.between(2, 9)
    ));
    let ts = tick(rng);
    out.plant(
        &format!("{ts} INFO  checkout-api shutdown complete; last processed event "),
        &last_event,
        "\n",
        planted(
            "What was the id of the last event processed before shutdown?",
            Place::End,
            Ask::End,
        ),
    );
}

// ---------------------------------------------------------------------------------------------------
// API JSON

const FIRST_NAMES: [&str; 12] = [
    "Ana", "Bruno", "Chen", "Dara", "Emeka", "Fatima", "Greta", "Hiro", "Ines", "Jonas", "Kaya",
    "Luca",
];
const LAST_NAMES: [&str; 10] = [
    "Silva",
    "Novak",
    "Okafor",
    "Lindqvist",
    "Tanaka",
    "Moreau",
    "Kowalski",
    "Haddad",
    "Byrne",
    "Costa",
];
const PRODUCTS: [&str; 10] = [
    "Trail running shoe",
    "Merino base layer",
    "Insulated bottle 750 ml",
    "Rain shell jacket",
    "Headlamp 400 lm",
    "Wool socks (3 pack)",
    "Day pack 22 l",
    "Compression sack",
    "Camp mug",
    "Trekking poles",
];

fn api_json(rng: &mut Rng, out: &mut Builder) {
    let request_id = format!("req_{}", rng.token(24, LOWER_ALNUM));
    out.plant(
        "{\"object\":\"list\",\"request_id\":\"",
        &request_id,
        "\",\"url\":\"/v1/orders\",\"livemode\":true,\"data\":[",
        planted(
            "What request id did the API return for this call?",
            Place::Start,
            Ask::JsonKey { word: "request_id" },
        ),
    );
    let ending_len = 200;
    let mut count = 0u64;
    let mut planted_order = false;
    while out.room(ending_len) > 0 || count == 0 {
        if count > 0 {
            out.text.push(',');
        }
        count += 1;
        let id = format!("ord_{}", rng.token(14, UPPER_ALNUM));
        let plant_here = !planted_order && out.past(45);
        let shipped = plant_here || rng.chance(700);
        let first = *rng.pick(&FIRST_NAMES);
        let last = *rng.pick(&LAST_NAMES);
        let mut lines = String::new();
        let mut total = 0;
        for i in 0..rng.between(1, 4) {
            let qty = rng.between(1, 3);
            let unit = rng.between(5, 250) * 100 - 1;
            total += qty * unit;
            if i > 0 {
                lines.push(',');
            }
            let _ = write!(
                lines,
                "{{\"sku\":\"SKU-{}\",\"description\":\"{}\",\"quantity\":{qty},\"unit_amount\":{unit}}}",
                rng.between(10_000, 99_999),
                rng.pick(&PRODUCTS)
            );
        }
        let _ = write!(
            out.text,
            "{{\"id\":\"{id}\",\"object\":\"order\",\"created\":{},\"status\":\"{}\",\"currency\":\"eur\",\"amount_total\":{total},\
             \"customer\":{{\"id\":\"cus_{}\",\"name\":\"{first} {last}\",\"email\":\"{}.{}@example.com\"}},\"lines\":[{lines}],\"fulfillment\":{{",
            1_763_683_200 + rng.below(86_400),
            if shipped { "fulfilled" } else { "processing" },
            rng.token(14, LOWER_ALNUM),
            first.to_lowercase(),
            last.to_lowercase()
        );
        if shipped {
            let shipment = format!("shp_{}", rng.token(14, LOWER_ALNUM));
            let carrier = *rng.pick(&["UPS", "DHL", "PostNL", "GLS"]);
            let _ = write!(
                out.text,
                "\"status\":\"shipped\",\"shipments\":[{{\"id\":\"{shipment}\",\"carrier\":{{\"name\":\"{carrier}\",\"service\":\"standard\",\"tracking\":{{\"number\":\""
            );
            let tracking = format!("1Z{}", rng.token(16, UPPER_ALNUM));
            let after = format!(
                "\",\"url\":\"https://track.example.com/s/{shipment}\"}}}}}}]}},\"metadata\":{{\"channel\":\"{}\"}}}}",
                rng.pick(&["web", "ios", "android", "pos"])
            );
            if plant_here {
                planted_order = true;
                out.plant(
                    "",
                    &tracking,
                    &after,
                    planted(
                        format!("What is the tracking number for order {id}?"),
                        Place::Middle,
                        Ask::JsonById {
                            id: id.clone(),
                            field: "tracking",
                        },
                    ),
                );
            } else {
                out.text.push_str(&tracking);
                out.text.push_str(&after);
            }
        } else {
            let _ = write!(
                out.text,
                "\"status\":\"unfulfilled\",\"shipments\":[]}},\"metadata\":{{\"channel\":\"{}\"}}}}",
                rng.pick(&["web", "ios", "android", "pos"])
            );
        }
    }
    let cursor = format!("cur_{}", rng.token(24, LOWER_ALNUM));
    out.plant(
        &format!(
            "],\"has_more\":true,\"pagination\":{{\"limit\":{count},\"total_count\":{},\"next_cursor\":\"",
            count * 7 + rng.below(count)
        ),
        &cursor,
        "\"}}",
        planted(
            "What cursor do I pass to fetch the next page of orders?",
            Place::End,
            Ask::JsonKey { word: "cursor" },
        ),
    );
}

// ---------------------------------------------------------------------------------------------------
// Directory listing

const TOPS: [&str; 6] = ["services", "libs", "infra", "web", "tools", "docs"];
const AREAS: [&str; 16] = [
    "gateway",
    "checkout",
    "payments",
    "ledger",
    "inventory",
    "search",
    "accounts",
    "notifications",
    "shipping",
    "catalog",
    "pricing",
    "auth",
    "reports",
    "media",
    "fraud",
    "billing",
];
const SUBDIRS: [&str; 9] = [
    "src",
    "src/handlers",
    "src/db",
    "src/model",
    "tests",
    "tests/fixtures",
    "config",
    "migrations",
    "benches",
];
const WORDS: [&str; 16] = [
    "client", "handler", "model", "schema", "retry", "cache", "router", "session", "event",
    "order", "batch", "config", "queue", "token", "util", "metrics",
];
const EXTENSIONS: [&str; 8] = ["rs", "rs", "rs", "toml", "json", "sql", "md", "yaml"];

fn listing(rng: &mut Rng, out: &mut Builder) {
    let ending_len = 120;
    let (mut files, mut dirs) = (0u64, 0u64);
    let mut planted_file = false;
    let mut group = 0usize;
    'outer: loop {
        let top = TOPS[group % TOPS.len()];
        let area = AREAS[(group / TOPS.len()) % AREAS.len()];
        let generation = group / (TOPS.len() * AREAS.len());
        let area = if generation == 0 {
            area.to_owned()
        } else {
            format!("{area}-{generation}")
        };
        group += 1;
        for sub in SUBDIRS {
            if rng.chance(300) {
                continue;
            }
            dirs += 1;
            for _ in 0..rng.between(2, 14) {
                if out.room(ending_len) == 0 {
                    break 'outer;
                }
                if !planted_file && out.past(50) {
                    planted_file = true;
                    files += 1;
                    dirs += 1;
                    out.plant(
                        &format!(
                            "-rw-r--r--  1 dev  staff  {:>8}  2026-10-{:02} {:02}:{:02}  ",
                            rng.between(200, 4_000),
                            rng.between(1, 30),
                            rng.below(24),
                            rng.below(60)
                        ),
                        "./infra/deploy/overlays/staging/gateway/rate_limits.staging.yaml",
                        "\n",
                        planted(
                            "Where is rate_limits.staging.yaml? I need its full path.",
                            Place::Middle,
                            Ask::Grep {
                                pattern: r"rate_limits\.staging\.yaml",
                                ignore_case: false,
                                answered_by: None,
                            },
                        ),
                    );
                }
                files += 1;
                let ext = *rng.pick(&EXTENSIONS);
                let name = format!("{}_{}.{ext}", rng.pick(&WORDS), rng.pick(&WORDS));
                out.line(&format!(
                    "-rw-r--r--  1 dev  staff  {:>8}  2026-{:02}-{:02} {:02}:{:02}  ./{top}/{area}/{sub}/{name}",
                    rng.between(80, 250_000),
                    rng.between(1, 11),
                    rng.between(1, 28),
                    rng.below(24),
                    rng.below(60)
                ));
            }
        }
    }
    out.line("");
    out.plant(
        &format!("{dirs} directories, "),
        &format!("{files} files"),
        "\n",
        planted("How many files are in this listing?", Place::End, Ask::End),
    );
}

// ---------------------------------------------------------------------------------------------------
// Test run

const CRATES: [&str; 12] = [
    "accounts",
    "ledger",
    "payments",
    "checkout",
    "inventory",
    "pricing",
    "shipping",
    "catalog",
    "search",
    "notifications",
    "auth",
    "reports",
];
const MODULES: [&str; 10] = [
    "parser", "model", "store", "api", "sync", "cache", "money", "rules", "codec", "policy",
];
const VERBS: [&str; 10] = [
    "parses",
    "rejects",
    "rounds",
    "merges",
    "retries",
    "encodes",
    "sorts",
    "splits",
    "validates",
    "applies",
];
const NOUNS: [&str; 12] = [
    "empty_input",
    "negative_amount",
    "unicode_names",
    "large_batch",
    "duplicate_ids",
    "expired_token",
    "zero_quantity",
    "nested_rules",
    "missing_fields",
    "mixed_currencies",
    "old_schema",
    "partial_refund",
];

fn test_run(rng: &mut Rng, out: &mut Builder) {
    out.line("   Compiling proc-macro2 v1.0.101");
    out.line("   Compiling serde v1.0.228");
    out.line("   Compiling acme-core v0.9.3 (/work/acme/crates/core)");
    out.line("    Finished `test` profile [unoptimized + debuginfo] target(s) in 41.27s");
    let ending_len = 200;
    let mut failed_crate = None;
    let mut krate = 0usize;
    while out.room(ending_len) > 0 {
        let name = CRATES[krate % CRATES.len()];
        let generation = krate / CRATES.len();
        krate += 1;
        // About 70 bytes a test line; small documents get small crates.
        let count = rng
            .between(40, 600)
            .min((out.room(ending_len) / 70).max(3) as u64);
        out.line(&format!(
            "     Running unittests src/lib.rs (target/debug/deps/{name}-{})",
            rng.token(16, HEX)
        ));
        out.line("");
        out.line(&format!("running {count} tests"));
        let mut failing_test = None;
        let mut ignored = 0;
        for i in 0..count {
            if failed_crate.is_none() && failing_test.is_none() && out.past(45) {
                let test = "reconcile::tests::handles_leap_second_at_cutoff";
                out.plant(
                    "test ",
                    test,
                    " ... FAILED\n",
                    planted(
                        "Which test failed?",
                        Place::Middle,
                        Ask::Grep {
                            pattern: r"\.\.\. FAILED",
                            ignore_case: false,
                            answered_by: None,
                        },
                    ),
                );
                failing_test = Some(test);
                continue;
            }
            let module = rng.pick(&MODULES);
            let test = format!(
                "{module}::tests::{}_{}{}",
                rng.pick(&VERBS),
                rng.pick(&NOUNS),
                if generation > 0 || i > 200 {
                    format!("_{i}")
                } else {
                    String::new()
                }
            );
            if rng.chance(4) {
                // Tests of error paths log through env_logger, which cargo does not capture.
                out.line(&format!(
                    "[2026-11-21T10:{:02}:{:02}Z ERROR {name}::{module}] upstream returned 503, giving up after 3 attempts",
                    rng.below(60),
                    rng.below(60)
                ));
            }
            if rng.chance(10) {
                ignored += 1;
                out.line(&format!("test {test} ... ignored"));
            } else {
                out.line(&format!("test {test} ... ok"));
            }
        }
        out.line("");
        let seconds = rng.between(5, 900);
        match failing_test {
            Some(test) => {
                failed_crate = Some(name);
                out.line("failures:");
                out.line("");
                out.line(&format!("---- {test} stdout ----"));
                out.line("");
                out.plant(
                    &format!("thread '{test}' panicked at "),
                    &format!("crates/{name}/src/reconcile.rs:412:9"),
                    ":\n",
                    planted(
                        "In which file and line did the failing test panic?",
                        Place::Middle,
                        Ask::Grep {
                            pattern: "panicked at",
                            ignore_case: false,
                            answered_by: None,
                        },
                    ),
                );
                out.line("assertion `left == right` failed: day length at the cutoff");
                out.line("  left: 86401");
                out.line(" right: 86400");
                out.line(
                    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
                );
                out.line("");
                out.line("");
                out.line("failures:");
                out.line(&format!("    {test}"));
                out.line("");
                out.line(&format!(
                    "test result: FAILED. {} passed; 1 failed; {ignored} ignored; 0 measured; 0 filtered out; finished in {}.{:02}s",
                    count - 1 - ignored,
                    seconds / 100,
                    seconds % 100
                ));
            }
            None => out.line(&format!(
                "test result: ok. {} passed; 0 failed; {ignored} ignored; 0 measured; 0 filtered out; finished in {}.{:02}s",
                count - ignored,
                seconds / 100,
                seconds % 100
            )),
        }
        out.line("");
    }
    let failed = failed_crate.unwrap_or("accounts");
    out.line("error: 1 target failed:");
    out.plant(
        "    `",
        &format!("-p {failed} --lib"),
        "`\n",
        planted("Which package's tests failed?", Place::End, Ask::End),
    );
}

// ---------------------------------------------------------------------------------------------------
// Source file

const FN_VERBS: [&str; 12] = [
    "post",
    "settle",
    "compute",
    "validate",
    "apply",
    "split",
    "merge",
    "convert",
    "reverse",
    "summarize",
    "allocate",
    "close",
];
const FN_NOUNS: [&str; 12] = [
    "entry",
    "batch",
    "fee",
    "account",
    "transfer",
    "refund",
    "period",
    "journal",
    "balance",
    "payout",
    "adjustment",
    "invoice",
];
const STATEMENTS: [&str; 13] = [
    "    let mut total = Money::zero(currency);",
    "    for entry in entries.iter().filter(|e| e.posted_at <= cutoff) {\n        total = total.checked_add(entry.amount).ok_or(LedgerError::Overflow)?;\n    }",
    "    let account = self.accounts.get(&id).ok_or(LedgerError::UnknownAccount(id))?;",
    "    if amount.is_negative() {\n        return Err(LedgerError::NegativeAmount { amount });\n    }",
    "    // TODO: move this check into the journal once batches carry their currency",
    "    let fee = policy.round(amount.scale(rate_bps, 10_000));",
    "    tracing::debug!(%id, ?amount, \"posting\");",
    "    self.journal.push(JournalLine::new(id, amount, cutoff));",
    "    let period = Period::containing(cutoff);",
    "    debug_assert!(total.currency() == currency);",
    "    metrics::counter!(\"ledger_postings_total\").increment(1);",
    "    if account.is_frozen() {\n        tracing::warn!(%id, \"account frozen; skipping\");\n        return Ok(Money::zero(currency));\n    }",
    "    let rate_bps = self.rates.get(&(account.currency(), currency)).copied().unwrap_or(10_000);",
];

fn source_file(rng: &mut Rng, out: &mut Builder) {
    out.line("//! Ledger engine: posting, settlement and reconciliation of double-entry ledgers.");
    out.line("//!");
    out.line("//! Amounts are kept in minor units of their currency; rounding happens once, at settlement,");
    out.line("//! under the account's rounding policy.");
    out.line("");
    out.line("use std::collections::{BTreeMap, HashMap};");
    out.line("use std::fmt;");
    out.line("use std::sync::Arc;");
    out.line("");
    out.line("use crate::accounts::{Account, AccountId};");
    out.line("use crate::journal::{Journal, JournalLine};");
    out.line("use crate::money::{Currency, Money, RoundingPolicy};");
    out.line("use crate::time::{Period, Timestamp};");
    out.line("");
    out.line("/// Attempts before a settlement batch is parked for manual review.");
    let retries = rng.between(11, 29);
    out.plant(
        "pub const ",
        &format!("MAX_SETTLEMENT_RETRIES: u32 = {retries}"),
        ";\n",
        planted(
            "What is MAX_SETTLEMENT_RETRIES set to?",
            Place::Early,
            Ask::Grep {
                pattern: "const MAX_SETTLEMENT_RETRIES",
                ignore_case: false,
                answered_by: None,
            },
        ),
    );
    out.line("");
    let ending_len = 450;
    let (mut defined, mut fixme) = (false, false);
    let mut n = 0usize;
    while out.room(ending_len) > 0 {
        n += 1;
        if !defined && out.past(50) {
            defined = true;
            out.line("/// Reconciles the posted entries up to `cutoff` against the journal, per account.");
            out.plant(
                "pub fn reconcile_ledger(",
                "entries: &[LedgerEntry], cutoff: Timestamp, policy: &RoundingPolicy",
                ") -> Result<Balance, LedgerError> {\n",
                planted(
                    "What parameters does reconcile_ledger take?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "fn reconcile_ledger",
                        ignore_case: false,
                        answered_by: None,
                    },
                ),
            );
            out.line("    let mut balance = Balance::default();");
            out.line("    for entry in entries.iter().filter(|e| e.posted_at <= cutoff) {");
            out.line("        balance.apply(entry, policy)?;");
            out.line("    }");
            out.line("    Ok(balance)");
            out.line("}");
            out.line("");
            continue;
        }
        let verb = rng.pick(&FN_VERBS);
        let noun = rng.pick(&FN_NOUNS);
        let suffix = if n > 100 {
            format!("_{n}")
        } else {
            String::new()
        };
        out.line(&format!(
            "/// {}s the {noun} for the given period and records the result in the journal.",
            capitalize(verb)
        ));
        out.line(&format!(
            "pub fn {verb}_{noun}{suffix}(&mut self, id: AccountId, amount: Money, cutoff: Timestamp) -> Result<Money, LedgerError> {{"
        ));
        // Small documents get short functions, so they end near their target size.
        let statements = rng.between(3, 12).min(out.room(ending_len) as u64 / 90 + 2);
        for _ in 0..statements {
            let statement = *rng.pick(&STATEMENTS);
            out.line(statement);
            if !fixme && out.past(70) {
                fixme = true;
                out.plant(
                    "    // FIXME(ana): refunds issued after the cutoff are counted twice; see ",
                    &format!("INC-{}", rng.between(1_000, 9_999)),
                    "\n",
                    planted(
                        "Is there a FIXME in this file? Which incident does it reference?",
                        Place::Middle,
                        Ask::Grep {
                            pattern: "FIXME",
                            ignore_case: false,
                            answered_by: None,
                        },
                    ),
                );
            }
        }
        out.line("    Ok(amount)");
        out.line("}");
        out.line("");
    }
    out.line("#[cfg(test)]");
    out.line("mod tests {");
    out.line("    use super::*;");
    out.line("");
    out.line("    #[test]");
    out.line("    fn reconciles_an_empty_ledger() {");
    out.line("        let balance = reconcile_ledger(&[], Timestamp::EPOCH, &RoundingPolicy::HalfEven).unwrap();");
    out.line("        assert_eq!(balance, Balance::default());");
    out.line("    }");
    out.line("}");
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------------
// Search results

const MATCH_LINES: [&str; 9] = [
    "    let timeout = Duration::from_secs({n});",
    "        .timeout(Duration::from_millis({n}))",
    "  timeout: {n}s",
    "        read_timeout_ms: {n},",
    "# Connection timeout in seconds; the load balancer gives up at {n}.",
    "    #[error(\"request timed out after {timeout:?}\")]",
    "    def test_timeout_is_respected_{n}(self):",
    "    pub connect_timeout: Option<Duration>,",
    "const DEFAULT_TIMEOUT_MS = {n};",
];
const SEARCH_EXTENSIONS: [&str; 5] = ["rs", "rs", "yaml", "py", "ts"];

fn search_results(rng: &mut Rng, out: &mut Builder) {
    let ending_len = 350;
    let (mut matches, mut files) = (0u64, 0u64);
    let mut planted_hit = false;
    while out.room(ending_len) > 0 {
        files += 1;
        let top = rng.pick(&TOPS);
        let area = rng.pick(&AREAS);
        let sub = rng.pick(&SUBDIRS);
        let path = format!(
            "{top}/{area}/{sub}/{}_{}{}.{}",
            rng.pick(&WORDS),
            rng.pick(&WORDS),
            files,
            rng.pick(&SEARCH_EXTENSIONS)
        );
        let mut line_no = 0;
        for _ in 0..rng.between(1, 6) {
            line_no += rng.between(1, 120);
            matches += 1;
            let text = rng
                .pick(&MATCH_LINES)
                .replace("{n}", &rng.between(1, 120).to_string());
            out.line(&format!("{path}:{line_no}:{text}"));
        }
        if rng.chance(1) {
            matches += 1;
            out.line(&format!(
                "docs/ops/runbook_{files}.md:{}:Webhook deliveries use the default HTTP timeout unless the endpoint overrides it.",
                rng.between(1, 400)
            ));
        }
        if !planted_hit && out.past(80) {
            planted_hit = true;
            matches += 1;
            files += 1;
            out.plant(
                "",
                "services/notifications/src/webhook/dispatch.rs:88",
                ":    let webhook_timeout = Duration::from_millis(2750);\n",
                planted(
                    "Where is the webhook delivery timeout set (file and line)?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "webhook.*timeout",
                        ignore_case: true,
                        // "Where is it set": an assignment, not a mention in the docs.
                        answered_by: Some("(?i)webhook.*timeout.*="),
                    },
                ),
            );
        }
    }
    out.line("");
    out.line(&format!("{matches} matches"));
    out.line(&format!("{matches} matched lines"));
    out.plant(
        "",
        &format!("{files} files contained matches"),
        "\n",
        planted("How many files contained matches?", Place::End, Ask::End),
    );
    out.line(&format!("{} files searched", files * 9 + rng.below(files)));
    out.line(&format!("{} bytes printed", out.text.len()));
    out.line(&format!(
        "{} bytes searched",
        out.text.len() as u64 * 40 + rng.below(1_000_000)
    ));
    out.line(&format!(
        "0.{:06} seconds spent searching",
        rng.below(999_999)
    ));
    out.line(&format!("0.{:06} seconds", rng.below(999_999)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_sizes() -> [Size; 2] {
        [SIZES[0], SIZES[1]]
    }

    #[test]
    fn same_seed_gives_the_same_bytes() {
        let a = corpus(DEFAULT_SEED, &small_sizes());
        let b = corpus(DEFAULT_SEED, &small_sizes());
        let c = corpus(DEFAULT_SEED + 1, &small_sizes());
        let hash = |docs: &[Document]| {
            let mut hasher = blake3::Hasher::new();
            for doc in docs {
                hasher.update(doc.text.as_bytes());
                for fact in &doc.facts {
                    hasher.update(fact.answer.as_bytes());
                    hasher.update(&fact.offset.to_le_bytes());
                }
            }
            hasher.finalize()
        };
        assert_eq!(hash(&a), hash(&b));
        assert_ne!(hash(&a), hash(&c));
    }

    /// Pins the bytes of one document: a change to a generator must be deliberate.
    #[test]
    fn a_document_hash_is_stable() {
        let doc = document(DEFAULT_SEED, DocKind::Log, SIZES[0]);
        let again = document(DEFAULT_SEED, DocKind::Log, SIZES[0]);
        assert_eq!(
            blake3::hash(doc.text.as_bytes()),
            blake3::hash(again.text.as_bytes())
        );
    }

    /// Policy (d) reads the question's ask: it must not carry the answer.
    #[test]
    fn no_question_or_ask_gives_the_answer_away() {
        for doc in corpus(DEFAULT_SEED, &SIZES[..2]) {
            for fact in &doc.facts {
                assert!(!fact.question.contains(&fact.answer), "{fact:?}");
                assert!(
                    !format!("{:?}", fact.ask).contains(&fact.answer),
                    "{fact:?}"
                );
            }
        }
    }

    #[test]
    fn sizes_are_close_to_their_targets() {
        for doc in corpus(DEFAULT_SEED, &SIZES[..3]) {
            let len = doc.text.len();
            let target = doc.size.bytes;
            assert!(
                len >= target * 95 / 100 && len <= target * 105 / 100,
                "{} is {len} bytes for a {target}-byte target",
                doc.name()
            );
        }
    }

    #[test]
    fn every_answer_first_occurs_where_stated() {
        for doc in corpus(DEFAULT_SEED, &SIZES[..3]) {
            assert!(!doc.facts.is_empty(), "{} has no facts", doc.name());
            for fact in &doc.facts {
                let name = doc.name();
                assert_eq!(
                    doc.text.find(&fact.answer),
                    Some(fact.offset),
                    "{name}: `{}` is not first found at {}",
                    fact.answer,
                    fact.offset
                );
                let chars_before = doc.text[..fact.offset].chars().count();
                let chars_after = doc.text[fact.offset..].chars().count();
                let ok = match fact.place {
                    Place::Start => chars_before + fact.answer.len() <= 200,
                    Place::Early => {
                        chars_before >= 200 && chars_before + fact.answer.len() <= 1_500
                    }
                    Place::Middle => chars_before >= 1_500 && chars_after > 500,
                    Place::End => chars_after <= 500,
                };
                assert!(
                    ok,
                    "{name}: `{}` at char {chars_before} is not in the {} part",
                    fact.answer,
                    fact.place.label()
                );
            }
        }
    }

    #[test]
    fn the_smallest_documents_stay_under_the_offload_threshold() {
        for doc in corpus(DEFAULT_SEED, &SIZES[..1]) {
            assert!(
                doc.text.len() <= scratchpad_core::config::DEFAULT_THRESHOLD_BYTES,
                "{} is {} bytes",
                doc.name(),
                doc.text.len()
            );
        }
    }

    #[test]
    fn the_ten_megabyte_documents_are_generated_too() {
        let doc = document(DEFAULT_SEED, DocKind::Search, SIZES[3]);
        assert!(doc.text.len() >= 9_500_000);
        assert_eq!(doc.facts.len(), 2);
    }
}
