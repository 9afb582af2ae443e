//! Outputs in the formats real programs write: logs in eight conventions, four test runners and a
//! compiler, each with a planted line that matters among lines that do not. These test what a
//! reference shows by itself: whether the line that answers the question is in the preview.

use super::{Ask, Builder, Place, planted, timestamp};
use crate::eval::rng::{HEX, LOWER_ALNUM, Rng, UPPER_ALNUM};

/// Bytes kept for a document's ending (summary lines, the last noise).
const ENDING: usize = 200;

/// Sets each fact's place from where its answer landed: the generators plant at a share of the
/// target size, and what follows an answer depends on the format.
fn settle_places(out: &mut Builder) {
    let total = out.text.chars().count();
    for fact in &mut out.facts {
        let before = out.text[..fact.offset].chars().count();
        let after = total - before;
        fact.place = if before + fact.answer.len() <= 200 {
            Place::Start
        } else if before < 1_500 {
            Place::Early
        } else if after <= 500 {
            Place::End
        } else {
            Place::Middle
        };
    }
}

/// `2026/11/21 10:MM:SS` for nginx, Go's log package and friends.
fn slashed(ms: u64) -> String {
    timestamp(ms)[..19].replace('-', "/").replace('T', " ")
}

/// A clock that advances by about `step` ms a line.
struct Clock {
    ms: u64,
    step: u64,
}

impl Clock {
    fn new(rng: &mut Rng, target: usize) -> Clock {
        Clock {
            ms: 6 * 3_600_000 + rng.below(3_600_000),
            step: (50_400_000 / (target as u64 / 110).max(1)).max(2),
        }
    }

    fn tick(&mut self, rng: &mut Rng) -> u64 {
        self.ms += rng.between(self.step / 2, self.step * 3 / 2);
        self.ms
    }
}

const ROUTES: [&str; 5] = [
    "/v1/carts",
    "/v1/orders",
    "/v1/catalog/items",
    "/v1/shipping/rates",
    "/healthz",
];

pub(super) fn nginx_error(rng: &mut Rng, out: &mut Builder) {
    let mut clock = Clock::new(rng, out.target);
    out.line("2026/11/21 06:00:00 [notice] 1#1: using the \"epoll\" event method");
    out.line("2026/11/21 06:00:00 [notice] 1#1: nginx/1.27.3");
    let upstream = format!(
        "inventory-{}.svc.cluster.local:8080",
        rng.token(6, LOWER_ALNUM)
    );
    let (mut refused, mut critical) = (false, false);
    while out.room(ENDING) > 0 {
        let t = slashed(clock.tick(rng));
        let conn = rng.between(1_000, 99_999);
        if !refused && out.past(40) {
            refused = true;
            out.plant(
                &format!("{t} [error] 31#31: *{conn} connect() failed (111: Connection refused) while connecting to upstream, client: 10.0.0.{}, server: shop.example.com, request: \"GET /v1/cart HTTP/1.1\", upstream: \"http://", rng.below(250)),
                &upstream,
                "/v1/cart\", host: \"shop.example.com\"\n",
                planted(
                    "Connections to one upstream keep being refused in this nginx error log. Which upstream?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "refused",
                        ignore_case: true,
                        answered_by: Some(r#"refused.*upstream: "http://[^"]+/"#),
                    },
                ),
            );
            continue;
        }
        if !critical && out.past(60) {
            critical = true;
            out.plant(
                &format!("{t} [crit] 31#31: *{conn} SSL_do_handshake() failed (SSL: error:0A00006C:SSL routines::bad key share) while SSL handshaking, client: "),
                &format!("203.0.113.{}", rng.between(1, 254)),
                ", server: 0.0.0.0:443\n",
                planted(
                    "The nginx error log has one critical (crit) entry among its warnings. Which client address was it about?",
                    Place::Middle,
                    Ask::Grep { pattern: r"\[crit\]", ignore_case: true, answered_by: None },
                ),
            );
            continue;
        }
        let line = match rng.below(100) {
            0..=1 if refused => format!(
                "{t} [error] 31#31: *{conn} connect() failed (111: Connection refused) while connecting to upstream, client: 10.0.0.{}, server: shop.example.com, request: \"GET /v1/cart HTTP/1.1\", upstream: \"http://{upstream}/v1/cart\", host: \"shop.example.com\"",
                rng.below(250)
            ),
            0..=59 => format!(
                "{t} [warn] 31#31: *{conn} an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/{}/00/00000{} while reading upstream, client: 10.0.0.{}, server: shop.example.com",
                rng.below(9),
                rng.below(99_999),
                rng.below(250)
            ),
            _ => format!(
                "{t} [info] 31#31: *{conn} client 10.0.0.{} closed keepalive connection",
                rng.below(250)
            ),
        };
        out.line(&line);
    }
    out.line(&format!(
        "{} [notice] 1#1: signal 3 (SIGQUIT) received, shutting down",
        slashed(clock.tick(rng))
    ));
    settle_places(out);
}

