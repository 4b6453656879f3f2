"""A real browser for the page tests: Debian's chromium, driven headless by Playwright.

`.ci/run` installs chromium from Debian's packages (a browser download at test time is not possible
here); a machine without it fails these tests with a message saying so, it never skips them. The flags
keep chromium from reaching for the network, which this machine refuses.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    found = (
        os.environ.get("INSPECTOR_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if found is None:
        pytest.fail("these tests need Debian's chromium: `apt-get install chromium` (as .ci/run does)")
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium per test module. Not per session: Playwright's sync API keeps an asyncio loop
    running on the main thread while it is open, and later tests that start their own loop
    (`asyncio.run`) would fail."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """`open_page(path, javascript=True)`: a page loaded from a file, ready when its script says so;
    every dialog the page opens is kept in `page.dialogs` (a page that runs a stranger's script would)."""
    contexts: list[Any] = []

    def opener(path: Path, *, javascript: bool = True) -> Any:
        context = browser.new_context(
            java_script_enabled=javascript, viewport={"width": 1400, "height": 1000}
        )
        contexts.append(context)
        page = context.new_page()
        page.dialogs = []
        page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(path.resolve().as_uri())
        if javascript:
            page.wait_for_selector("body[data-ready=true]", state="attached", timeout=60_000)
        return page

    yield opener
    for context in contexts:
        context.close()


def docs_screenshot(page: Any, name: str, tmp_path: Path) -> Path:
    """A screenshot of `page`: into docs/images when INSPECTOR_DOCS_IMAGES names that folder (how the
    docs' pictures are made), else into the test's temporary folder."""
    folder = Path(os.environ.get("INSPECTOR_DOCS_IMAGES") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.screenshot(path=str(path))
    return path
