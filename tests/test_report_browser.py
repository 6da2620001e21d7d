"""The HTML report in headless Chromium: it renders offline, logs no console error, requests nothing.

Needs Debian's chromium (/usr/bin/chromium) and the playwright package; .ci/run
installs both. Outside CI the test is skipped when they are missing.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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


@contextmanager
def opened(report: Path, console: list[str], requests: list[str]) -> Iterator[Any]:
    """The report open in headless Chromium; console messages and requested URLs are collected."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
            page.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
            page.on("request", lambda req: requests.append(req.url))
            page.goto(report.as_uri())
            yield page
        finally:
            browser.close()


def test_html_report_opens_offline_without_errors(db: Path, tmp_path: Path) -> None:
    _need_browser()
    from evalwh.loader import load_run

    load_run(db, CHAPTER3, run="chapter3")
    report = tmp_path / "report.html"
    build_report(db, "latest", "html", report)
    console: list[str] = []
    requests: list[str] = []
    shot = tmp_path / "report.png"
    with opened(report, console, requests) as page:
        assert page.title() == "evalwh report: chapter3"
        assert page.locator("svg.chart").count() == 2
        assert page.locator("mark").first.inner_text() == "must be returned within 14 days"  # c2, failing first
        page.screenshot(path=str(shot), full_page=True)
    assert [c for c in console if c.startswith(("error", "pageerror", "warning"))] == []
    assert requests == [report.as_uri()]
    assert shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_summary_trend_and_a_table_that_sorts_on_click(db: Path, tmp_path: Path) -> None:
    _need_browser()
    from evalwh.loader import load_run
    from tests.conftest import fixed_c5_dir

    load_run(db, CHAPTER3, run="older")  # a trend chart needs three runs
    load_run(db, CHAPTER3, run="base")
    load_run(db, fixed_c5_dir(tmp_path), run="fixed", default_dataset="chapter3")
    report = tmp_path / "report.html"
    build_report(db, "fixed", "html", report)
    console: list[str] = []
    requests: list[str] = []
    shot = tmp_path / "report.png"
    with opened(report, console, requests) as page:
        assert page.locator("p.summary").inner_text() == (
            "Run fixed of dataset chapter3; 5 of 8 claims supported; against base: no claim or question got worse; "
            "5 metrics better, 0 worse.")
        share = page.locator('.figure[data-metric="supported_share"]')
        assert share.locator(".value").inner_text() == "0.625"
        assert share.locator(".better").inner_text() == "+0.125 vs base (better)"
        trend = page.locator('svg.trend[data-metric="supported_share"]')
        assert trend.locator("circle").count() == 3
        assert "run, oldest to newest (3)" in trend.locator("text.axis-title").all_text_contents()
        # the metrics table, sorted by its value column, descending after two clicks
        table = page.locator("table.sortable").first
        header = table.locator("th").nth(1)
        before = table.locator("tbody tr td:first-child").all_inner_texts()
        header.click()
        ascending = table.locator("tbody tr td:first-child").all_inner_texts()
        header.click()
        descending = table.locator("tbody tr td:first-child").all_inner_texts()
        assert header.get_attribute("aria-sort") == "descending"
        values = {"claims": 8, "uncited": 1, "dangling": 1, "unsupported": 0, "number_mismatch": 1, "supported": 5,
                  "supported_share": 0.625, "pairs": 8, "sound_pairs": 6, "pair_precision": 0.75, "questions": 8,
                  "best_correct": 7}
        assert sorted(before) == sorted(values)
        assert [values[n] for n in ascending] == sorted(values.values())
        assert [values[n] for n in descending] == sorted(values.values(), reverse=True)
        # the filter box above it keeps only the rows holding the text
        page.locator("input.filter").first.fill("share")
        assert table.locator("tbody tr:visible").count() == 1
        assert table.locator("tbody tr:visible").all_inner_texts()[0].startswith("supported_share")
        page.screenshot(path=str(shot), full_page=True)
    assert [c for c in console if c.startswith(("error", "pageerror", "warning"))] == []
    assert requests == [report.as_uri()]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