pub(super) fn logfmt(rng: &mut Rng, out: &mut Builder) {
    let mut clock = Clock::new(rng, out.target);
    let upstream = format!("pricing-{}", rng.token(6, LOWER_ALNUM));
    let (mut refused, mut fatal) = (false, false);
    while out.room(ENDING) > 0 {
        let ts = timestamp(clock.tick(rng));
        if !refused && out.past(35) {
            refused = true;
            out.plant(
                &format!("time=\"{ts}\" level=error msg=\"upstream refused connection\" upstream="),
                &upstream,
                &format!(
                    ":8080 err=\"dial tcp 10.0.3.{}:8080: connect: connection refused\"\n",
                    rng.below(250)
                ),
                planted(
                    "One upstream keeps refusing connections. Which one?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "refused",
                        ignore_case: true,
                        answered_by: None,
                    },
                ),
            );
            continue;
        }
        if !fatal && out.past(65) {
            fatal = true;
            out.plant(
                &format!("time=\"{ts}\" level=fatal msg=\"cannot open ledger database\" path="),
                &format!("/var/lib/ledger/{}.db", rng.token(8, LOWER_ALNUM)),
                " err=\"database is locked\"\n",
                planted(
                    "The service stopped with a fatal error. Which database file could it not open?",
                    Place::Middle,
                    Ask::Grep { pattern: "fatal", ignore_case: true, answered_by: Some("level=fatal") },
                ),
            );
            continue;
        }
        let line = match rng.below(100) {
            0..=1 if refused => format!(
                "time=\"{ts}\" level=error msg=\"upstream refused connection\" upstream={upstream}:8080 err=\"dial tcp 10.0.3.{}:8080: connect: connection refused\"",
                rng.below(250)
            ),
            2..=6 => format!(
                "time=\"{ts}\" level=warning msg=\"retrying request\" attempt={} path={}",
                rng.between(1, 3),
                rng.pick(&ROUTES)
            ),
            7..=20 => format!(
                "time=\"{ts}\" level=debug msg=\"cache hit\" key=cart:{}",
                rng.below(999_999)
            ),
            _ => format!(
                "time=\"{ts}\" level=info msg=\"request served\" method=GET path={}/{} status=200 duration_ms={}",
                rng.pick(&ROUTES),
                rng.below(99_999),
                rng.below(300)
            ),
        };
        out.line(&line);
    }
    out.line(&format!(
        "time=\"{}\" level=info msg=\"shutdown complete\"",
        timestamp(clock.tick(rng))
    ));
    settle_places(out);
}

