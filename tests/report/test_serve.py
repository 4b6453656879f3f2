"""`inspector serve`: the replay TUI in a browser through textual-serve, loopback only by default."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.report.conftest import docs_screenshot

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "fixtures" / "runs" / "weather.jsonl"


@contextmanager
def _serve(*args: str) -> Iterator[subprocess.Popen[str]]:
    """`inspector serve ARGS` running; stopped with Ctrl-C (SIGINT) when the block ends."""
    with subprocess.Popen(
        [sys.executable, "-m", "inspector", "serve", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    ) as process:  # fmt: skip
        try:
            yield process
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
            process.communicate(timeout=30)


@pytest.fixture
def served() -> Iterator[tuple[subprocess.Popen[str], str]]:
    with _serve(str(WEATHER)) as process:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        yield process, match.group(0)


def _wait_for_port(url: str) -> None:
    import urllib.request

    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_the_replay_screen_reaches_the_browser(
    served: tuple[subprocess.Popen[str], str], browser: Any, tmp_path: Path
) -> None:
    process, url = served
    _wait_for_port(url)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    screen: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: screen.append(str(frame))))
    page.goto(url)
    deadline = time.monotonic() + 60
    while not all(word in "".join(screen) for word in ("timeline", "get_weather", "chat")):
        assert time.monotonic() < deadline, "the timeline never reached the browser"
        page.wait_for_timeout(250)
    docs_screenshot(page, "serve.png", tmp_path)
    page.close()
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 0  # Ctrl-C ends it cleanly


def test_a_busy_port_is_refused(served: tuple[subprocess.Popen[str], str]) -> None:
    _, url = served
    port = url.rsplit(":", 1)[1].strip("/")
    _wait_for_port(url)
    with _serve(str(WEATHER), "--port", port) as second:
        _, err = second.communicate(timeout=60)
    assert second.returncode == 2
    assert f"cannot listen on 127.0.0.1 port {port}" in " ".join(err.split())


def test_another_host_is_served_with_a_warning() -> None:
    with _serve(str(WEATHER), "--host", "0.0.0.0") as process:
        assert process.stdout is not None and process.stderr is not None
        assert "serving weather.jsonl at http://0.0.0.0:" in process.stdout.readline()
        assert "anyone who can reach port" in process.stderr.readline()


def test_a_bad_run_file_is_refused_before_serving(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a run\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "serve", str(bad)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
