# Every target works from a fresh clone: the venv is created and the package
# (with its dev extra) installed on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast test-explore lint browser docs figures figures-quick figures-report notebooks bench diagnoses clean

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/optsched demo
	@echo
	@echo "optsched is installed in $(VENV): run 'source $(VENV)/bin/activate' to put"
	@echo "'optsched' on your PATH (or call $(BIN)/optsched directly)."

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy optsched models

# Test tiers (tests/conftest.py marks the slow tests and keeps tests that share
# a fixture or a figure quick run on one pytest-xdist worker).  Bytecode is
# written even if PYTHONDONTWRITEBYTECODE is set: rewriting the asserts of
# every test module again costs each worker seconds per run.
test test-fast test-explore: export PYTHONDONTWRITEBYTECODE :=

# the full suite, what CI runs: lint, then every test and notebook on both
# cores, with the 15 slowest tests listed at the end (the browser test of the
# site needs Chromium: `browser` installs it when missing)
test: lint browser
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup --durations=15 --nbmake notebooks tests

# the edit loop: unit, hypothesis and brute-force tests (not slow, no notebooks)
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup -m "not slow" tests

# fresh random hypothesis examples (every other run draws the same ones, the
# "ci" profile of tests/conftest.py): looks for new counterexamples
test-explore: $(STAMP)
	HYPOTHESIS_PROFILE=explore $(BIN)/python -m pytest -q -n 2 --dist loadgroup -m "not slow" tests

# full runs (hours on 2 cores); claims kept in paper_figures/claims, README table rebuilt
figures: $(STAMP)
	$(BIN)/optsched figure run all --record
	$(BIN)/optsched figure report

figures-quick: $(STAMP)
	$(BIN)/optsched figure run all --quick

# rebuild the findings table of paper_figures/README.md from paper_figures/claims
figures-report: $(STAMP)
	$(BIN)/optsched figure report

# the documentation site (docs/conf.py): pages of docs/, the notebooks with
# their committed outputs, the API reference from the docstrings; every
# warning is an error
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html

# headless Chromium for tests/test_docs_browser.py: Debian's `chromium`, driven
# by Playwright (which never downloads a browser); installed with apt-get
# (as root, else through sudo) when no `chromium` is on PATH and
# OPTSCHED_CHROMIUM does not name another binary
browser:
	@if [ -n "$$OPTSCHED_CHROMIUM" ] || command -v chromium >/dev/null 2>&1; then exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
		echo "make browser: WARNING: no 'chromium' on PATH and no apt-get to install" \
			"it; install Chromium with your package manager, or set" \
			"OPTSCHED_CHROMIUM to a Chromium binary (the browser test is skipped)" >&2; \
		exit 0; \
	fi; \
	if [ "$$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi; \
	echo "make browser: installing Debian's chromium (apt-get)"; \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium || \
	echo "make browser: WARNING: apt-get could not install chromium;" \
		"tests/test_docs_browser.py will be skipped" >&2

# re-execute the teaching notebooks in place, keeping their outputs
notebooks: $(STAMP)
	$(BIN)/python tools/run_notebooks.py

bench: $(STAMP)
	$(BIN)/python -m benchmarks.oasis_bench
	$(BIN)/python -m benchmarks.hetero_bench
	$(BIN)/python -m benchmarks.hetero_exact_scale
	$(BIN)/python -m benchmarks.oasis_levers
	$(BIN)/python -m benchmarks.edgecloud_bench
	$(BIN)/python -m benchmarks.okita_bench
	$(BIN)/python -m benchmarks.asrpt_bench

# Diagnoses of the papers' headline claims that do not reproduce (ablations,
# one reading or knob at a time; 15-25 min each on one core; tables in
# docs/<key>.md, "Diagnosis" sections)
diagnoses: $(STAMP)
	$(BIN)/python -m benchmarks.asrpt_ablation
	$(BIN)/python -m benchmarks.edgecloud_diagnosis
	$(BIN)/python -m benchmarks.hetero_throughput_sensitivity
	$(BIN)/python -m benchmarks.okita_cost_reading
	$(BIN)/python -m benchmarks.oasis_fig3_diagnosis

clean:
	rm -rf $(VENV) paper_figures/out .pytest_cache build optsched.egg-info docs/_build docs/api/_autosummary docs/gallery
