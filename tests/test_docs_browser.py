"""The documentation site in a real browser: headless Chromium, driven by Playwright.

The site is built once (the session fixture ``docs_site`` of
tests/conftest.py, as ``make docs``), served by ``http.server`` on a free
port in a thread, and opened in Debian's ``chromium`` (``make browser``
installs it; Playwright is pointed at it with ``executable_path``, it never
downloads a browser; ``OPTSCHED_CHROMIUM`` names another binary).  On the
home page, a paper page, a notebook page, a gallery page and two API pages
(``optsched.core.registry`` and ``optsched.models.oasis``): the page renders
(its title, a non-empty main column), every ``<img>`` loads
(``naturalWidth > 0``), nothing failed (console errors, page errors, failed
requests, HTTP errors) and, on the paper page and the models' API page
(whose module docstring has a ``.. math::`` block), MathJax rendered every
equation (one ``mjx-container`` per math element, no ``mjx-merror``).
The search box finds "OASiS".  A screenshot of each page (the top 4,000
pixels at 1280 pixels wide) is saved in ``$OPTSCHED_ARTIFACTS`` (default:
pytest's temporary folder of the run, ``.../docs_browser0``).

Internal links are checked without the browser, over every HTML file of the
site: each relative ``href``/``src`` points to an existing file and each
fragment to an ``id`` in its target.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

#: name -> (page, text its <title> contains)
PAGES = {
    "home": ("index.html", "optsched"),
    "paper": ("oasis.html", "OASiS (Bao, Peng, Wu, Li, INFOCOM 2018)"),
    "notebook": (
        "notebooks/oasis_primal_dual.html",
        "OASiS: the primal-dual analysis on a live instance",
    ),
    "gallery": ("gallery/oasis.html", "Gallery: oasis"),
    "api": ("api/_autosummary/optsched.core.registry.html", "optsched.core.registry"),
    "models": ("api/_autosummary/optsched.models.oasis.html", "optsched.models.oasis"),
}
#: pages whose equations MathJax must render -> the fewest math elements they hold
MATH_PAGES = {"paper": 3, "models": 1}
SCREENSHOT_HEIGHT = 4000


def _chromium() -> str | None:
    return (
        os.environ.get("OPTSCHED_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


@pytest.fixture(scope="module")
def site(docs_site: tuple[Path, int]) -> Path:
    html, status = docs_site
    assert status == 0, "sphinx-build -W failed"
    return html


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    """The built site served on a free local port, in a thread."""
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (the system's), launched once for the module."""
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = _chromium()
    if exe is None:
        # `make test` runs `make browser` first, which installs it with apt-get
        pytest.skip(
            "no chromium on PATH: run `make browser` (apt-get install chromium)"
        )
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=exe, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshots go: ``$OPTSCHED_ARTIFACTS`` or a pytest temp folder."""
    env = os.environ.get("OPTSCHED_ARTIFACTS")
    folder = Path(env) if env else tmp_path_factory.mktemp("docs_browser")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _open(browser: Any, url: str) -> tuple[Any, list[str]]:
    """A new page at ``url`` (network idle) and the list its failures go to."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    page.on(
        "console",
        lambda m: (
            problems.append(f"console error: {m.text}") if m.type == "error" else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on(
        "requestfailed",
        lambda r: problems.append(f"request failed: {r.url} ({r.failure})"),
    )
    page.on(
        "response",
        lambda r: (
            problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None
        ),
    )
    page.goto(url, wait_until="networkidle")
    return page, problems


def _screenshot(page: Any, path: Path) -> None:
    height = page.evaluate("document.documentElement.scrollHeight")
    clip = {"x": 0, "y": 0, "width": 1280, "height": min(height, SCREENSHOT_HEIGHT)}
    page.screenshot(path=str(path), full_page=True, clip=clip)


# every image, lazy or not, loaded and decoded: [src, naturalWidth]
_IMAGES_JS = """async () => Promise.all(Array.from(document.images).map(async (img) => {
    img.loading = "eager";
    try { await img.decode(); } catch (e) {}
    return [img.getAttribute("src"), img.naturalWidth];
}))"""


@pytest.mark.parametrize("name", list(PAGES))
def test_page_renders_in_chromium(
    name: str, base_url: str, browser: Any, artifacts: Path
) -> None:
    path, title = PAGES[name]
    page, problems = _open(browser, base_url + path)
    try:
        assert title in page.title(), page.title()
        main = page.locator("article[role=main]")
        assert main.count() == 1
        assert len(main.inner_text().strip()) > 200
        images = page.evaluate(_IMAGES_JS)
        if name in ("notebook", "gallery"):
            assert images, "the page's figures are missing"
        broken = [src for src, width in images if not width > 0]
        assert not broken, f"images that did not load: {broken}"
        if name in MATH_PAGES:
            n_math = page.locator(".math").count()
            assert n_math >= MATH_PAGES[name]
            page.wait_for_selector("mjx-container", timeout=30_000)
            page.wait_for_function(
                f"document.querySelectorAll('mjx-container').length >= {n_math}",
                timeout=30_000,
            )
            assert page.locator("mjx-merror").count() == 0
        page.wait_for_load_state("networkidle")  # fonts MathJax asked for
        _screenshot(page, artifacts / f"docs_{name}.png")
        assert not problems, problems
    finally:
        page.close()


def test_search_box_finds_oasis(base_url: str, browser: Any, artifacts: Path) -> None:
    page, problems = _open(browser, base_url + "index.html")
    try:
        box = page.locator("input[name=q]").first
        box.fill("OASiS")
        box.press("Enter")
        page.wait_for_url("**/search.html?q=OASiS*")
        hits = page.locator("#search-results ul.search li")
        hits.first.wait_for(timeout=30_000)
        assert hits.count() >= 1
        assert "oasis.html" in "".join(
            hits.locator("a").evaluate_all("els => els.map(a => a.href)")
        )
        _screenshot(page, artifacts / "docs_search.png")
        assert not problems, problems
    finally:
        page.close()


class _Links(HTMLParser):
    """The ids of an HTML file and the href/src values it links to."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if a.get(key):
                self.ids.add(str(a[key]))
        for key in ("href", "src"):
            if a.get(key) and tag != "base":
                self.links.append(str(a[key]))


@functools.cache
def _parsed(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_internal_link_resolves(site: Path) -> None:
    """Every relative href/src of every HTML file: the file exists, and the
    fragment (if any) is an id of the target page."""
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 100
    broken: list[str] = []
    for page in pages:
        for link in _parsed(page).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "data:")):
                continue
            target = (
                (page.parent / unquote(parts.path)).resolve() if parts.path else page
            )
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(site)}: {link}"
            if not target.is_file():
                broken.append(where)
            elif (
                parts.fragment
                and target.suffix == ".html"
                and unquote(parts.fragment) not in _parsed(target).ids
            ):
                broken.append(where + " (no such id)")
    assert not broken, f"{len(broken)} broken links: {broken[:20]}"
