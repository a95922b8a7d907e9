"""Finding the installed figure specs: :func:`specs` and :func:`get_spec`.

Specs live in ``paper_figures/<key>/<name>.py`` as a module-level ``SPEC``
(an :class:`~optsched.core.spec.Experiment`); the package installs them as
``optsched.figures.<key>.<name>`` (:data:`SPECS_PACKAGE`), so that they are
imported, never loaded by path.
"""

from __future__ import annotations

import difflib
import importlib
import itertools
import pkgutil

from .spec import Experiment

#: Package under which the figure specs are installed (``paper_figures/``).
SPECS_PACKAGE = "optsched.figures"


def specs() -> dict[str, Experiment]:
    """Every installed figure spec, by name, in (paper, name) order."""
    root = importlib.import_module(SPECS_PACKAGE)
    found: dict[str, Experiment] = {}
    for info in sorted(
        pkgutil.walk_packages(root.__path__, SPECS_PACKAGE + "."), key=lambda i: i.name
    ):
        if info.ispkg:
            continue
        mod = importlib.import_module(info.name)
        spec = getattr(mod, "SPEC", None)
        if isinstance(spec, Experiment):
            if spec.name in found:
                raise ValueError(f"figure name {spec.name!r} is defined twice")
            found[spec.name] = spec
    return dict(sorted(found.items(), key=lambda kv: (kv[1].paper, _natural(kv[0]))))


def _natural(name: str) -> tuple:
    parts = []
    for k, grp in itertools.groupby(name, str.isdigit):
        s = "".join(grp)
        parts.append((0, int(s), "") if k else (1, 0, s))
    return tuple(parts)


def get_spec(name: str) -> Experiment:
    """The spec called ``name`` (also ``key/name``), or the one spec whose name
    starts with ``name``: any unique prefix (``fig5``, ``fig5_perf``, or
    ``edgecloud/fig9`` when several papers have a Fig. 9).  A prefix that
    ends a word (``fig1`` before ``fig1_...``) wins over longer words
    (``fig10_...``).  Raises ``KeyError`` saying ``ambiguous`` with the
    candidates, or ``unknown`` with the closest names."""
    all_specs = specs()
    key, _, name = name.rpartition("/")
    if key:
        all_specs = {n: s for n, s in all_specs.items() if s.paper == key}
    if name in all_specs:
        return all_specs[name]
    for sep in ("_", ""):
        hits = [n for n in all_specs if n.startswith(name + sep)]
        if len(hits) == 1:
            return all_specs[hits[0]]
    label = f"{key}/{name}" if key else name
    if hits:
        raise KeyError(f"figure {label!r}: ambiguous (candidates: {', '.join(hits)})")
    close = difflib.get_close_matches(name, all_specs, n=4, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    raise KeyError(f"figure {label!r}: unknown ({hint}all: optsched figure list)")
