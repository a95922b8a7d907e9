"""Package discovery only; every other setting is in pyproject.toml.

``optsched*`` is found as usual; two top-level folders are installed under
the package: ``models/`` as ``optsched.models`` (the Pyomo formulations) and
``paper_figures/`` as ``optsched.figures`` (the declarative figure specs).
Sub-packages of those folders are found too, so a new slice or a new
paper's figure folder needs no edit here or in pyproject.toml.
"""

from setuptools import find_packages, setup

MAPPED = {"optsched.models": "models", "optsched.figures": "paper_figures"}

packages = find_packages(include=["optsched", "optsched.*"])
for name, folder in MAPPED.items():
    packages += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir=MAPPED)
