//! Outputs in the formats real programs write, generated deterministically, with planted lines
//! whose number, level and form are known: logs in many conventions, test runs, compiler output.

use scratchpad_core::preview::Level;

/// SplitMix64: deterministic, no dependencies.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    pub fn hex(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| char::from(b"0123456789abcdef"[self.below(16) as usize]))
            .collect()
    }

    pub fn word(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| char::from(b'a' + self.below(26) as u8))
            .collect()
    }
}

/// A planted line: where it is, a piece of its text, its level, and which planted lines share
/// its form (same `group`).
#[derive(Debug, Clone)]
pub struct Planted {
    pub line: u64,
    pub snippet: String,
    pub level: Level,
    pub group: u32,
}

/// A generated output.
#[derive(Debug, Clone)]
pub struct Sample {
    pub name: &'static str,
    pub text: String,
    pub planted: Vec<Planted>,
    /// A line of the output's usual noise that a search for the planted lines must not match.
    pub noise: String,
}

/// Builds a sample line by line.
pub struct Out {
    text: String,
    lines: u64,
    planted: Vec<Planted>,
}

impl Out {
    fn new() -> Out {
        Out {
            text: String::new(),
            lines: 0,
            planted: Vec::new(),
        }
    }

    pub fn line(&mut self, line: &str) {
        for part in line.split('\n') {
            self.text.push_str(part);
            self.text.push('\n');
            self.lines += 1;
        }
    }

    /// A planted line; `snippet` must occur in it.
    pub fn plant(&mut self, line: &str, snippet: &str, level: Level, group: u32) {
        assert!(line.contains(snippet), "{snippet} not in {line}");
        self.line(line);
        self.planted.push(Planted {
            line: self.lines,
            snippet: snippet.to_owned(),
            level,
            group,
        });
    }

    fn done(self, name: &'static str, noise: &str) -> Sample {
        assert!(
            self.text.contains(noise),
            "{name}: the noise line is not in the sample"
        );
        Sample {
            name,
            text: self.text,
            planted: self.planted,
            noise: noise.to_owned(),
        }
    }
}

/// `2026-11-21T10:MM:SS.mmmZ` for a line index.
fn iso(i: u64) -> String {
    format!(
        "2026-11-21T10:{:02}:{:02}.{:03}Z",
        (i / 600) % 60,
        (i / 10) % 60,
        (i * 37) % 1000
    )
}

/// `2026-11-21 10:MM:SS,mmm` for a line index.
fn spaced(i: u64, sep: char) -> String {
    format!(
        "2026-11-21 10:{:02}:{:02}{sep}{:03}",
        (i / 600) % 60,
        (i / 10) % 60,
        (i * 37) % 1000
    )
}

fn clock(i: u64) -> String {
    format!("10:{:02}:{:02}", (i / 600) % 60, (i / 10) % 60)
}

const PATHS: [&str; 6] = [
    "/v1/orders",
    "/v1/carts",
    "/v1/catalog/items",
    "/v1/shipping/rates",
    "/healthz",
    "/v1/payments/intents",
];

/// Every sample, in a fixed order.
pub fn all() -> Vec<Sample> {
    vec![
        log4j(),
        logback(),
        python_logging(),
        logfmt(),
        json_level(),
        json_pino(),
        json_severity(),
        nginx_error(),
        apache_error(),
        access_log(),
        syslog_rfc3164(),
        syslog_rfc5424(),
        syslog_plain(),
        journald_short(),
        journald_json(),
        logcat_brief(),
        logcat_threadtime(),
        kubernetes_events(),
        klog(),
        postgres(),
        go_panic(),
        python_traceback(),
        jvm_exception(),
        cargo_test(5_000),
        cargo_nextest(),
        pytest(),
        go_test(),
        jest(),
        maven_surefire(),
        rustc(),
        gcc(),
        tsc(),
        javac(),
    ]
}

/// A Java service (log4j2 pattern): hundreds of one repeated ERROR with stack traces, and two FATAL
/// lines among them.
pub fn log4j() -> Sample {
    let mut rng = Rng::new(1);
    let mut out = Out::new();
    for i in 0..4_000u64 {
        let ts = spaced(i, ',');
        if i == 1_900 || i == 2_600 {
            out.plant(
                &format!("{ts} FATAL [main] c.e.orders.Application - Database pool orders-primary exhausted, shutting down order service"),
                "FATAL [main] c.e.orders.Application - Database pool orders-primary exhausted",
                Level::Fatal,
                1,
            );
            continue;
        }
        match rng.below(100) {
            0..=9 => {
                out.plant(
                    &format!("{ts} ERROR [kafka-consumer-{}] c.e.orders.events.Consumer - Failed to deserialize event at offset {}", rng.below(4), 88_000 + i),
                    "Failed to deserialize event",
                    Level::Error,
                    2,
                );
                if rng.below(4) == 0 {
                    out.line("com.fasterxml.jackson.core.JsonParseException: Unexpected character ('<' (code 60)): expected a valid value\n\tat com.fasterxml.jackson.core.JsonParser._constructError(JsonParser.java:2337)\n\tat com.fasterxml.jackson.core.base.ParserMinimalBase._reportError(ParserMinimalBase.java:720)\n\tat c.e.orders.events.Consumer.poll(Consumer.java:88)\n\t... 12 more");
                }
            }
            10..=19 => out.line(&format!(
                "{ts} DEBUG [pool-2-thread-{}] c.e.orders.cache.CartCache - hit cart:{}",
                rng.below(8),
                rng.below(90_000)
            )),
            20..=22 => out.line(&format!(
                "{ts} WARN  [pool-2-thread-1] c.e.orders.db.Pool - connection {} slow: {} ms",
                rng.below(64),
                500 + rng.below(2_000)
            )),
            _ => out.line(&format!(
                "{ts} INFO  [http-nio-8080-exec-{}] c.e.orders.OrderController - GET {}/{} 200 in {} ms",
                rng.below(10),
                rng.pick(&PATHS),
                rng.below(99_999),
                rng.below(300)
            )),
        }
    }
    out.done("log4j", "INFO  [http-nio-8080-exec-")
}