pub(super) fn json_lines(rng: &mut Rng, out: &mut Builder) {
    let mut clock = Clock::new(rng, out.target);
    let mut fatal = false;
    while out.room(ENDING) > 0 {
        let ts = clock.tick(rng) as f64 / 1000.0 + 1_763_683_200.0;
        if !fatal && out.past(55) {
            fatal = true;
            out.plant(
                &format!("{{\"level\":\"fatal\",\"ts\":{ts:.3},\"caller\":\"orders/main.go:61\",\"msg\":\"cannot bind listener\",\"listener\":\""),
                &format!("grpc-{}", rng.token(8, LOWER_ALNUM)),
                "\",\"error\":\"listen tcp :8443: bind: address already in use\"}\n",
                planted(
                    "The service exited with a fatal error. Which listener could it not bind?",
                    Place::Middle,
                    Ask::Grep { pattern: "fatal", ignore_case: true, answered_by: Some("\"level\":\"fatal\"") },
                ),
            );
            continue;
        }
        let line = match rng.below(100) {
            0..=2 => format!(
                "{{\"level\":\"error\",\"ts\":{ts:.3},\"caller\":\"orders/payments.go:88\",\"msg\":\"payment declined\",\"order\":\"ord_{}\",\"code\":\"card_declined\"}}",
                rng.token(10, UPPER_ALNUM)
            ),
            3..=8 => format!(
                "{{\"level\":\"warn\",\"ts\":{ts:.3},\"caller\":\"orders/retry.go:31\",\"msg\":\"retrying\",\"attempt\":{}}}",
                rng.between(1, 3)
            ),
            _ => format!(
                "{{\"level\":\"info\",\"ts\":{ts:.3},\"caller\":\"orders/handler.go:120\",\"msg\":\"request served\",\"path\":\"{}\",\"status\":200,\"latency_ms\":{}}}",
                rng.pick(&ROUTES),
                rng.below(300)
            ),
        };
        out.line(&line);
    }
    out.line("{\"level\":\"info\",\"msg\":\"bye\"}");
    settle_places(out);
}

pub(super) fn logcat(rng: &mut Rng, out: &mut Builder) {
    let mut clock = Clock::new(rng, out.target);
    let mut crashed = false;
    while out.room(ENDING) > 0 {
        let t = &timestamp(clock.tick(rng))[5..23].replace('T', " ");
        if !crashed && out.past(60) {
            crashed = true;
            out.line(&format!(
                "{t}  4211  4211 E AndroidRuntime: FATAL EXCEPTION: main"
            ));
            out.plant(
                &format!("{t}  4211  4211 E AndroidRuntime: Process: "),
                &format!("com.example.shop.{}", rng.token(6, LOWER_ALNUM)),
                ", PID: 4211\n",
                planted(
                    "The app crashed. Which process (package name) crashed?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "FATAL EXCEPTION|Process:",
                        ignore_case: false,
                        answered_by: Some("Process: "),
                    },
                ),
            );
            out.line(&format!(
                "{t}  4211  4211 E AndroidRuntime: java.lang.IllegalStateException: cart is empty"
            ));
            continue;
        }
        let line = match rng.below(40) {
            0..=3 => format!(
                "{t}  4211  4290 W System.err: java.net.SocketTimeoutException: timeout after {} ms",
                rng.between(1_000, 9_000)
            ),
            4..=9 => format!(
                "{t}  4211  4290 D OkHttp  : --> GET https://api.example.com{}",
                rng.pick(&ROUTES)
            ),
            _ => format!(
                "{t}   512   540 I ActivityManager: Displayed com.example.shop/.CartActivity: +{}ms",
                rng.below(900)
            ),
        };
        out.line(&line);
    }
    out.line("--------- beginning of crash");
    settle_places(out);
}

