"""The web view in a real browser: Chromium (Debian's, driven by Playwright) against a running
`scratchpad ui`, in one browser launch. Every page, the viewer on a large entry with its DOM kept
small, a live update, the edit conflict, hostile content staying inert, and the refusals of a request
without the token and of a write from another origin. Prints `ok …` at the end; any failed check
raises with what it saw. Screenshots of each page go to the directory given.

usage: ui_browser.py URL SCRATCHPAD_BIN STORE_URL SCREENSHOT_DIR
"""

import http.server
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

URL, BIN, STORE, SHOTS = sys.argv[1:5]
BASE = URL.split("/?")[0]
SHOTS_DIR = Path(SHOTS)
SHOTS_DIR.mkdir(parents=True, exist_ok=True)
TIMEOUT_MS = 30_000
HOSTILE_SCRIPT = "<script>window.pwned=1</script>"

# Chromium as root needs --no-sandbox; the rest keeps it from reaching out to the network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-gpu",
    "--disable-dev-shm-usage",
]


def cli(*args: str) -> str:
    """Runs the scratchpad CLI on the same store, as an agent with a shell would."""
    env = dict(os.environ, SCRATCHPAD_STORE=STORE)
    done = subprocess.run([BIN, *args], env=env, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise AssertionError(f"scratchpad {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(SHOTS_DIR / f"{name}.png"), full_page=False)


def not_pwned(page: Page, where: str) -> None:
    """Stored markup never ran and never became an element."""
    pwned = page.evaluate("() => window.pwned")
    check(pwned is None, f"{where}: a stored script ran (window.pwned = {pwned!r})")
    check(page.locator("img[src=x]").count() == 0, f"{where}: a stored <img> became an element")


def step(name: str) -> None:
    print(f"... {name}", flush=True)


def main() -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
            args=CHROMIUM_ARGS,
        )
        try:
            run(browser)
        finally:
            browser.close()
    print("ok: every page, the viewer, live updates, the edit conflict, inert content, refusals")


def run(browser) -> None:
    # --- the token ---------------------------------------------------------------------------
    step("without the token")
    stranger = browser.new_context()
    page = stranger.new_page()
    answer = page.goto(BASE + "/")
    check(answer is not None and answer.status == 401, f"no token: status {answer and answer.status}")
    check("launch token" in page.content(), "the refusal does not say what is missing")
    stranger.close()

    context = browser.new_context(viewport={"width": 1360, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    console_errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: console_errors.append(str(e)))

    step("first visit")
    page.goto(URL)
    check(page.url == BASE + "/", f"the token stayed in the address: {page.url}")
    cookies = context.cookies()
    check(any(c["httpOnly"] and c["sameSite"] == "Strict" for c in cookies), f"cookie: {cookies}")
    expect(page.locator("#sessions")).to_contain_text("build")
    expect(page.locator("#live")).to_have_class("live on")
    shot(page, "sessions")
    not_pwned(page, "sessions")

    # --- a session's entries, and a live update -------------------------------------------------
    step("entries, live")
    page.goto(BASE + "/s/build")
    expect(page.locator("#entries")).to_contain_text("cargo_build_1")
    expect(page.locator("#live")).to_have_class("live on")
    cli("--session", "build", "--author", "agent-c", "write", "live-note", "written while you watch")
    expect(page.locator('tr[data-name="live-note"]')).to_be_visible()
    expect(page.locator('tr[data-name="live-note"]')).to_contain_text("agent-c")
    shot(page, "entries")
    not_pwned(page, "entries")

    # --- a large entry: preview, notable line, viewer -------------------------------------------
    step("large entry")
    page.goto(BASE + "/s/build/e/cargo_build_1")
    preview = page.locator("#preview")
    expect(preview).to_contain_text("ERROR")
    notable = page.locator('#preview .pl.notable[data-line="150000"]')
    expect(notable).to_be_visible()
    shot(page, "entry-top")
    notable.locator("a.g").click()
    check(page.url.endswith("#L150000"), f"the notable line did not lead to its line: {page.url}")
    target = page.locator('#viewer .row.target[data-row="150000"]')
    expect(target).to_contain_text("ERROR")
    shot(page, "entry")
    # The viewer keeps only what is on screen, wherever it is scrolled.
    counts = []
    for fraction in [0.0, 0.13, 0.5, 0.77, 0.99, 1.0]:
        page.evaluate(
            "(f) => { const s = document.getElementById('viewer-scroll');"
            " s.scrollTop = f * (s.scrollHeight - s.clientHeight); }",
            fraction,
        )
        page.wait_for_function(
            "() => document.querySelectorAll('#viewer .row.loading').length === 0", timeout=TIMEOUT_MS
        )
        counts.append(page.evaluate("() => [document.querySelectorAll('#viewer .row').length,"
                                    " document.getElementsByTagName('*').length]"))
    rows = max(c[0] for c in counts)
    nodes = max(c[1] for c in counts)
    check(rows <= 80, f"the viewer holds {rows} rows")
    check(nodes < 3_000, f"the page holds {nodes} elements")
    last = page.locator("#viewer .row").last
    expect(last).to_contain_text("200000")
    page.locator("#jump input[name=line]").fill("123456")
    page.locator("#jump button").click()
    expect(page.locator('#viewer .row.target[data-row="123456"]')).to_contain_text("worker 123456")
    print(f"    viewer: at most {rows} rows, {nodes} elements in the page", flush=True)

    step("read in place")
    page.goto(BASE + "/s/build/e/cargo_build_1?grep=ERROR&context=2")
    expect(page.locator("#reply")).to_contain_text("worker 150000")
    expect(page.locator("#reply .ln-row.match")).to_have_count(2)
    shot(page, "read")
    page.goto(BASE + "/s/build/e/cargo_build_1?lines=211987-212010")
    expect(page.locator("#reply")).to_contain_text("past the last line")

    # --- JSON, binary ---------------------------------------------------------------------------
    step("json tree")
    page.goto(BASE + "/s/build/e/fetch_orders_2")
    page.locator('#content-box .tab[data-view="tree"]').click()
    expect(page.locator("#tree")).to_contain_text('"items"')
    # The first two levels are open; deeper ones open on a click.
    second = page.locator("#tree > details > details > details").nth(1)
    check(second.get_attribute("open") is None, "the third level of the tree is open at first")
    second.locator("summary").click()
    expect(second).to_contain_text('"second"')
    shot(page, "json")

    step("hex")
    page.goto(BASE + "/s/build/e/screenshot_3")
    expect(page.locator("#viewer .row.hex").first).to_contain_text("89 50 4e 47")
    shot(page, "hex")

    # --- history, diff, search, savings ---------------------------------------------------------
    step("history and diff")
    page.goto(BASE + "/s/build/e/plan/history")
    expect(page.locator("#versions")).to_contain_text("agent-b")
    shot(page, "history")
    page.goto(BASE + "/s/build/e/plan/diff?from=1")
    expect(page.locator("#diff .dl.add").first).to_be_visible()
    shot(page, "diff")

    step("search")
    page.goto(BASE + "/search?q=bisect")
    expect(page.locator("#hits")).to_contain_text("plan")
    shot(page, "search")

    step("savings")
    page.goto(BASE + "/savings")
    check(page.locator("#tools-chart rect.kept").count() > 0, "no bars in the per-tool chart")
    check(page.locator("#time-chart rect.kept").count() > 0, "no bars in the chart over time")
    shot(page, "savings")

    # --- hostile content ------------------------------------------------------------------------
    step("hostile content")
    for path in ["/s/build/e/hostile", "/s/build/e/hostile?grep=script", "/search?q=pwned",
                 "/s/build", "/savings", "/s/build/e/hostile/history"]:
        page.goto(BASE + path)
        page.wait_for_load_state("load")
        not_pwned(page, path)
    page.goto(BASE + "/s/build/e/hostile")
    expect(page.locator("#preview")).to_contain_text(HOSTILE_SCRIPT)
    expect(page.locator("#viewer")).to_contain_text(HOSTILE_SCRIPT)
    expect(page.locator("#meta")).to_contain_text("onerror")
    not_pwned(page, "the hostile note in the viewer")
    shot(page, "hostile")

    # --- editing, and a stale edit ----------------------------------------------------------------
    step("edit conflict")
    page.goto(BASE + "/s/build/e/plan")
    page.locator('[data-action="edit"]').click()
    editor = page.locator("#editor-text")
    expect(editor).to_have_value("1. reproduce\n2. bisect (found a1b2c3)\n3. fix\n")
    editor.fill("1. reproduce\n2. rewrite the parser\n")
    cli("--session", "build", "append", "plan", "4. ship it\n", "--author", "agent-b")
    expect(page.locator("#editor-error")).to_contain_text("was written while you edit")
    page.locator('[data-action="save"]').click()
    conflict = page.locator("#conflict")
    expect(conflict).to_contain_text("changed while you were editing")
    expect(conflict.locator(".dl.add")).to_contain_text("4. ship it")
    expect(editor).to_have_value("1. reproduce\n2. rewrite the parser\n")
    stored = cli("--session", "build", "read", "plan", "--full", "--raw")
    check("4. ship it" in stored and "rewrite the parser" not in stored, f"a stale edit overwrote: {stored!r}")
    shot(page, "conflict")
    # Saving over reloads the page once the note is written.
    with page.expect_navigation():
        conflict.locator("button.danger").click()
    expect(page.locator("#preview")).to_contain_text("rewrite the parser")
    stored = cli("--session", "build", "read", "plan", "--full", "--raw")
    check(stored == "1. reproduce\n2. rewrite the parser\n", f"saving over was not saved: {stored!r}")

    step("new note")
    page.goto(BASE + "/s/build/new")
    page.locator("#new-note input[name=name]").fill("decisions")
    page.locator("#new-note textarea").fill("use PostgreSQL for the team store\n")
    page.locator("#new-note button[type=submit]").click()
    page.wait_for_url(BASE + "/s/build/e/decisions")
    expect(page.locator("#preview")).to_contain_text("use PostgreSQL")

    # The browser logs every refused request; the 409 of the stale edit above is expected.
    expected = ("status of 401", "status of 403", "status of 409")
    errors = [e for e in console_errors if not any(x in e for x in expected)]
    check(not errors, f"the pages logged errors: {errors}")

    # --- a write from another origin --------------------------------------------------------------
    step("another origin")
    before = cli("--session", "build", "read", "plan", "--full", "--raw")
    elsewhere = ElsewhereServer()
    try:
        page.goto(elsewhere.url)
        page.evaluate(
            # The request is sent; its answer is hidden from this page (no-cors, and the server's
            # Cross-Origin-Resource-Policy makes it a network error), so only the store tells.
            """async (target) => {
                try {
                    await fetch(target + '/api/s/build/e/plan/write', {
                        method: 'POST', mode: 'no-cors', credentials: 'include',
                        headers: { 'Content-Type': 'text/plain' },
                        body: JSON.stringify({ text: 'overwritten from elsewhere' }),
                    });
                } catch (err) {}
            }""",
            BASE,
        )
    finally:
        elsewhere.close()
    after = cli("--session", "build", "read", "plan", "--full", "--raw")
    check(before == after, f"a page of another origin changed a note: {after!r}")

    context.close()


class ElsewhereServer:
    """A page on another local port: any local program could serve one."""

    def __init__(self) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                body = b"<!doctype html><title>elsewhere</title><p>another origin</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


if __name__ == "__main__":
    started = time.monotonic()
    main()
    print(f"    in {time.monotonic() - started:.1f} s", flush=True)