/// Spring Boot's logback console format, with one logged NullPointerException.
pub fn logback() -> Sample {
    let mut rng = Rng::new(2);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let ts = iso(i);
        if i == 1_500 {
            out.plant(
                &format!("{ts} ERROR 4242 --- [orders] [nio-8080-exec-9] o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() for servlet [dispatcherServlet] threw exception"),
                "Servlet.service() for servlet [dispatcherServlet] threw exception",
                Level::Error,
                1,
            );
            out.line("java.lang.NullPointerException: Cannot invoke \"com.example.orders.Customer.getId()\" because \"customer\" is null\n\tat com.example.orders.OrderService.total(OrderService.java:88)\n\tat com.example.orders.OrderController.get(OrderController.java:41)\n\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)");
            continue;
        }
        let line = match rng.below(30) {
            0 => format!(
                "{ts}  WARN 4242 --- [orders] [   scheduling-1] c.e.orders.RetryPolicy                   : retrying call to inventory ({}/3)",
                1 + rng.below(3)
            ),
            1..=5 => format!(
                "{ts} DEBUG 4242 --- [orders] [nio-8080-exec-{}] o.s.web.servlet.DispatcherServlet        : Completed 200 OK",
                rng.below(10)
            ),
            _ => format!(
                "{ts}  INFO 4242 --- [orders] [nio-8080-exec-{}] c.e.orders.OrderController               : Completed order {} in {} ms",
                rng.below(10),
                rng.below(99_999),
                rng.below(200)
            ),
        };
        out.line(&line);
    }
    out.done(
        "logback",
        "c.e.orders.OrderController               : Completed order",
    )
}

/// Python's logging with `%(asctime)s - %(name)s - %(levelname)s - %(message)s`, a logged
/// exception with its traceback, and one CRITICAL.
pub fn python_logging() -> Sample {
    let mut rng = Rng::new(3);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let ts = spaced(i, ',');
        if i == 1_200 {
            out.plant(
                &format!("{ts} - orders.payments - ERROR - charge failed for order ord_7F3K"),
                "ERROR - charge failed for order ord_7F3K",
                Level::Error,
                1,
            );
            out.line("Traceback (most recent call last):\n  File \"/app/orders/payments.py\", line 88, in charge\n    resp = client.post(url, json=payload, timeout=5)\n  File \"/app/venv/lib/python3.12/site-packages/requests/api.py\", line 115, in post\n    return request(\"post\", url, data=data, json=json, **kwargs)");
            out.plant(
                "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='pay.example.com', port=443): Max retries exceeded with url: /v1/charges",
                "requests.exceptions.ConnectionError: HTTPSConnectionPool",
                Level::Error,
                2,
            );
            continue;
        }
        if i == 2_100 {
            out.plant(
                &format!("{ts} - orders.app - CRITICAL - worker pool died; exiting"),
                "CRITICAL - worker pool died",
                Level::Fatal,
                3,
            );
            continue;
        }
        let line = match rng.below(20) {
            0 => format!(
                "{ts} - orders.db - WARNING - slow query {} ms: SELECT * FROM carts WHERE id = %s",
                500 + rng.below(3_000)
            ),
            1..=4 => format!(
                "{ts} - orders.cache - DEBUG - cache hit cart:{}",
                rng.below(90_000)
            ),
            _ => format!(
                "{ts} - orders.api - INFO - GET {}/{} -> 200 ({} ms)",
                rng.pick(&PATHS),
                rng.below(99_999),
                rng.below(300)
            ),
        };
        out.line(&line);
    }
    out.done("python_logging", "- orders.api - INFO - GET")
}

/// logrus / go-kit logfmt: `time=… level=… msg=…`.
pub fn logfmt() -> Sample {
    let mut rng = Rng::new(4);
    let mut out = Out::new();
    for i in 0..4_000u64 {
        let ts = iso(i);
        if i == 3_100 {
            out.plant(
                &format!("time=\"{ts}\" level=fatal msg=\"cannot open ledger database\" path=/var/lib/ledger/ledger.db err=\"database is locked\""),
                "level=fatal msg=\"cannot open ledger database\"",
                Level::Fatal,
                1,
            );
            continue;
        }
        let line = match rng.below(100) {
            0 | 1 => {
                out.plant(
                    &format!("time=\"{ts}\" level=error msg=\"upstream refused connection\" upstream=inventory:8080 err=\"dial tcp 10.0.0.{}:8080: connect: connection refused\"", rng.below(250)),
                    "level=error msg=\"upstream refused connection\"",
                    Level::Error,
                    2,
                );
                continue;
            }
            2..=6 => format!(
                "time=\"{ts}\" level=warning msg=\"retrying request\" attempt={} path={}",
                1 + rng.below(3),
                rng.pick(&PATHS)
            ),
            _ => format!(
                "time=\"{ts}\" level=info msg=\"request served\" method=GET path={}/{} status=200 duration_ms={}",
                rng.pick(&PATHS),
                rng.below(99_999),
                rng.below(300)
            ),
        };
        out.line(&line);
    }
    out.done("logfmt", "level=info msg=\"request served\"")
}

/// zap's production JSON: `{"level":"info",…}`.
pub fn json_level() -> Sample {
    let mut rng = Rng::new(5);
    let mut out = Out::new();
    for i in 0..4_000u64 {
        let ts = 1_763_719_200 + i;
        if i == 2_222 {
            out.plant(
                &format!("{{\"level\":\"fatal\",\"ts\":{ts}.512,\"caller\":\"orders/main.go:61\",\"msg\":\"cannot bind listener\",\"addr\":\":8443\",\"error\":\"listen tcp :8443: bind: address already in use\"}}"),
                "\"level\":\"fatal\"",
                Level::Fatal,
                1,
            );
            continue;
        }
        let line = match rng.below(100) {
            0..=2 => {
                out.plant(
                    &format!("{{\"level\":\"error\",\"ts\":{ts}.120,\"caller\":\"orders/payments.go:88\",\"msg\":\"payment declined\",\"order\":\"ord_{}\",\"code\":\"card_declined\"}}", rng.hex(8)),
                    "\"msg\":\"payment declined\"",
                    Level::Error,
                    2,
                );
                continue;
            }
            3..=8 => format!(
                "{{\"level\":\"warn\",\"ts\":{ts}.300,\"caller\":\"orders/retry.go:31\",\"msg\":\"retrying\",\"attempt\":{}}}",
                1 + rng.below(3)
            ),
            _ => format!(
                "{{\"level\":\"info\",\"ts\":{ts}.001,\"caller\":\"orders/handler.go:120\",\"msg\":\"request served\",\"path\":\"{}\",\"status\":200,\"latency_ms\":{}, \"note\":\"no error\"}}",
                rng.pick(&PATHS),
                rng.below(300)
            ),
        };
        out.line(&line);
    }
    out.done("json_level", "\"msg\":\"request served\"")
}