pub(super) fn journald(rng: &mut Rng, out: &mut Builder) {
    let mut clock = Clock::new(rng, out.target);
    let mut killed = false;
    while out.room(ENDING) > 0 {
        let t = format!("Nov 21 {}", &timestamp(clock.tick(rng))[11..19]);
        if !killed && out.past(50) {
            killed = true;
            out.plant(
                &format!("{t} web-1 kernel: Out of memory: Killed process 4242 ("),
                &format!("worker-{}", rng.token(6, LOWER_ALNUM)),
                ") total-vm:8123456kB, anon-rss:7912345kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:15912kB oom_score_adj:0\n",
                planted(
                    "The kernel's out-of-memory killer killed a process. Which one?",
                    Place::Middle,
                    Ask::Grep { pattern: "Killed process", ignore_case: false, answered_by: None },
                ),
            );
            continue;
        }
        let line = match rng.below(100) {
            0 => format!(
                "{t} web-1 sshd[{}]: error: kex_exchange_identification: Connection closed by remote host",
                rng.between(4_000, 4_999)
            ),
            1..=30 => format!(
                "{t} web-1 sshd[{}]: Accepted publickey for deploy from 10.0.0.{} port {} ssh2: ED25519 SHA256:{}",
                rng.between(4_000, 4_999),
                rng.below(250),
                rng.below(65_000),
                rng.token(20, HEX)
            ),
            31..=50 => format!(
                "{t} web-1 CRON[{}]: (root) CMD (   cd / && run-parts --report /etc/cron.hourly)",
                rng.below(99_999)
            ),
            _ => format!(
                "{t} web-1 systemd[1]: Started session-{}.scope - Session {} of User deploy.",
                rng.below(9_999),
                rng.below(9_999)
            ),
        };
        out.line(&line);
    }
    out.line("Nov 21 20:00:00 web-1 systemd[1]: Stopping user@1000.service - User Manager for UID 1000...");
    settle_places(out);
}

pub(super) fn python_logging(rng: &mut Rng, out: &mut Builder) {
    let mut clock = Clock::new(rng, out.target);
    let mut raised = false;
    while out.room(ENDING) > 0 {
        let ts = timestamp(clock.tick(rng))[..23]
            .replace('T', " ")
            .replace('.', ",");
        if !raised && out.past(55) {
            raised = true;
            out.line(&format!(
                "{ts} - orders.payments - ERROR - charge failed for order ord_{}",
                rng.token(8, UPPER_ALNUM)
            ));
            out.line("Traceback (most recent call last):\n  File \"/app/orders/payments.py\", line 88, in charge\n    resp = client.post(url, json=payload, timeout=5)\n  File \"/app/venv/lib/python3.12/site-packages/requests/api.py\", line 115, in post\n    return request(\"post\", url, data=data, json=json, **kwargs)");
            out.plant(
                "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='",
                &format!("{}.payments.example.com", rng.token(8, LOWER_ALNUM)),
                "', port=443): Max retries exceeded with url: /v1/charges\n",
                planted(
                    "A payment call raised an exception. Which host could it not reach?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "Error",
                        ignore_case: false,
                        answered_by: Some("ConnectionError"),
                    },
                ),
            );
            continue;
        }
        let line = match rng.below(20) {
            0 => format!(
                "{ts} - orders.db - WARNING - slow query {} ms: SELECT * FROM carts WHERE id = %s",
                rng.between(500, 3_000)
            ),
            1..=4 => format!(
                "{ts} - orders.cache - DEBUG - cache hit cart:{}",
                rng.below(90_000)
            ),
            _ => format!(
                "{ts} - orders.api - INFO - GET {}/{} -> 200 ({} ms)",
                rng.pick(&ROUTES),
                rng.below(99_999),
                rng.below(300)
            ),
        };
        out.line(&line);
    }
    out.line("worker exiting");
    settle_places(out);
}

