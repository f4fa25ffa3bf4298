"""Headless Chromium for the browser tests (issue #31): Debian's ``chromium`` driven by Playwright.

Playwright's own browser download is not available here, so the tests launch the system binary found by
``shutil.which("chromium")`` (``.ci/run`` installs it with apt-get when it is missing). Without chromium or the
``playwright`` package a test skips with the reason, except when the ``CI`` environment variable is set:
then it fails, so CI really runs the browser tests.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The README's screenshots (docs/images/) are taken by the browser tests, but only when asked (`make
# screenshots` sets HG_SCREENSHOTS=1): a plain test run leaves the tracked pictures alone and saves its
# screenshots where pytest keeps temporary files.
IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"


def screenshot_path(name: str, tmp_path: Path) -> Path:
    """Where a browser test saves screenshot ``name``: docs/images/ under ``make screenshots``, else ``tmp_path``."""
    folder = IMAGES if os.environ.get("HG_SCREENSHOTS") == "1" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def _missing(reason: str) -> None:
    """Skip, or fail under CI (where the browser tests must run)."""
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {reason}", pytrace=False)
    pytest.skip(reason)


def chromium_path() -> str:
    """The system chromium binary; skips (fails under CI) when there is none."""
    path = shutil.which("chromium")
    if path is None:
        _missing("chromium is not installed (apt-get install chromium)")
    return path


@contextlib.contextmanager
def launch(**options: Any) -> Iterator[Any]:
    """A headless Playwright chromium ``Browser`` on the system binary, closed afterwards.
    ``options`` go to ``chromium.launch`` (e.g. ``slow_mo``)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[dev]')")
    executable = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--headless", "--no-sandbox"], **options)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def new_page(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A fresh page of a launched browser, its viewport ``width`` x ``height``."""
    with launch() as browser:
        page = browser.new_page(viewport={"width": width, "height": height})
        yield page