/// pino / bunyan: numeric levels.
pub fn json_pino() -> Sample {
    let mut rng = Rng::new(6);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let time = 1_763_719_200_000 + i * 37;
        if i == 1_777 {
            out.plant(
                &format!("{{\"level\":60,\"time\":{time},\"pid\":41,\"hostname\":\"api-7c9f\",\"msg\":\"unhandled rejection: ECONNRESET\"}}"),
                "\"level\":60",
                Level::Fatal,
                1,
            );
            continue;
        }
        let line = match rng.below(60) {
            0 => {
                out.plant(
                    &format!("{{\"level\":50,\"time\":{time},\"pid\":41,\"hostname\":\"api-7c9f\",\"req\":{{\"id\":{}}},\"msg\":\"request errored\"}}", rng.below(99_999)),
                    "\"msg\":\"request errored\"",
                    Level::Error,
                    2,
                );
                continue;
            }
            _ => format!(
                "{{\"level\":30,\"time\":{time},\"pid\":41,\"hostname\":\"api-7c9f\",\"req\":{{\"id\":{}}},\"res\":{{\"statusCode\":200}},\"responseTime\":{},\"msg\":\"request completed\"}}",
                rng.below(99_999),
                rng.below(300)
            ),
        };
        out.line(&line);
    }
    out.done("json_pino", "\"msg\":\"request completed\"")
}

/// Google Cloud structured logging: `"severity"`.
pub fn json_severity() -> Sample {
    let mut rng = Rng::new(7);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let ts = iso(i);
        if i == 2_500 {
            out.plant(
                &format!("{{\"severity\":\"CRITICAL\",\"message\":\"ledger out of balance by 12.40 EUR after batch b_{i}\",\"timestamp\":\"{ts}\"}}"),
                "\"severity\":\"CRITICAL\"",
                Level::Fatal,
                1,
            );
            continue;
        }
        let line = match rng.below(80) {
            0 => {
                out.plant(
                    &format!("{{\"severity\":\"ERROR\",\"message\":\"export to bucket failed: 403 Forbidden\",\"timestamp\":\"{ts}\",\"logging.googleapis.com/trace\":\"projects/shop/traces/{}\"}}", rng.hex(32)),
                    "\"severity\":\"ERROR\"",
                    Level::Error,
                    2,
                );
                continue;
            }
            _ => format!(
                "{{\"severity\":\"INFO\",\"message\":\"exported {} rows\",\"timestamp\":\"{ts}\",\"logging.googleapis.com/trace\":\"projects/shop/traces/{}\"}}",
                rng.below(5_000),
                rng.hex(32)
            ),
        };
        out.line(&line);
    }
    out.done(
        "json_severity",
        "{\"severity\":\"INFO\",\"message\":\"exported ",
    )
}

/// nginx's error log: lower-case bracketed levels.
pub fn nginx_error() -> Sample {
    let mut rng = Rng::new(8);
    let mut out = Out::new();
    out.line("2026/11/21 10:00:00 [notice] 1#1: using the \"epoll\" event method");
    out.line("2026/11/21 10:00:00 [notice] 1#1: nginx/1.27.3");
    for i in 0..3_000u64 {
        let t = format!("2026/11/21 {}", clock(i));
        if i == 2_000 {
            out.plant(
                &format!("{t} [crit] 31#31: *{i} SSL_do_handshake() failed (SSL: error:0A00006C:SSL routines::bad key share) while SSL handshaking, client: 10.0.0.9, server: 0.0.0.0:443"),
                "[crit] 31#31",
                Level::Fatal,
                1,
            );
            continue;
        }
        let line = match rng.below(100) {
            0..=1 => {
                out.plant(
                    &format!("{t} [error] 31#31: *{} connect() failed (111: Connection refused) while connecting to upstream, client: 10.0.0.{}, server: shop.example.com, request: \"GET /v1/cart HTTP/1.1\", upstream: \"http://10.0.1.9:8080/v1/cart\", host: \"shop.example.com\"", 5_000 + i, rng.below(250)),
                    "connect() failed (111: Connection refused) while connecting to upstream",
                    Level::Error,
                    2,
                );
                continue;
            }
            2..=60 => format!(
                "{t} [warn] 31#31: *{} an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/{}/00/00000{} while reading upstream, client: 10.0.0.{}, server: shop.example.com, request: \"GET {} HTTP/1.1\"",
                4_000 + i,
                rng.below(9),
                rng.below(99_999),
                rng.below(250),
                rng.pick(&PATHS)
            ),
            _ => format!(
                "{t} [info] 31#31: *{} client 10.0.0.{} closed keepalive connection",
                4_000 + i,
                rng.below(250)
            ),
        };
        out.line(&line);
    }
    out.done("nginx_error", "closed keepalive connection")
}

/// Apache httpd 2.4's error log: `[module:level]`.
pub fn apache_error() -> Sample {
    let mut rng = Rng::new(9);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let t = format!("[Sat Nov 21 {}.{:06} 2026]", clock(i), rng.below(1_000_000));
        let line = match rng.below(100) {
            0 => {
                out.plant(
                    &format!("{t} [proxy:error] [pid {}:tid {}] (111)Connection refused: AH00957: http: attempt to connect to 10.0.1.9:8080 (backend) failed", 100 + rng.below(50), rng.below(99_999)),
                    "[proxy:error]",
                    Level::Error,
                    1,
                );
                continue;
            }
            1..=20 => format!(
                "{t} [ssl:warn] [pid {}:tid {}] AH01909: shop.example.com:443:0 server certificate does NOT include an ID which matches the server name",
                100 + rng.below(50),
                rng.below(99_999)
            ),
            _ => format!(
                "{t} [authz_core:debug] [pid {}:tid {}] mod_authz_core.c(815): [client 10.0.0.{}:{}] AH01626: authorization result of Require all granted: granted",
                100 + rng.below(50),
                rng.below(99_999),
                rng.below(250),
                rng.below(65_000)
            ),
        };
        out.line(&line);
    }
    out.done("apache_error", "AH01626: authorization result")
}