/// The Java service of the problem report: hundreds of one repeated ERROR with stack traces, and
/// two FATAL lines among them.
pub(super) fn log4j(rng: &mut Rng, out: &mut Builder) {
    let mut clock = Clock::new(rng, out.target);
    let pool = format!("orders-{}", rng.token(6, LOWER_ALNUM));
    let mut fatals = 0;
    while out.room(ENDING) > 0 {
        let ts = timestamp(clock.tick(rng))[..23]
            .replace('T', " ")
            .replace('.', ",");
        if (fatals == 0 && out.past(50)) || (fatals == 1 && out.past(70)) {
            fatals += 1;
            let line = format!("{ts} FATAL [main] c.e.orders.Application - Database pool ");
            if fatals == 1 {
                out.plant(
                    &line,
                    &pool,
                    " exhausted, shutting down order service\n",
                    planted(
                        "Why did the order service shut down? Which database pool was exhausted?",
                        Place::Middle,
                        Ask::Grep {
                            pattern: "FATAL",
                            ignore_case: false,
                            answered_by: None,
                        },
                    ),
                );
            } else {
                out.line(&format!(
                    "{line}{pool} exhausted, shutting down order service"
                ));
            }
            continue;
        }
        match rng.below(100) {
            0..=9 => {
                out.line(&format!("{ts} ERROR [kafka-consumer-{}] c.e.orders.events.Consumer - Failed to deserialize event at offset {}", rng.below(4), rng.below(9_999_999)));
                if rng.chance(250) {
                    out.line("com.fasterxml.jackson.core.JsonParseException: Unexpected character ('<' (code 60)): expected a valid value\n\tat com.fasterxml.jackson.core.JsonParser._constructError(JsonParser.java:2337)\n\tat c.e.orders.events.Consumer.poll(Consumer.java:88)\n\t... 12 more");
                }
            }
            10..=19 => out.line(&format!("{ts} DEBUG [pool-2-thread-{}] c.e.orders.cache.CartCache - hit cart:{}", rng.below(8), rng.below(90_000))),
            20..=22 => out.line(&format!("{ts} WARN  [pool-2-thread-1] c.e.orders.db.Pool - connection {} slow: {} ms", rng.below(64), rng.between(500, 2_500))),
            _ => out.line(&format!("{ts} INFO  [http-nio-8080-exec-{}] c.e.orders.OrderController - GET {}/{} 200 in {} ms", rng.below(10), rng.pick(&ROUTES), rng.below(99_999), rng.below(300))),
        }
    }
    out.line("Shutdown hook completed.");
    settle_places(out);
}

pub(super) fn klog(rng: &mut Rng, out: &mut Builder) {
    let mut clock = Clock::new(rng, out.target);
    let mut lost = false;
    while out.room(ENDING) > 0 {
        let t = &timestamp(clock.tick(rng))[11..23];
        let micros = rng.below(1_000);
        if !lost && out.past(60) {
            lost = true;
            out.plant(
                &format!("F1121 {t}{micros:03}       1 leaderelection.go:308] leaderelection lost for lease kube-system/"),
                &format!("kcm-{}", rng.token(8, LOWER_ALNUM)),
                "\n",
                planted(
                    "The controller manager stopped with a fatal error. Which lease did it lose?",
                    Place::Middle,
                    Ask::Grep { pattern: "leaderelection|lease", ignore_case: true, answered_by: Some("lost") },
                ),
            );
            continue;
        }
        let line = match rng.below(100) {
            0..=1 => format!(
                "E1121 {t}{micros:03}       1 deployment_controller.go:495] \"Error syncing deployment\" deployment=\"shop/orders\" err=\"Operation cannot be fulfilled on replicasets.apps: the object has been modified\""
            ),
            2..=6 => format!(
                "W1121 {t}{micros:03}       1 reflector.go:561] watch of *v1.Pod ended with: an error on the server (\"unable to decode an event from the watch stream\") has prevented the request from succeeding"
            ),
            _ => format!(
                "I1121 {t}{micros:03}       1 controller.go:{}] \"Syncing\" deployment=\"shop/orders-{}\"",
                rng.below(900),
                rng.below(99)
            ),
        };
        out.line(&line);
    }
    out.line("I1121 20:00:00.000000       1 server.go:42] \"Shutting down\"");
    settle_places(out);
}

