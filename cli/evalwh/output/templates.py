"""The Jinja environments for reports: HTML with autoescape, Markdown with its own escaping.

Every chunk, claim and question text is data. In HTML Jinja's autoescape makes
it text; in Markdown every ``{{ }}`` passes through ``md_escape`` (the
environment's finalize), so no value can open a tag, a link or a table cell.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

if TYPE_CHECKING:  # Jinja is imported when a page is rendered, not when a command starts
    from jinja2 import Environment

MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")
# what makes a line a list item, a numbered item or a heading underline when a value starts it
MD_LINE_START = re.compile(r"^([-+=])(?=\s|$)|^(\d+)([.)])(?=\s|$)")


def md_escape(value: Any) -> Any:
    """Make a value safe inside Markdown text and table cells; Markup passes through untouched."""
    if value is None:
        return ""
    if isinstance(value, Markup):
        return str(value)
    text = str(value)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = MD_SPECIAL.sub(r"\\\1", text)
    text = re.sub(r"\s*[\r\n]+\s*", " ", text)
    return MD_LINE_START.sub(lambda m: f"\\{m.group(1)}" if m.group(1) else f"{m.group(2)}\\{m.group(3)}", text)


def fmt_number(value: Any, digits: int = 3) -> str:
    """Counts as integers, shares to ``digits`` decimals, missing as an em dash."""
    if value is None:
        return "—"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.{digits}f}"
    if isinstance(value, (int, float)):
        return str(int(value))
    return str(value)


def fmt_delta(value: Any, digits: int = 3) -> str:
    """A signed change, or an em dash when there is nothing to compare."""
    if value is None:
        return "—"
    if value == 0:
        return "±0"
    sign = "+" if value > 0 else "−"
    return sign + fmt_number(abs(value), digits)


VERDICT_MARKS = {"better": "🟢 better", "worse": "🔴 worse", "same": "same", "new": "new", "removed": "removed"}


def verdict_mark(value: str | None) -> str:
    """How Markdown shows a change's verdict: a green or red dot and the word (colour alone is not enough)."""
    return VERDICT_MARKS.get(value or "", "")


SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(points: list[tuple[str, float]]) -> str:
    """A metric over runs as one line of block characters, lowest value ▁, highest █."""
    values = [v for _, v in points]
    low, high = min(values), max(values)
    if high == low:
        return SPARKS[3] * len(values)
    return "".join(SPARKS[round((v - low) / (high - low) * (len(SPARKS) - 1))] for v in values)


def _common(env: Environment) -> Environment:
    env.filters["number"] = fmt_number
    env.filters["delta"] = fmt_delta
    env.filters["verdict_mark"] = verdict_mark
    env.filters["sparkline"] = sparkline
    return env


@cache
def environment(kind: str) -> Environment:
    """The environment for ``html`` or ``md`` templates in ``reports/``: one per kind and process, so each
    template is compiled once however often it is rendered (a Markdown report cut to fit a comment
    renders its page once per try)."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    loader = FileSystemLoader(str(files("evalwh.reports")))
    if kind == "html":
        env = Environment(loader=loader, autoescape=select_autoescape(default=True), undefined=StrictUndefined,
                          trim_blocks=True, lstrip_blocks=True)
    else:
        env = Environment(loader=loader, autoescape=False, finalize=md_escape, undefined=StrictUndefined,
                          trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
        env.filters["raw"] = Markup
    return _common(env)


def page_script() -> tuple[Markup, str]:
    """The HTML report's one inline script (sortable, filterable tables) and its CSP hash source."""
    text = (files("evalwh.reports") / "partials" / "sortable.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return Markup(text), f"'sha256-{digest}'"


def render(kind: str, template: str, **context: Any) -> str:
    """Render ``reports/<template>`` with ``context`` (HTML pages also get ``script`` and ``script_hash``)."""
    if kind == "html":
        context["script"], context["script_hash"] = page_script()
    return environment(kind).get_template(template).render(**context)