/// nginx / Apache combined access log: a 5xx is an error.
pub fn access_log() -> Sample {
    let mut rng = Rng::new(10);
    let mut out = Out::new();
    for i in 0..4_000u64 {
        let when = format!("[21/Nov/2026:{} +0000]", clock(i));
        let ip = format!("10.0.{}.{}", rng.below(4), rng.below(250));
        if rng.below(300) == 0 {
            out.plant(
                &format!("{ip} - - {when} \"POST /v1/payments/intents HTTP/1.1\" 502 157 \"-\" \"shop-ios/4.2\""),
                "\"POST /v1/payments/intents HTTP/1.1\" 502",
                Level::Error,
                1,
            );
            continue;
        }
        let status = *rng.pick(&[200, 200, 200, 200, 304, 201]);
        out.line(&format!(
            "{ip} - - {when} \"GET {}/{} HTTP/1.1\" {status} {} \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\"",
            rng.pick(&PATHS),
            rng.below(99_999),
            rng.below(9_000)
        ));
    }
    out.done("access_log", "\"Mozilla/5.0 (X11; Linux x86_64)\"")
}

/// RFC 3164 syslog with priorities (as sent over the wire, or `logger -s`).
pub fn syslog_rfc3164() -> Sample {
    let mut rng = Rng::new(11);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let t = format!("Nov 21 {}", clock(i));
        if i == 2_400 {
            out.plant(
                &format!("<26>{t} web-1 orders[812]: ledger checksum mismatch, refusing writes"),
                "<26>",
                Level::Fatal,
                1,
            );
            continue;
        }
        let line = match rng.below(100) {
            0..=1 => {
                out.plant(
                    &format!("<27>{t} web-1 orders[812]: database connection lost: server closed the connection unexpectedly"),
                    "database connection lost",
                    Level::Error,
                    2,
                );
                continue;
            }
            2..=9 => format!(
                "<28>{t} web-1 orders[812]: queue depth {} above 1000",
                1_000 + rng.below(500)
            ),
            10..=30 => format!(
                "<38>{t} web-1 sshd[{}]: Accepted publickey for deploy from 10.0.0.{} port {} ssh2",
                4_000 + rng.below(999),
                rng.below(250),
                rng.below(65_000)
            ),
            _ => format!(
                "<30>{t} web-1 systemd[1]: Started session {} of user deploy.",
                rng.below(9_999)
            ),
        };
        out.line(&line);
    }
    out.done("syslog_rfc3164", "Started session")
}

/// RFC 5424 syslog.
pub fn syslog_rfc5424() -> Sample {
    let mut rng = Rng::new(12);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let ts = iso(i);
        if i == 1_666 {
            out.plant(
                &format!("<161>1 {ts} web-1 orders 812 ALERT - disk /var/lib/orders is 100% full"),
                "<161>1",
                Level::Fatal,
                1,
            );
            continue;
        }
        let line = match rng.below(50) {
            0 => {
                out.plant(
                    &format!("<163>1 {ts} web-1 orders 812 DB - [meta sequenceId=\"{i}\"] query failed: deadlock detected"),
                    "query failed: deadlock detected",
                    Level::Error,
                    2,
                );
                continue;
            }
            _ => format!(
                "<166>1 {ts} web-1 orders 812 HTTP - [meta sequenceId=\"{i}\"] GET {} 200",
                rng.pick(&PATHS)
            ),
        };
        out.line(&line);
    }
    out.done("syslog_rfc5424", "web-1 orders 812 HTTP -")
}

