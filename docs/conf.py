"""Sphinx configuration of the optsched documentation site (``make docs``).

The pages are the Markdown files of ``docs/`` (MyST), the teaching notebooks
(myst-nb, shown with their committed outputs: ``make test`` executes them, the
docs build does not) and an API reference generated from the docstrings
(autodoc + autosummary, numpydoc sections through napoleon).  ``make docs``
builds with ``-W --keep-going``: every warning fails the build.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import optsched

# local extensions: the figure gallery (docs/_ext/gallery.py)
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "optsched"
author = "optsched contributors"
copyright = "optsched contributors"
release = optsched.__version__
version = release

extensions = [
    "myst_nb",  # registers myst_parser for .md and the notebook reader for .ipynb
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx_copybutton",
    "gallery",  # docs/gallery/<key>.md from the specs and paper_figures/claims
]

source_suffix = {
    ".rst": "restructuredtext",  # first: autosummary writes its stubs as .rst
    ".md": "myst-nb",
    ".ipynb": "myst-nb",
}
root_doc = "index"
exclude_patterns = [
    "_build",
    "_static",
    "_ext",
    "**.ipynb_checkpoints",
    "Thumbs.db",
    ".DS_Store",
]

# --- MyST ------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
# "## Heading" anchors, so [text](page.md#heading) links resolve
myst_heading_anchors = 3

# --- notebooks: committed outputs, never executed here ----------------------
nb_execution_mode = "off"
nb_merge_streams = True

# --- API reference ---------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {
    "members": True,
    "show-inheritance": True,
    # a package's __all__ re-exports its modules' objects: document each
    # object once, in the module that defines it
    "ignore-module-all": True,
}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
# type hints name classes that are not themselves in the reference (numpy,
# pandas, Pyomo, stdlib internals): unresolved targets are not reported
nitpicky = False
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False

# --- HTML ------------------------------------------------------------------
html_theme = "furo"
html_title = f"optsched {release}"
html_static_path = ["_static"]
# jobs as bars on a timeline; without an icon every browser asks for a missing
# /favicon.ico (an HTTP 404 in the console)
html_favicon = "_static/favicon.svg"
# MathJax 3 served by the site itself (docs/_static/mathjax/README.md): the
# equations render offline, and the browser test needs no CDN
mathjax_path = "mathjax/tex-chtml.js"
copybutton_prompt_text = r"\$ "
copybutton_prompt_is_regexp = True


# --- docstrings: |x| is an absolute value or a cardinality ----------------
# The docstrings write ``|Psi|`` or ``|n~ - n|`` in plain text (never as an
# RST substitution, none is defined); escape the bars outside inline
# literals so docutils does not read them as undefined substitutions.
_LITERAL = re.compile(r"(``.+?``|`[^`]+`)")
_BARS = re.compile(r"(?<![\\\w|])\|(?=\S)([^|`\n]+?)(?<=\S)\|(?![\w|])")


def _escape_bars(
    app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    for k, line in enumerate(lines):
        parts = _LITERAL.split(line)
        parts[::2] = [_BARS.sub(r"\\|\1\\|", p) for p in parts[::2]]
        lines[k] = "".join(parts)


# --- a property listed in its class's "Attributes" section ------------------
# napoleon writes an ``.. attribute::`` entry for it and autodoc documents the
# property itself: keep the property's entry as the indexed one.
def _no_index_properties(
    app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    if what != "class":
        return
    for k in range(len(lines) - 1, -1, -1):
        m = re.fullmatch(r"\.\. attribute:: (\w+)", lines[k])
        if m and isinstance(getattr(obj, m.group(1), None), property):
            lines.insert(k + 1, "   :no-index:")


def setup(app: Any) -> None:
    app.connect("autodoc-process-docstring", _escape_bars)
    # after napoleon (priority 500) has turned the sections into directives
    app.connect("autodoc-process-docstring", _no_index_properties, priority=600)
