"""The documentation site builds with warnings as errors (``make docs``).

One Sphinx build of ``docs/`` into a temporary folder (``-W --keep-going``,
as ``make docs``), then spot checks of the pages it must hold: the home page
and its map, a paper page (``docs/oasis.md`` itself), the experiment layer
(``paper_figures/README.md`` included), a notebook page with its committed
outputs, and API pages generated from the docstrings.  The build writes the
autosummary stubs into ``docs/api/_autosummary`` (ignored by git), as
``make docs`` does.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sphinx.cmd.build import build_main

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _page(html: Path, name: str) -> str:
    path = html / name
    assert path.is_file(), f"{name} not built"
    return path.read_text(encoding="utf-8")


# Sphinx's deprecation notices about myst-parser and napoleon internals (3,000
# per build); Sphinx's own warnings fail the build through -W
@pytest.mark.filterwarnings("ignore::sphinx.deprecation.RemovedInSphinx11Warning")
def test_docs_build_with_warnings_as_errors(tmp_path: Path) -> None:
    html = tmp_path / "html"
    status = build_main(["-W", "--keep-going", "-b", "html", str(DOCS), str(html)])
    assert status == 0, "sphinx-build -W failed (warnings above)"

    index = _page(html, "index.html")
    for page in ("getting_started", "oasis", "experiments", "notebooks", "api"):
        assert f'href="{page}.html"' in index, page

    # the paper page is docs/oasis.md itself: its title and a section of it
    oasis = _page(html, "oasis.html")
    assert "OASiS (Bao, Peng, Wu, Li, INFOCOM 2018)" in oasis
    assert "Readings of the pseudo-code" in oasis

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