/// `journalctl -o short`: no priorities, so only labels in the messages tell.
pub fn journald_short() -> Sample {
    let mut rng = Rng::new(13);
    let mut out = Out::new();
    out.line(
        "Nov 21 10:00:00 web-1 kernel: Linux version 6.18.0 (build@host) #1 SMP PREEMPT_DYNAMIC",
    );
    for i in 0..3_000u64 {
        let t = format!("Nov 21 {}", clock(i));
        let line = match rng.below(100) {
            0 => {
                out.plant(
                    &format!("{t} web-1 sshd[{}]: error: kex_exchange_identification: Connection closed by remote host", 4_000 + rng.below(999)),
                    "error: kex_exchange_identification",
                    Level::Error,
                    1,
                );
                continue;
            }
            1..=30 => format!(
                "{t} web-1 sshd[{}]: Accepted publickey for deploy from 10.0.0.{} port {} ssh2: ED25519 SHA256:{}",
                4_000 + rng.below(999),
                rng.below(250),
                rng.below(65_000),
                rng.hex(20)
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
    out.done(
        "journald_short",
        "CMD (   cd / && run-parts --report /etc/cron.hourly)",
    )
}

/// A syslog file as rsyslog writes it by default: no priority and no level in the line, so what
/// went wrong is in the words of the message.
pub fn syslog_plain() -> Sample {
    let mut rng = Rng::new(31);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let t = format!(
            "2026-11-24T10:{:02}:{:02}.{:06}+00:00",
            (i / 60) % 60,
            i % 60,
            rng.below(999_999)
        );
        match i {
            2_100 => out.plant(
                &format!("{t} web-1 kernel: Out of memory: Killed process 4242 (java) total-vm:8123456kB"),
                "Out of memory: Killed process",
                Level::Fatal,
                1,
            ),
            700 | 1_400 | 2_800 => out.plant(
                &format!("{t} web-1 nginx: upstream timed out (110: Connection timed out) while reading response header, client: 10.0.0.{}", rng.below(250)),
                "upstream timed out",
                Level::Error,
                2,
            ),
            _ => out.line(&match rng.below(100) {
                0..=30 => format!(
                    "{t} web-1 sshd[{}]: Accepted publickey for deploy from 10.0.0.{} port {} ssh2",
                    4_000 + rng.below(999),
                    rng.below(250),
                    rng.below(65_000)
                ),
                _ => format!(
                    "{t} web-1 app[{}]: request {i} served in {} ms",
                    1_000 + rng.below(7),
                    rng.below(97)
                ),
            }),
        }
    }
    out.done("syslog_plain", "Accepted publickey for deploy")
}

/// `journalctl -o json`: `"PRIORITY":"3"`.
pub fn journald_json() -> Sample {
    let mut rng = Rng::new(14);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let us = 1_763_719_200_000_000u64 + i * 37_000;
        if i == 2_900 {
            out.plant(
                &format!("{{\"__REALTIME_TIMESTAMP\":\"{us}\",\"PRIORITY\":\"2\",\"_HOSTNAME\":\"web-1\",\"SYSLOG_IDENTIFIER\":\"orders\",\"_PID\":\"812\",\"MESSAGE\":\"ledger checksum mismatch, refusing writes\"}}"),
                "\"PRIORITY\":\"2\"",
                Level::Fatal,
                1,
            );
            continue;
        }
        let (priority, message) = match rng.below(100) {
            0 => {
                out.plant(
                    &format!("{{\"__REALTIME_TIMESTAMP\":\"{us}\",\"PRIORITY\":\"3\",\"_HOSTNAME\":\"web-1\",\"SYSLOG_IDENTIFIER\":\"orders\",\"_PID\":\"812\",\"MESSAGE\":\"payment gateway unreachable\"}}"),
                    "payment gateway unreachable",
                    Level::Error,
                    2,
                );
                continue;
            }
            1..=5 => ("4", "queue depth above 1000".to_owned()),
            _ => ("6", format!("GET {} 200", rng.pick(&PATHS))),
        };
        out.line(&format!("{{\"__REALTIME_TIMESTAMP\":\"{us}\",\"PRIORITY\":\"{priority}\",\"_HOSTNAME\":\"web-1\",\"SYSLOG_IDENTIFIER\":\"orders\",\"_PID\":\"812\",\"MESSAGE\":\"{message}\"}}"));
    }
    out.done("journald_json", "\"PRIORITY\":\"6\"")
}

/// `adb logcat -v brief`: the only error-level lines are `E/` lines; `W/` lines mention exceptions.
pub fn logcat_brief() -> Sample {
    let mut rng = Rng::new(15);
    let mut out = Out::new();
    for i in 0..4_000u64 {
        if i == 3_000 {
            out.plant(
                "E/AndroidRuntime( 4211): FATAL EXCEPTION: main",
                "E/AndroidRuntime( 4211): FATAL EXCEPTION: main",
                Level::Error,
                1,
            );
            out.line("E/AndroidRuntime( 4211): Process: com.example.shop, PID: 4211");
            out.line("E/AndroidRuntime( 4211): java.lang.IllegalStateException: cart is empty\nE/AndroidRuntime( 4211): \tat com.example.shop.CartActivity.checkout(CartActivity.kt:88)");
            continue;
        }
        let line = match rng.below(40) {
            0..=3 => format!(
                "W/System.err( 4211): java.net.SocketTimeoutException: timeout after {} ms",
                1_000 + rng.below(9_000)
            ),
            4..=9 => format!(
                "D/OkHttp  ( 4211): --> GET https://api.example.com{}/{}",
                rng.pick(&PATHS),
                rng.below(9_999)
            ),
            _ => format!(
                "I/ActivityManager(  512): Start proc {}:com.example.shop/u0a88 for activity",
                4_000 + rng.below(999)
            ),
        };
        out.line(&line);
    }
    out.done(
        "logcat_brief",
        "W/System.err( 4211): java.net.SocketTimeoutException",
    )
}

/// `adb logcat -v threadtime`.
pub fn logcat_threadtime() -> Sample {
    let mut rng = Rng::new(16);
    let mut out = Out::new();
    for i in 0..4_000u64 {
        let t = format!("11-21 {}.{:03}", clock(i), rng.below(1_000));
        if i == 2_700 {
            out.plant(
                &format!("{t}  4211  4211 E AndroidRuntime: FATAL EXCEPTION: main"),
                "E AndroidRuntime: FATAL EXCEPTION: main",
                Level::Error,
                1,
            );
            continue;
        }
        if i == 3_300 {
            out.plant(
                &format!("{t}   512   530 F libc    : Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 530"),
                "F libc    : Fatal signal 11 (SIGSEGV)",
                Level::Fatal,
                2,
            );
            continue;
        }
        let line = match rng.below(40) {
            0..=3 => {
                format!("{t}  4211  4290 W System.err: java.net.SocketTimeoutException: timeout")
            }
            4..=9 => format!(
                "{t}  4211  4290 D OkHttp  : --> GET https://api.example.com{}",
                rng.pick(&PATHS)
            ),
            _ => format!(
                "{t}   512   540 I ActivityManager: Displayed com.example.shop/.CartActivity: +{}ms",
                rng.below(900)
            ),
        };
        out.line(&line);
    }
    out.done(
        "logcat_threadtime",
        "W System.err: java.net.SocketTimeoutException",
    )
}

/// `kubectl get events`: `Normal` and `Warning` in the TYPE column.
pub fn kubernetes_events() -> Sample {
    let mut rng = Rng::new(17);
    let mut out = Out::new();
    out.line(
        "LAST SEEN   TYPE      REASON              OBJECT                              MESSAGE",
    );
    for i in 0..2_000u64 {
        let seen = format!("{}m", 60 - i * 60 / 2_000);
        if i == 1_300 {
            out.plant(
                &format!("{seen:<11} Warning   FailedScheduling    pod/orders-7c9f6d-x2x9k             0/12 nodes are available: 12 Insufficient memory."),
                "Warning   FailedScheduling",
                Level::Warning,
                1,
            );
            continue;
        }
        let pod = format!("pod/orders-7c9f6d-{}", rng.word(5));
        let line = match rng.below(50) {
            0..=1 => {
                out.plant(
                    &format!("{seen:<11} Warning   BackOff             {pod:<35} Back-off restarting failed container orders in pod {}", &pod[4..]),
                    "Warning   BackOff",
                    Level::Warning,
                    2,
                );
                continue;
            }
            2..=20 => format!(
                "{seen:<11} Normal    Pulled              {pod:<35} Container image \"registry.example.com/orders:1.42.{}\" already present on machine",
                rng.below(9)
            ),
            21..=35 => format!(
                "{seen:<11} Normal    Started             {pod:<35} Started container orders"
            ),
            _ => format!(
                "{seen:<11} Normal    Scheduled           {pod:<35} Successfully assigned shop/{} to node-{}",
                &pod[4..],
                rng.below(12)
            ),
        };
        out.line(&line);
    }
    out.done("kubernetes_events", "Normal    Started")
}

/// klog (Kubernetes components): `E1121 10:00:01.123456       1 file.go:12] …`.
pub fn klog() -> Sample {
    let mut rng = Rng::new(18);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let t = format!("1121 {}.{:06}", clock(i), rng.below(1_000_000));
        if i == 2_950 {
            out.plant(
                &format!("F{t}       1 leaderelection.go:308] leaderelection lost"),
                "leaderelection lost",
                Level::Fatal,
                1,
            );
            continue;
        }
        let line = match rng.below(100) {
            0..=1 => {
                out.plant(
                    &format!("E{t}       1 deployment_controller.go:495] \"Error syncing deployment\" deployment=\"shop/orders\" err=\"Operation cannot be fulfilled on replicasets.apps: the object has been modified\""),
                    "\"Error syncing deployment\"",
                    Level::Error,
                    2,
                );
                continue;
            }
            2..=6 => format!(
                "W{t}       1 reflector.go:561] watch of *v1.Pod ended with: an error on the server (\"unable to decode an event from the watch stream\") has prevented the request from succeeding"
            ),
            _ => format!(
                "I{t}       1 controller.go:{}] \"Syncing\" deployment=\"shop/orders-{}\"",
                rng.below(900),
                rng.below(99)
            ),
        };
        out.line(&line);
    }
    out.done("klog", "\"Syncing\" deployment=")
}

