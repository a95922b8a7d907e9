"""The documentation site builds with warnings as errors (``make docs``).

One Sphinx build of ``docs/`` into a temporary folder (``-W --keep-going``,
as ``make docs``), then spot checks of the pages it must hold: the home page
and its map, a paper page (``docs/oasis.md`` itself), the experiment layer
(``paper_figures/README.md`` included), a notebook page with its committed
outputs, API pages generated from the docstrings, and the equations of
every paper page and of every ``optsched.models`` module (MathJax).  The
build writes the autosummary stubs into ``docs/api/_autosummary`` and the
figure gallery into ``docs/gallery`` (both ignored by git), as ``make docs``
does.  The build is
the session fixture ``docs_site`` (tests/conftest.py), shared with the
browser test (tests/test_docs_browser.py).
"""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pandas as pd
from PIL import Image

from optsched.core.experiment import specs
from optsched.core.record import is_stale, read_record, run_time

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "paper_figures" / "claims"


def _page(html: Path, name: str) -> str:
    path = html / name
    assert path.is_file(), f"{name} not built"
    return path.read_text(encoding="utf-8")


def test_docs_build_with_warnings_as_errors(docs_site: tuple[Path, int]) -> None:
    html, status = docs_site
    assert status == 0, "sphinx-build -W failed (warnings above)"

    index = _page(html, "index.html")
    for page in ("getting_started", "oasis", "experiments", "notebooks", "api"):
        assert f'href="{page}.html"' in index, page

    # the paper page is docs/oasis.md itself: its title and a section of it
    oasis = _page(html, "oasis.html")
    assert "OASiS (Bao, Peng, Wu, Li, INFOCOM 2018)" in oasis
    assert "Readings of the pseudo-code" in oasis
    # its equations, for MathJax, which the site serves itself
    assert oasis.count('class="math notranslate nohighlight"') >= 3
    assert 'src="_static/mathjax/tex-chtml.js' in oasis
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()

    # the experiment layer page includes paper_figures/README.md
    experiments = _page(html, "experiments.html")
    assert "Reproduced figures and tables" in experiments
    assert "Adding a figure" in experiments

    # a notebook (symlinked from notebooks/) with its heading and its plot
    nb = _page(html, "notebooks/oasis_primal_dual.html")
    assert "OASiS: the primal-dual analysis on a live instance" in nb
    images = re.findall(r'<img [^>]*src="([^"]+\.png)"', nb)
    assert images, "the notebook's committed figure output is not shown"
    for src in images:
        assert (html / "notebooks" / src).resolve().is_file(), src

    # API pages generated from the docstrings: core, a slice, the models
    api = "api/_autosummary/"
    registry = _page(html, api + "optsched.core.registry.html")
    assert 'id="optsched.core.registry.get_paper"' in registry
    online = _page(html, api + "optsched.oasis.online.html")
    assert "Alg. 1" in online
    models = _page(html, api + "optsched.models.oasis.html")
    assert 'id="optsched.models.oasis.best_column"' in models
    # the models' docstrings carry the MILPs' objectives as ``.. math::``
    assert 'class="math notranslate nohighlight"' in models
    assert 'src="../../_static/mathjax/tex-chtml.js' in models


def test_paper_pages_show_their_equations(docs_site: tuple[Path, int]) -> None:
    """Every paper page has the paper's objective and key constraints as
    display math (section "Objective and constraints (as printed)", oasis:
    "Objective, prices and the guarantee (as printed)") for MathJax, and the
    module docstring of every ``optsched.models.<key>`` renders its MILP's
    objective as math on its API page."""
    html, status = docs_site
    assert status == 0
    for key in ("oasis", "hetero", "edgecloud", "okita", "asrpt"):
        page = _page(html, f"{key}.html")
        assert page.count('class="math notranslate nohighlight"') >= 2, key
        assert 'src="_static/mathjax/tex-chtml.js' in page, key
        if key != "oasis":
            assert "Objective and constraints (as printed)" in page, key
        models = _page(html, f"api/_autosummary/optsched.models.{key}.html")
        assert 'class="math notranslate nohighlight"' in models, key


def test_gallery_shows_every_spec_with_its_record_and_claims(
    docs_site: tuple[Path, int],
) -> None:
    """Every spec of a paper is on its gallery page: the record's state (as
    read here from ``paper_figures/claims``), a figure exactly when rows are
    recorded, every recorded claim with its status as recorded (``stale
    (recorded: X)`` when the record is stale or missing) and the command."""
    html, status = docs_site
    assert status == 0
    index = _page(html, "index.html")
    assert 'href="gallery.html"' in index
    by_paper: dict[str, list] = {}
    for spec in specs().values():
        by_paper.setdefault(spec.paper, []).append(spec)
    assert set(by_paper) == {"oasis", "hetero", "edgecloud", "okita", "asrpt"}
    gallery = _page(html, "gallery.html")
    sizes = []
    for key, paper_specs in by_paper.items():
        assert f'href="gallery/{key}.html"' in gallery, key
        page = html_lib.unescape(_page(html, f"gallery/{key}.html"))
        sections = re.split(r'<section id="gallery-', page)[1:]
        assert len(sections) == len(paper_specs), key
        for spec, section in zip(paper_specs, sections, strict=True):
            anchor = spec.name.replace("_", "-")
            assert section.startswith(f'{anchor}">'), (key, spec.name)
            text = re.sub(r"<[^>]+>", "", section)
            assert spec.ref in text
            assert f"optsched figure run {spec.name} --record" in text
            record = read_record(CLAIMS / key, spec.name)
            fresh = record is not None and not is_stale(spec, record)
            state = "not recorded" if record is None else "fresh" if fresh else "stale"
            assert f"record: {state}" in text, spec.name
            images = re.findall(r'<img [^>]*src="([^"]+)"', section)
            if record is None:
                assert not images, spec.name
            else:
                assert record["commit"] in text and record["date"] in text
                if record.get("wall_s") is not None:  # records since wall_s is kept
                    assert f"run in {run_time(record)} on" in text, spec.name
                assert images == [f"../_images/{spec.name}.png"], spec.name
                png = html / "_images" / f"{spec.name}.png"
                with Image.open(png) as im:
                    assert im.width > 100 and im.height > 100
                sizes.append(png.stat().st_size)
            claims_file = CLAIMS / key / f"{spec.name}.claims.csv"
            if claims_file.is_file():
                claims = pd.read_csv(claims_file, dtype=str, keep_default_na=False)
                for row in claims.itertuples(index=False):
                    shown = row.status if fresh else f"stale (recorded: {row.status})"
                    cell = f"<td><p>{row.claim}</p></td>"
                    assert cell in section, (spec.name, row.claim)
                    after = section.split(cell, 1)[1]
                    assert f"<td><p>{shown}</p></td>" in after.split("</tr>")[0]
    # the recorded figures are kept small (70 dpi, 256 colours)
    assert sizes and max(sizes) < 200_000 and sum(sizes) < 1_000_000, sizes
