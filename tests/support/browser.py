"""A real browser for the console's tests (#32): Playwright from PyPI driving Debian's Chromium.

`playwright install` downloads a browser build, which this project never does: the tests launch the
system's `chromium` (`apt-get install chromium`; `make test` installs it when it runs as root). Where
it is absent the browser tests skip and say how to get it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.procs import ROOT

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# screenshots of each page, kept as the test run's artifacts (gitignored)
ARTIFACTS = Path(os.environ.get("GATEWAY_TEST_ARTIFACTS", ROOT / "tests" / "artifacts")) / "console"


def chromium_path() -> str:
    """Debian's Chromium, or a skip that says how to install it."""
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    pytest.skip(
        "chromium is not installed, so the console's browser tests cannot run: install Debian's package "
        "(as root: apt-get update && apt-get install -y chromium; `make test` does this when run as root)"
    )


@contextmanager
def chromium() -> Iterator[Any]:
    """One headless Chromium (a module's tests share it; each test opens its own context)."""
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def ready(page: Any) -> None:
    """Until the console has drawn the page it is on (main.js sets `data-ready` when done; a selector,
    since the console's Content-Security-Policy forbids the eval a `wait_for_function` needs)."""
    page.locator("body[data-ready='1']").wait_for(state="attached", timeout=15_000)


def shot(page: Any, name: str) -> Path:
    """A full-page screenshot under ARTIFACTS."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