/// PostgreSQL's server log (`log_line_prefix = '%m [%p] '`).
pub fn postgres() -> Sample {
    let mut rng = Rng::new(19);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        let ts = format!("{} UTC [{}]", spaced(i, '.'), 4_000 + rng.below(50));
        if i == 2_345 {
            out.plant(
                &format!("{ts} FATAL:  terminating connection due to administrator command"),
                "FATAL:  terminating connection due to administrator command",
                Level::Fatal,
                1,
            );
            continue;
        }
        match rng.below(100) {
            0 => {
                out.plant(
                    &format!("{ts} ERROR:  duplicate key value violates unique constraint \"orders_pkey\""),
                    "ERROR:  duplicate key value violates unique constraint",
                    Level::Error,
                    2,
                );
                out.line(&format!(
                    "{ts} DETAIL:  Key (id)=({}) already exists.\n{ts} STATEMENT:  INSERT INTO orders (id, total) VALUES ($1, $2)",
                    rng.below(99_999)
                ));
            }
            1..=30 => out.line(&format!(
                "{ts} LOG:  checkpoint complete: wrote {} buffers ({:.1}%); 0 WAL file(s) added",
                rng.below(9_999),
                rng.below(100) as f64 / 10.0
            )),
            _ => out.line(&format!(
                "{ts} LOG:  connection authorized: user=orders database=shop application_name=orders-api-{}",
                rng.below(9)
            )),
        }
    }
    out.done("postgres", "LOG:  connection authorized")
}

/// A Go service's output ending in a panic with its goroutine dump.
pub fn go_panic() -> Sample {
    let mut rng = Rng::new(20);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        out.line(&format!(
            "2026/11/21 {} handler: GET {}/{} 200 {}ms",
            clock(i),
            rng.pick(&PATHS),
            rng.below(99_999),
            rng.below(300)
        ));
    }
    out.plant(
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "panic: runtime error: invalid memory address or nil pointer dereference",
        Level::Fatal,
        1,
    );
    out.line("[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6d2f0a]\n");
    for g in 0..12u64 {
        out.line(&format!(
            "goroutine {} [{}]:",
            40 + g,
            if g == 0 { "running" } else { "IO wait" }
        ));
        for f in 0..4 {
            out.line(&format!(
                "example.com/shop/orders.(*Handler).step{f}(0xc000{:06x}, {{0x7f{:x}, 0x{:x}}})\n\t/app/orders/handler.go:{} +0x{:x}",
                rng.below(0xffffff),
                rng.below(0xfffff),
                rng.below(0xfff),
                80 + f,
                rng.below(0xfff)
            ));
        }
        out.line("");
    }
    out.line("exit status 2");
    out.done("go_panic", "handler: GET")
}

/// A Python script that prints a traceback from a handled exception and carries on.
pub fn python_traceback() -> Sample {
    let mut rng = Rng::new(21);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        if i == 1_800 {
            out.line("Traceback (most recent call last):\n  File \"/app/etl/load.py\", line 212, in <module>\n    load(batch)\n  File \"/app/etl/load.py\", line 120, in load\n    customer = row[\"customer_id\"]\n               ~~~^^^^^^^^^^^^^^^");
            out.plant(
                "KeyError: 'customer_id'",
                "KeyError: 'customer_id'",
                Level::Error,
                1,
            );
            continue;
        }
        out.line(&format!(
            "batch {i}: loaded {} rows into staging.orders in {:.2}s",
            rng.below(5_000),
            rng.below(500) as f64 / 100.0
        ));
    }
    out.done("python_traceback", "rows into staging.orders")
}

/// A JVM program's uncaught exception with frames and a root cause.
pub fn jvm_exception() -> Sample {
    let mut rng = Rng::new(22);
    let mut out = Out::new();
    for i in 0..3_000u64 {
        if i == 2_000 {
            out.plant(
                "Exception in thread \"main\" java.lang.IllegalStateException: order ord_7F3K has no lines",
                "Exception in thread \"main\" java.lang.IllegalStateException",
                Level::Error,
                1,
            );
            for f in 0..20 {
                out.line(&format!(
                    "\tat com.example.orders.Step{f}.run(Step{f}.java:{})",
                    10 + f
                ));
            }
            out.line("Caused by: java.sql.SQLException: connection is closed\n\tat org.postgresql.jdbc.PgConnection.checkClosed(PgConnection.java:917)\n\t... 21 more");
            continue;
        }
        out.line(&format!(
            "{} [main] INFO  com.example.orders.Batch - processed {} orders",
            clock(i),
            rng.below(900)
        ));
    }
    out.done(
        "jvm_exception",
        "INFO  com.example.orders.Batch - processed",
    )
}

/// `cargo test` with `RUST_BACKTRACE=1`: thousands of passing tests, one failure, its panic
/// message and backtrace in the failures section.
pub fn cargo_test(passing: u64) -> Sample {
    let mut out = Out::new();
    out.line("   Compiling shop v0.1.0 (/work/shop)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 6.80s\n     Running unittests src/lib.rs (target/debug/deps/shop-b8411d1b6389d6df)\n");
    out.line(&format!("running {} tests", passing + 1));
    for i in 0..passing {
        if i == passing / 2 {
            out.plant(
                "test ledger::tests::balance_after_settlement ... FAILED",
                "test ledger::tests::balance_after_settlement ... FAILED",
                Level::Error,
                1,
            );
        }
        out.line(&format!("test orders::tests::total_{i} ... ok"));
    }
    out.line("\nfailures:\n\n---- ledger::tests::balance_after_settlement stdout ----\n");
    out.plant(
        "thread 'ledger::tests::balance_after_settlement' (16223) panicked at src/ledger.rs:1808:9:",
        "panicked at src/ledger.rs:1808:9",
        Level::Fatal,
        2,
    );
    out.line("assertion `left == right` failed: balance after settlement of order ord_7F3K\n  left: 42\n right: 41\nstack backtrace:");
    for f in 0..12 {
        out.line(&format!("  {f:>2}: core::panicking::frame_{f}\n             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:{}:5", 80 + f));
    }
    out.line("note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n\n\nfailures:\n    ledger::tests::balance_after_settlement\n");
    out.plant(
        &format!("test result: FAILED. {passing} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.81s"),
        "test result: FAILED.",
        Level::Error,
        3,
    );
    out.line("\nerror: test failed, to rerun pass `--lib`");
    out.done("cargo_test", "test orders::tests::total_1 ... ok")
}

