"""`evalwh site DIR`: a static, offline, linked site; every link resolves, and a browser can click through it."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.report.site import page_name
from tests.test_changes import hr  # noqa: F401 - the two-run HR warehouse fixture
from tests.test_report_browser import _need_browser, opened


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "a" and found.get("href"):
            self.hrefs.append(str(found["href"]))
        if found.get("id"):
            self.ids.add(str(found["id"]))


def links_of(path: Path) -> Links:
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def site(hr: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811
    out = tmp_path_factory.mktemp("site") / "site"
    result = CliRunner().invoke(app, ["--db", str(hr), "site", str(out), "--no-config"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (f"evalwh: wrote {out / 'index.html'}: 2 runs, 8 question, 7 claim and 6 chunk pages, "
                             "1 comparison pages\n")
    return out


def test_every_link_of_every_page_resolves(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    # monday: 4 questions, 3 claims, 3 chunks; tuesday: the same 4 questions, its 4 claims, 3 chunks, a comparison
    assert len(pages) == 1 + 2 * (1 + 4) + 3 + 4 + 3 + 3 + 1
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "default-src 'none'" in text, page  # nothing is fetched: it opens from an artifact
        for href in links_of(page).hrefs:
            target, _, anchor = href.partition("#")
            assert not re.match(r"[a-z]+:", target), (page, href)  # no scheme: relative links only
            resolved = (page.parent / target).resolve() if target else page
            assert resolved.is_file(), (page, href)
            if anchor:
                assert anchor in links_of(resolved).ids, (page, href)


def test_ids_link_question_to_answer_to_claims_to_chunk(site: Path) -> None:
    index = links_of(site / "index.html").hrefs
    assert index == ["runs/monday/index.html", "runs/tuesday/index.html", "runs/monday/index.html",
                     "runs/tuesday/compare.html"]
    tuesday = links_of(site / "runs" / "tuesday" / "index.html").hrefs
    assert "../monday/index.html" in tuesday and "compare.html" in tuesday  # run -> its baseline
    # the regressed question q3 and claims c1, c4 link to their pages from "What got worse"
    for href in ("questions/q3.html", "questions/q4.html", "claims/c1.html", "claims/c4.html"):
        assert href in tuesday
    q3 = (site / "runs" / "tuesday" / "questions" / "q3.html").read_text(encoding="utf-8")
    assert "What is the guest wifi password?" in q3 and '<dd id="answer" class="text">14 days</dd>' in q3
    assert '<a href="../chunks/h1.html">h1</a>' in q3  # retrieved at rank 1 and cited
    c4 = (site / "runs" / "tuesday" / "claims" / "c4.html").read_text(encoding="utf-8")
    assert "Claim c4: DANGLING" in c4 and "no such chunk" in c4  # h9 has no page: it is no chunk
    h1 = (site / "runs" / "tuesday" / "chunks" / "h1.html").read_text(encoding="utf-8")
    assert '<a href="../questions/q1.html">q1</a>' in h1 and '<a href="../claims/c1.html">c1</a>' in h1
    compare = (site / "runs" / "tuesday" / "compare.html").read_text(encoding="utf-8")
    assert compare.index('<a href="questions/q3.html">q3</a>') < compare.index('<a href="questions/q2.html">q2</a>')


def test_an_id_that_is_not_a_plain_name_gets_a_safe_unique_file() -> None:
    assert page_name("q3") == "q3.html"
    odd = [page_name(v) for v in ("../etc/passwd", "a/b", "a b", "a?b", ".hidden", "")]
    assert len(set(odd)) == len(odd)
    assert all(re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]*\.html", n) and "/" not in n for n in odd)


def test_a_folder_that_is_not_empty_is_refused(hr: Path, tmp_path: Path) -> None:  # noqa: F811
    (tmp_path / "keep.txt").write_text("x", encoding="utf-8")
    result = CliRunner().invoke(app, ["--db", str(hr), "site", str(tmp_path)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert "not an empty folder" in result.stderr and (tmp_path / "keep.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_a_browser_clicks_from_the_index_to_a_regressed_question_and_its_chunk(site: Path, tmp_path: Path) -> None:
    _need_browser()
    console: list[str] = []
    requests: list[str] = []
    with opened(site / "index.html", console, requests) as page:
        page.screenshot(path=str(tmp_path / "1-index.png"), full_page=True)
        page.get_by_role("link", name="tuesday", exact=True).click()
        assert page.title() == "evalwh report: tuesday"
        page.screenshot(path=str(tmp_path / "2-run.png"))
        worse = page.locator("table.changes").first
        worse.get_by_role("link", name="q3", exact=True).click()
        assert page.title() == "tuesday · question q3"
        assert page.locator("#answer").inner_text() == "14 days"
        page.screenshot(path=str(tmp_path / "3-question.png"), full_page=True)
        page.locator("table:not(.side-by-side)").first.get_by_role("link", name="h1", exact=True).click()
        assert page.title() == "tuesday · chunk h1"
        assert page.locator("#chunk-text").inner_text() == "Staff get 25 days of annual leave."
        page.screenshot(path=str(tmp_path / "4-chunk.png"), full_page=True)
    assert [c for c in console if c.startswith(("error", "pageerror", "warning"))] == []
    assert all(url.startswith(site.as_uri()) for url in requests), requests
    for shot in ("1-index", "2-run", "3-question", "4-chunk"):
        assert (tmp_path / f"{shot}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_question_and_a_claim_page_show_the_baseline_side_and_what_changed(site: Path) -> None:
    # tuesday against monday (tests/test_changes.py, by hand): q3 was refused correctly and is answered,
    # q4's F1 fell 1.0 -> 0.5; c1 was SUPPORTED and is NUMBER_MISMATCH; c4 is new and DANGLING
    q3 = (site / "runs" / "tuesday" / "questions" / "q3.html").read_text(encoding="utf-8")
    assert '<h2 id="against-baseline">Against baseline <a href="../../monday/index.html">monday</a></h2>' in q3
    assert '<td class="text">NOT IN HANDBOOK</td><td class="text">14 days</td>' in q3
    assert "<td>refuse (correct action)</td><td>answer (wrong action)</td>" in q3
    assert ('<p id="change" class="worse"><strong>worse</strong> (severity 5): outcome correct action -&gt; wrong '
            "action (expected refuse, the response did answer); worse in outcome, refusal") in q3
    q4 = (site / "runs" / "tuesday" / "questions" / "q4.html").read_text(encoding="utf-8")
    assert "<td>EM / F1</td><td>1 / 1</td><td>0 / 0.500</td>" in q4 and "(severity 1.500): f1 1.0 -&gt; 0.5" in q4
    c1 = (site / "runs" / "tuesday" / "claims" / "c1.html").read_text(encoding="utf-8")
    assert "Status in monday: SUPPORTED, now NUMBER_MISMATCH: <strong>worse</strong> (severity 3)" in c1
    c4 = (site / "runs" / "tuesday" / "claims" / "c4.html").read_text(encoding="utf-8")
    assert "Not in the baseline: a new claim (<strong>worse</strong>)." in c4
    # monday has no baseline: no such section
    assert "Against baseline" not in (site / "runs" / "monday" / "questions" / "q3.html").read_text(encoding="utf-8")


def test_a_run_page_filters_to_what_failed_or_changed_and_the_index_fits_1280_px(site: Path) -> None:
    _need_browser()
    console: list[str] = []
    with opened(site / "runs" / "tuesday" / "index.html", console, []) as page:
        page.set_viewport_size({"width": 1280, "height": 900})
        table = page.locator("table[data-toggles]")
        def shown() -> list[str]:
            return [t.split("\n")[0].strip() for t in table.locator("tbody tr:visible td:first-child").all_inner_texts()]
        # tuesday's claims: c1 NUMBER_MISMATCH, c2 SUPPORTED, c4 DANGLING, c5 SUPPORTED; changed: c1, c2, c4, c5
        # against monday (c3 was removed)
        assert sorted(shown()) == ["c1", "c2", "c4", "c5"]
        page.locator("input.only-failing").check()
        assert sorted(shown()) == ["c1", "c4"]
        page.locator("input.only-failing").uncheck()
        page.locator("input.only-changed").check()
        assert sorted(shown()) == ["c1", "c2", "c4", "c5"]
        page.goto((site / "index.html").as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        # every run's headline metrics in view: the table fits its box, nothing hidden to the right
        assert page.evaluate("Math.max(...[...document.querySelectorAll('.scroll')]"
                             ".map(box => box.scrollWidth - box.clientWidth))") == 0
    assert [c for c in console if c.startswith(("error", "pageerror"))] == []