pub(super) fn pytest(rng: &mut Rng, out: &mut Builder) {
    let failing = format!("test_refund_rounds_{}", rng.token(6, LOWER_ALNUM));
    let order = format!("ord_{}", rng.token(8, UPPER_ALNUM));
    out.line("============================= test session starts ==============================\nplatform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0\nrootdir: /work/shop\ncollecting ... collected 9999 items\n");
    // Room for the failure section and the summary at the end.
    let tail = 560 + 4 * failing.len() + 3 * order.len();
    let mut i = 0u64;
    let mut failed = false;
    while out.room(tail) > 0 {
        if !failed && out.past(45) {
            failed = true;
            out.plant(
                "tests/test_refunds.py::",
                &failing,
                " FAILED                         [ 45%]\n",
                planted(
                    "Which test failed?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "FAILED",
                        ignore_case: false,
                        answered_by: None,
                    },
                ),
            );
            continue;
        }
        out.line(&format!(
            "tests/test_orders.py::test_order_total_{i} PASSED                          [{:>3}%]",
            (out.text.len() * 100 / out.target).min(99)
        ));
        i += 1;
    }
    out.line(&format!("\n=================================== FAILURES ===================================\n_____________________________ {failing} _____________________________\n\n    def {failing}():\n        refund = round_half_up(19.995)"));
    out.plant(
        ">       assert refund == 20.0, \"refund for ",
        &order,
        " rounded down\"\n",
        planted(
            "What did the failing test's assertion say? Which order was it about?",
            Place::End,
            Ask::Grep {
                pattern: "AssertionError",
                ignore_case: false,
                answered_by: Some("AssertionError"),
            },
        ),
    );
    out.line(&format!("E       AssertionError: refund for {order} rounded down\nE       assert 19.99 == 20.0\n\ntests/test_refunds.py:12: AssertionError\n=========================== short test summary info ============================\nFAILED tests/test_refunds.py::{failing} - AssertionError: refund for {order} rounded down\n======================== 1 failed, {i} passed in 41.27s ========================"));
    settle_places(out);
}

pub(super) fn go_test(rng: &mut Rng, out: &mut Builder) {
    let order = format!("ord_{}", rng.token(8, UPPER_ALNUM));
    let test = format!("TestRefundRounding{}", rng.token(4, UPPER_ALNUM));
    let mut failed = false;
    let mut i = 0u64;
    while out.room(ENDING) > 0 {
        if !failed && out.past(50) {
            failed = true;
            out.plant(
                "--- FAIL: ",
                &test,
                " (0.00s)\n",
                planted(
                    "Which Go test failed?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "--- FAIL",
                        ignore_case: false,
                        answered_by: None,
                    },
                ),
            );
            out.plant(
                "    refund_test.go:42: refund = 19.99, want 20.00 for ",
                &order,
                "\nFAIL\nFAIL\texample.com/shop/internal/refunds\t0.012s\n",
                planted(
                    "What did the failing Go test report? Which order was wrong?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "--- FAIL",
                        ignore_case: false,
                        answered_by: Some("want"),
                    },
                ),
            );
            continue;
        }
        if i.is_multiple_of(7) {
            out.line(&format!(
                "?   \texample.com/shop/cmd/tool{i}\t[no test files]"
            ));
        } else {
            out.line(&format!(
                "ok  \texample.com/shop/internal/pkg{i}\t0.{:03}s",
                i % 997
            ));
        }
        i += 1;
    }
    out.line("FAIL");
    settle_places(out);
}

pub(super) fn jest(rng: &mut Rng, out: &mut Builder) {
    let case = format!("rounds {} refunds half up", rng.token(6, LOWER_ALNUM));
    let tail = 300;
    let mut suite = 0u64;
    let (mut failed, mut total) = (false, 0u64);
    while out.room(tail) > 0 {
        if !failed && out.past(50) {
            failed = true;
            total += 2;
            out.line(" FAIL  src/refunds/rounding.test.ts\n  refunds");
            out.plant(
                "    ✕ ",
                &case,
                " (5 ms)\n    ✓ refunds whole orders (2 ms)\n\n",
                planted(
                    "Which jest test failed?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "✕|●",
                        ignore_case: false,
                        answered_by: None,
                    },
                ),
            );
            out.line(&format!("  ● refunds › {case}\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 20\n    Received: 19.99\n\n      at Object.<anonymous> (src/refunds/rounding.test.ts:11:33)\n"));
            continue;
        }
        out.line(&format!(
            " PASS  src/cart/total{suite}.test.ts\n  cart total {suite}"
        ));
        for t in 0..5 {
            out.line(&format!(
                "    ✓ adds line item {t} ({} ms)",
                (suite + t) % 9 + 1
            ));
        }
        total += 5;
        suite += 1;
        out.line("");
    }
    out.line(&format!("Test Suites: 1 failed, {suite} passed, {} total\nTests:       1 failed, {} passed, {total} total\nTime:        12.345 s", suite + 1, total - 1));
    settle_places(out);
}