/// `cargo nextest run`.
pub fn cargo_nextest() -> Sample {
    let mut out = Out::new();
    out.line("    Starting 4001 tests across 3 binaries (2 tests skipped)");
    for i in 0..4_000u64 {
        if i == 2_500 {
            out.plant(
                "        FAIL [   0.006s] shop ledger::tests::refund_rounding",
                "FAIL [   0.006s] shop ledger::tests::refund_rounding",
                Level::Error,
                1,
            );
            out.line("--- STDOUT:              shop ledger::tests::refund_rounding ---\n\nrunning 1 test\ntest ledger::tests::refund_rounding ... FAILED\n\n--- STDERR:              shop ledger::tests::refund_rounding ---");
            out.plant(
                "thread 'ledger::tests::refund_rounding' panicked at src/ledger.rs:88:5:",
                "panicked at src/ledger.rs:88:5",
                Level::Fatal,
                2,
            );
            out.line("refund rounds half up: 19.99 != 20.00\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n");
        }
        out.line(&format!(
            "        PASS [   0.{:03}s] shop orders::tests::total_{i}",
            i % 97
        ));
    }
    out.line("------------\n     Summary [   2.345s] 4001 tests run: 4000 passed, 1 failed, 2 skipped\n        FAIL [   0.006s] shop ledger::tests::refund_rounding\nerror: test run failed");
    out.done("cargo_nextest", "PASS [   0.0")
}

/// `pytest -v` with one failing test among hundreds.
pub fn pytest() -> Sample {
    let mut out = Out::new();
    out.line("============================= test session starts ==============================\nplatform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0\nrootdir: /work/shop\ncollecting ... collected 3001 items\n");
    for i in 0..3_000u64 {
        if i == 1_500 {
            out.plant(
                "tests/test_refunds.py::test_refund_rounding FAILED                         [ 50%]",
                "tests/test_refunds.py::test_refund_rounding FAILED",
                Level::Error,
                1,
            );
        }
        out.line(&format!(
            "tests/test_orders.py::test_order_total_{i} PASSED                          [{:>3}%]",
            i * 100 / 3_000
        ));
    }
    out.line("\n=================================== FAILURES ===================================\n_____________________________ test_refund_rounding _____________________________\n\n    def test_refund_rounding():\n        refund = round_half_up(19.995)\n>       assert refund == 20.0, \"refund for ord_9QX2 rounded down\"");
    out.plant(
        "E       AssertionError: refund for ord_9QX2 rounded down",
        "E       AssertionError: refund for ord_9QX2 rounded down",
        Level::Error,
        2,
    );
    out.line("E       assert 19.99 == 20.0\n\ntests/test_refunds.py:12: AssertionError\n=========================== short test summary info ============================\nFAILED tests/test_refunds.py::test_refund_rounding - AssertionError: refund for ord_9QX2 rounded down");
    out.plant(
        "======================== 1 failed, 3000 passed in 4.21s ========================",
        "1 failed, 3000 passed",
        Level::Error,
        3,
    );
    out.done("pytest", "PASSED                          [")
}

/// `go test ./...` over many packages, one failing.
pub fn go_test() -> Sample {
    let mut out = Out::new();
    for i in 0..3_000u64 {
        if i == 1_200 {
            out.plant(
                "--- FAIL: TestRefundRounding (0.00s)",
                "--- FAIL: TestRefundRounding (0.00s)",
                Level::Error,
                1,
            );
            out.line("    refund_test.go:42: refund = 19.99, want 20.00\nFAIL");
            out.plant(
                "FAIL\texample.com/shop/internal/refunds\t0.012s",
                "FAIL\texample.com/shop/internal/refunds",
                Level::Error,
                2,
            );
            continue;
        }
        if i % 7 == 0 {
            out.line(&format!(
                "?   \texample.com/shop/cmd/tool{i}\t[no test files]"
            ));
        } else {
            out.line(&format!(
                "ok  \texample.com/shop/internal/pkg{i}\t0.{:03}s",
                i % 997
            ));
        }
    }
    out.line("FAIL");
    out.done("go_test", "ok  \texample.com/shop/internal/pkg1\t")
}

/// `jest --verbose`.
pub fn jest() -> Sample {
    let mut out = Out::new();
    for s in 0..300u64 {
        if s == 150 {
            out.line(" FAIL  src/refunds/rounding.test.ts\n  refunds");
            out.plant(
                "    ✕ rounds half up (5 ms)",
                "✕ rounds half up",
                Level::Error,
                1,
            );
            out.line("    ✓ refunds whole orders (2 ms)\n");
            out.plant(
                "  ● refunds › rounds half up",
                "● refunds › rounds half up",
                Level::Error,
                2,
            );
            out.line("\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 20\n    Received: 19.99\n\n      10 |   it('rounds half up', () => {\n    > 11 |     expect(roundHalfUp(19.995)).toBe(20);\n         |                                 ^\n\n      at Object.<anonymous> (src/refunds/rounding.test.ts:11:33)\n");
            continue;
        }
        out.line(&format!(
            " PASS  src/cart/total{s}.test.ts\n  cart total {s}"
        ));
        for t in 0..5 {
            out.line(&format!(
                "    ✓ adds line item {t} ({} ms)",
                (s + t) % 9 + 1
            ));
        }
        out.line("");
    }
    out.plant(
        "Test Suites: 1 failed, 299 passed, 300 total",
        "Test Suites: 1 failed",
        Level::Error,
        3,
    );
    out.plant(
        "Tests:       1 failed, 1501 passed, 1502 total",
        "Tests:       1 failed",
        Level::Error,
        4,
    );
    out.line("Snapshots:   0 total\nTime:        12.345 s\nRan all test suites.");
    out.done("jest", "✓ adds line item 1")
}

