"""The HTML report in headless Chromium: it renders offline, logs no console error, requests nothing.

Needs Debian's chromium (/usr/bin/chromium) and the playwright package; .ci/run
installs both. Outside CI the test is skipped when they are missing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from evalwh.report import build_report

from tests.conftest import CHAPTER3

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


def _need_browser() -> None:
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append("chromium")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright")
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install {', '.join(missing)} (see .ci/run)")
        pytest.skip(f"needs {', '.join(missing)}")


def test_html_report_opens_offline_without_errors(db: Path, tmp_path: Path) -> None:
    _need_browser()
    from evalwh.loader import load_run
    from playwright.sync_api import sync_playwright

    load_run(db, CHAPTER3, run="chapter3")
    report = tmp_path / "report.html"
    build_report(db, "latest", "html", report)
    console: list[str] = []
    requests: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
            page.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
            page.on("request", lambda req: requests.append(req.url))
            page.goto(report.as_uri())
            assert page.title() == "evalwh report: chapter3"
            assert page.locator("svg.chart").count() == 2
            assert page.locator("mark").first.inner_text() == "must be returned within 14 days"  # c2, failing first
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert [c for c in console if c.startswith(("error", "pageerror", "warning"))] == []
    assert requests == [report.as_uri()]
    assert shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