pub(super) fn maven(rng: &mut Rng, out: &mut Builder) {
    let class = format!("com.example.orders.Refund{}Test", rng.token(5, UPPER_ALNUM));
    out.line("[INFO] -------------------------------------------------------\n[INFO]  T E S T S\n[INFO] -------------------------------------------------------");
    let tail = 300;
    let mut c = 0u64;
    let mut failed = false;
    while out.room(tail) > 0 {
        if !failed && out.past(50) {
            failed = true;
            out.plant(
                "[INFO] Running ",
                &class,
                "\n",
                planted(
                    "Which test class had a failure?",
                    Place::Middle,
                    Ask::Grep {
                        pattern: "FAILURE",
                        ignore_case: false,
                        answered_by: Some("<<< FAILURE"),
                    },
                ),
            );
            out.line(&format!("[ERROR] Tests run: 8, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.041 s <<< FAILURE! -- in {class}\n[ERROR] {class}.roundsHalfUp -- Time elapsed: 0.010 s <<< FAILURE!\norg.opentest4j.AssertionFailedError: expected: <20.00> but was: <19.99>\n\tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:151)\n\tat {class}.roundsHalfUp(RefundTest.java:42)\n"));
            continue;
        }
        if out.room(tail) < 240 {
            // Maven's blank lines fill what a whole test class would overshoot.
            out.line("[INFO] ");
            continue;
        }
        out.line(&format!("[INFO] Running com.example.orders.OrderTotal{c}Test\n[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.0{:02} s -- in com.example.orders.OrderTotal{c}Test", c % 97));
        c += 1;
    }
    out.line(&format!("[INFO] \n[INFO] Results:\n[INFO] \n[ERROR] Failures: \n[ERROR]   {}.roundsHalfUp:42 expected: <20.00> but was: <19.99>\n[INFO] \n[ERROR] Tests run: {}, Failures: 1, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE", &class[19..], c * 12 + 8));
    settle_places(out);
}

pub(super) fn cargo_build(rng: &mut Rng, out: &mut Builder) {
    let module = format!("refunds_{}", rng.token(5, LOWER_ALNUM));
    let mut i = 0u64;
    let mut errored = false;
    while out.room(ENDING) > 0 {
        if !errored && out.past(50) {
            errored = true;
            out.line("error[E0308]: mismatched types");
            out.plant(
                "  --> ",
                &format!("src/{module}.rs:42:18"),
                "\n   |\n42 |     let cents: u64 = amount * 100.0;\n   |                ---   ^^^^^^^^^^^^^^ expected `u64`, found `f64`\n   |                |\n   |                expected due to this\n\n",
                planted(
                    "The build failed. Where is the compile error (file:line:column)?",
                    Place::Middle,
                    Ask::Grep { pattern: r"error\[E", ignore_case: false, answered_by: None },
                ),
            );
            continue;
        }
        if i.is_multiple_of(3) {
            out.line(&format!("warning: unused variable: `tmp{i}`\n  --> src/orders/m{i}.rs:{}:9\n   |\n{:>2} |     let tmp{i} = 0;\n   |         ^^^^ help: if this is intentional, prefix it with an underscore: `_tmp{i}`\n", 10 + i % 50, 10 + i % 50));
        } else {
            out.line(&format!("   Compiling dep{i} v0.{}.{}", i % 9, i % 13));
        }
        i += 1;
    }
    out.line("error: could not compile `shop` (lib) due to 1 previous error");
    settle_places(out);
}