/// Maven Surefire (JUnit 5).
pub fn maven_surefire() -> Sample {
    let mut out = Out::new();
    out.line("[INFO] -------------------------------------------------------\n[INFO]  T E S T S\n[INFO] -------------------------------------------------------");
    for c in 0..800u64 {
        if c == 500 {
            out.line("[INFO] Running com.example.orders.RefundTest");
            out.plant(
                "[ERROR] Tests run: 8, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.041 s <<< FAILURE! -- in com.example.orders.RefundTest",
                "Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.041 s <<< FAILURE!",
                Level::Error,
                1,
            );
            out.plant(
                "[ERROR] com.example.orders.RefundTest.roundsHalfUp -- Time elapsed: 0.010 s <<< FAILURE!",
                "com.example.orders.RefundTest.roundsHalfUp",
                Level::Error,
                2,
            );
            out.line("org.opentest4j.AssertionFailedError: expected: <20.00> but was: <19.99>\n\tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:151)\n\tat com.example.orders.RefundTest.roundsHalfUp(RefundTest.java:42)\n");
            continue;
        }
        out.line(&format!("[INFO] Running com.example.orders.OrderTotal{c}Test\n[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.0{:02} s -- in com.example.orders.OrderTotal{c}Test", c % 97));
    }
    out.line("[INFO] \n[INFO] Results:\n[INFO] \n[ERROR] Failures: \n[ERROR]   RefundTest.roundsHalfUp:42 expected: <20.00> but was: <19.99>\n[INFO] ");
    out.plant(
        "[ERROR] Tests run: 9607, Failures: 1, Errors: 0, Skipped: 0",
        "[ERROR] Tests run: 9607, Failures: 1",
        Level::Error,
        3,
    );
    out.line("[INFO] \n[INFO] ------------------------------------------------------------------------\n[INFO] BUILD FAILURE\n[INFO] ------------------------------------------------------------------------");
    out.done(
        "maven_surefire",
        "Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.0",
    )
}

/// `cargo build`: many crates compiled, many warnings, one error.
pub fn rustc() -> Sample {
    let mut out = Out::new();
    for i in 0..900u64 {
        out.line(&format!(
            "   Compiling dep{i} v0.{}.{} (registry)",
            i % 9,
            i % 13
        ));
    }
    for i in 0..300u64 {
        if i == 150 {
            out.plant(
                "error[E0308]: mismatched types",
                "error[E0308]: mismatched types",
                Level::Error,
                1,
            );
            out.line("  --> src/refunds.rs:42:18\n   |\n42 |     let cents: u64 = amount * 100.0;\n   |                ---   ^^^^^^^^^^^^^^ expected `u64`, found `f64`\n   |                |\n   |                expected due to this\n");
        }
        out.line(&format!("warning: unused variable: `tmp{i}`\n  --> src/orders/m{i}.rs:{}:9\n   |\n{:>2} |     let tmp{i} = 0;\n   |         ^^^^ help: if this is intentional, prefix it with an underscore: `_tmp{i}`\n", 10 + i % 50, 10 + i % 50));
    }
    out.line("For more information about this error, try `rustc --explain E0308`.\nwarning: `shop` (lib) generated 300 warnings");
    out.plant(
        "error: could not compile `shop` (lib) due to 1 previous error; 300 warnings emitted",
        "error: could not compile `shop`",
        Level::Error,
        2,
    );
    out.done("rustc", "warning: unused variable: `tmp1`")
}

/// `make` with gcc: many warnings, one error.
pub fn gcc() -> Sample {
    let mut out = Out::new();
    for i in 0..1_500u64 {
        if i == 1_000 {
            out.plant(
                "src/refund.c:42:18: error: 'amount' undeclared (first use in this function)",
                "src/refund.c:42:18: error: 'amount' undeclared",
                Level::Error,
                1,
            );
            out.line("   42 |     long cents = amount * 100;\n      |                  ^~~~~~");
            continue;
        }
        out.line(&format!("gcc -O2 -Wall -c src/m{i}.c -o build/m{i}.o"));
        if i % 3 == 0 {
            out.line(&format!("src/m{i}.c:{}:5: warning: unused variable 'tmp' [-Wunused-variable]\n   {} |     int tmp;\n      |         ^~~", 10 + i % 40, 10 + i % 40));
        }
    }
    out.plant(
        "make: *** [Makefile:12: build/refund.o] Error 1",
        "make: *** [Makefile:12: build/refund.o] Error 1",
        Level::Error,
        2,
    );
    out.done("gcc", "warning: unused variable 'tmp' [-Wunused-variable]")
}

/// A webpack build with `tsc --noEmit` errors.
pub fn tsc() -> Sample {
    let mut out = Out::new();
    for i in 0..2_000u64 {
        if i == 1_400 {
            out.plant(
                "src/refunds/rounding.ts(42,18): error TS2322: Type 'string' is not assignable to type 'number'.",
                "src/refunds/rounding.ts(42,18): error TS2322",
                Level::Error,
                1,
            );
            continue;
        }
        out.line(&format!(
            "  ./src/cart/module{i}.ts {}.{} KiB [built] [code generated]",
            i % 9,
            i % 7
        ));
    }
    out.line("webpack 5.97.1 compiled with 1 warning in 8123 ms");
    out.plant(
        "Found 1 error in src/refunds/rounding.ts:42",
        "Found 1 error",
        Level::Error,
        2,
    );
    out.done("tsc", "[built] [code generated]")
}

/// Gradle running javac.
pub fn javac() -> Sample {
    let mut out = Out::new();
    for i in 0..2_000u64 {
        if i == 1_100 {
            out.plant(
                "/work/shop/src/main/java/com/example/Refund.java:42: error: incompatible types: String cannot be converted to BigDecimal",
                "Refund.java:42: error: incompatible types",
                Level::Error,
                1,
            );
            out.line("        BigDecimal amount = row.get(\"amount\");\n                                   ^");
            continue;
        }
        if i % 10 == 0 {
            out.line(&format!("/work/shop/src/main/java/com/example/M{i}.java:{}: warning: [deprecation] Date(String) in Date has been deprecated\n        Date d = new Date(s);\n                 ^", 10 + i % 50));
        } else {
            out.line(&format!("> Task :module{i}:compileJava UP-TO-DATE"));
        }
    }
    out.line("Note: Some input files use or override a deprecated API.\nNote: Recompile with -Xlint:deprecation for details.");
    out.plant("1 error", "1 error", Level::Error, 2);
    out.line("200 warnings\n\n> Task :shop:compileJava FAILED\n\nFAILURE: Build failed with an exception.");
    out.done("javac", "compileJava UP-TO-DATE")
}
