"""`inspector report` on a long run: the page's size, the time to make it (linear in the run), and how
fast headless chromium opens it.

Targets (issue 33): a 10,000-round run's page <= 5 MB and open (DOMContentLoaded) in <= 2 s in headless
chromium here; making the page linear in the run (10,000 rounds within 12x of 1,000, measured in the same
run). Needs Debian's chromium and Playwright (the `test` extra), as tests/report does.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from bench.bench_reading import _record  # pyright: ignore[reportPrivateUsage]
from bench.timing import best_time
from inspector.recording import read_run
from inspector.report import run_page

SHORT = 1_000
LONG = int(os.environ.get("BENCH_REPORT_ROUNDS", "10000"))
SIZE_TARGET = 5_000_000
OPEN_TARGET_S = 2.0
RATIO_TARGET = 12.0
_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _make(path: Path) -> str:
    return run_page(read_run(path))


def _opened_in(page: Path) -> tuple[float, float]:
    """Best of three: (DOMContentLoaded, script ready) in seconds, as the browser's clock says."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("bench report needs Debian's chromium (apt-get install chromium)")
    loaded, ready = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=_FLAGS)
        for _ in range(3):
            tab = browser.new_page()
            start = time.perf_counter()
            tab.goto(page.as_uri(), wait_until="domcontentloaded")
            loaded.append(
                tab.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd") / 1000
            )
            tab.wait_for_selector("body[data-ready=true]", state="attached", timeout=120_000)
            ready.append(time.perf_counter() - start)
            tab.close()
        browser.close()
    return min(loaded), min(ready)


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        short = _record(Path(tmp) / "short.jsonl", SHORT)
        long = _record(Path(tmp) / "long.jsonl", LONG)
        print(f"flow ReAct recordings: {SHORT:,} rounds (baseline) and {LONG:,} rounds")
        print(f"  load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")
        t_short = best_time(lambda: _make(short), 3, clock=time.process_time)
        t_long = best_time(lambda: _make(long), 1, clock=time.process_time)
        ratio = t_long / t_short
        verdict = "OK" if ratio <= RATIO_TARGET else "MISSED"
        print(
            f"  make the page, cpu {t_short:7.3f} s -> {t_long:7.3f} s = {ratio:5.1f}x  "
            f"(<= {RATIO_TARGET:.0f}x: {verdict})"
        )
        page = Path(tmp) / "long.html"
        page.write_text(_make(long), encoding="utf-8")
        size = page.stat().st_size
        print(
            f"  page size         {size / 1e6:7.2f} MB  "
            f"(<= {SIZE_TARGET / 1e6:.0f} MB: {'OK' if size <= SIZE_TARGET else 'MISSED'})"
        )
        loaded, ready = _opened_in(page)
        verdict = "OK" if loaded <= OPEN_TARGET_S else "MISSED"
        print(
            f"  DOMContentLoaded  {loaded:7.3f} s  (<= {OPEN_TARGET_S:.0f} s: {verdict}); "
            f"script ready {ready:.3f} s"
        )
