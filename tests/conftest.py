"""Test tiers and xdist groups for the whole suite (one place, no test file edits).

Tiers
-----
``make test`` runs every test and notebook on both cores
(``pytest -n 2 --dist loadgroup --durations=15 --nbmake notebooks tests``); CI
runs it.  ``make test-fast`` runs ``pytest -m "not slow" tests``: the unit,
hypothesis and brute-force tests, the edit loop (under a minute on 2 cores).

A test is marked ``slow`` here when

1. its file matches :data:`SLOW_FILES` (notebooks, worst-case searches and
   re-solves of the saved instances, the benchmark ``--quick`` runs), or
2. it requests a fixture of :data:`SLOW_FIXTURES` (figure quick runs, and
   shared fixtures whose set-up takes seconds), or
3. its node id (without parameters, or with them) is in :data:`SLOW_TESTS`:
   the tests that took more than :data:`SLOW_S` = 1 s (set-up + call +
   teardown) in one sequential run of the whole suite,
   ``pytest -p no:cacheprovider --durations=0 notebooks tests`` on the
   2-core machine shared with other jobs (load 3-7, so about 0.5 s idle),
   and the tests that took more than 2 s in ``-n 2`` runs of the fast
   tier (tests added since, process pools).  Left fast although near the line: the
   structure checks ``tests/test_import_cycles.py`` and
   ``tests/test_function_size.py`` (the refactoring edit loop needs them),
   and one case that took 1.9 s once and 0.2 s in every other run.

4. it is in a seed sweep of :data:`SEED_SWEEPS` beyond the first seeds
   (files whose tests share one memo of optima per seed).

Nothing is timed at run time: when a test becomes slow, measure again and
add it to :data:`SLOW_TESTS` (or its file to :data:`SLOW_FILES`).

Hypothesis profiles
-------------------
Every run draws the same examples: the profile ``ci`` (loaded here, the
default) seeds Hypothesis from a hash of each test function
(``derandomize=True``) and keeps no example database, so ``make test``,
``make test-fast`` and CI test the same examples on every run and machine
(until the test or Hypothesis changes): a red run is red again, and a
generator seed that a test cannot take shows up when the test is written,
not in a later CI run.  ``make test-explore`` loads
``explore`` instead (``HYPOTHESIS_PROFILE=explore``): fresh random examples
on every run, five times as many where a test sets no ``max_examples``,
to look for new counterexamples; a
failure it finds is pinned with ``@example`` in its test.  A test that sets
``derandomize`` itself keeps its own setting under both.

xdist groups
------------
``make test`` distributes with ``--dist loadgroup``: tests without an
``xdist_group`` mark go to whichever worker is free, tests of one group run
on one worker.  Tests are grouped here when they share a module- or
session-scoped fixture defined in ``tests/`` (each xdist worker has its own
fixture cache, so a shared fixture split over two workers is built twice;
``wheel_files`` builds a wheel in the repository's ``build/`` folder, which
two workers must not do at once), the tests of a module that memoizes
results in a ``functools.cache`` function (one optimum per seed read by
several tests) run on one worker, and the figure tests that read the same
spec's quick run (``quick_run`` caches one run per spec and worker) are
grouped by spec.  Every other test writes only below ``tmp_path``; no test
depends on another's order except through these shared caches.
"""

from __future__ import annotations

import ast
import fnmatch
import inspect
import os
import warnings
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import settings

pytest_plugins = ["pytester"]  # tests/test_packaging.py runs the rules on a toy suite

#: Hypothesis profiles (module docstring, "Hypothesis profiles").
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile(
    "explore",
    derandomize=False,
    max_examples=5 * settings.get_profile("default").max_examples,
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: Threshold (seconds, sequential run on the loaded machine) of rule 3.
SLOW_S = 1.0

#: Files (glob on the path relative to the repository root) whose tests are slow.
SLOW_FILES: tuple[str, ...] = (
    "notebooks/*.ipynb",  # nbmake: each notebook executed again (3-28 s)
    "tests/test_worst_case_*.py",  # worst-case searches, saved instances re-solved
    "tests/test_*_quick.py",  # benchmark scripts' --quick runs (3-20 s)
    "tests/test_docs_build.py",  # Sphinx build of the site (80 s on the loaded machine)
)

#: Fixtures whose users are slow: the fixture takes seconds to build.
SLOW_FIXTURES: dict[str, str] = {
    "quick_run": "a figure spec's quick run (tests/paper_figures/conftest.py)",
    "cg_runs": "column generation on four instances (5 s)",
    "wheel_files": "pip wheel of the working tree (3 s)",
    "small_search": "a 13-evaluation worst-case search",
    "docs_site": "Sphinx build of the documentation site (90-120 s)",
}

#: Seed sweeps over a memo of optima per seed (``values(seed)``): timing one
#: test says little (the first test of a seed solves every LP), the sweep
#: costs 14 s in the fast tier.  It keeps the first N seeds of each
#: ``seed`` parametrization of these files; ``make test`` runs all of them.
SEED_SWEEPS: dict[str, int] = {
    "tests/edgecloud/test_edgecloud_relax.py": 4,
    "tests/edgecloud/test_edgecloud_relax_storage.py": 4,
}

#: Node ids measured above SLOW_S (a bare function name covers all its parameters).
#: Worst-case searches of test_core_adversary.py whose run failed during the
#: measurement (another change in progress) are listed as searches.
SLOW_TESTS: frozenset[str] = frozenset(
    {
        "tests/asrpt/test_asrpt_offline.py::test_bounds_sandwich_the_optimum",
        "tests/edgecloud/test_edgecloud_bp.py::test_medium_instance_below_the_proven_optimum",
        "tests/edgecloud/test_edgecloud_bp.py::test_branching_closes_the_master_gap",
        "tests/edgecloud/test_edgecloud_colgen.py::test_milp_pricing_after_a_solve_with_other_threads",
        "tests/okita/test_okita_colgen.py::test_solve_offline_takes_the_bound",
        "tests/okita/test_okita_colgen.py::test_pricing_after_a_solve_with_other_threads",
        "tests/okita/test_okita_colgen.py::test_every_round_below_the_proven_optimum",
        "tests/okita/test_okita_formulation_v2.py::test_v2_equals_v1_on_generated",
        "tests/okita/test_okita_formulation_v2.py::test_v2_equals_v1_and_brute_force_on_tiny",
        "tests/asrpt/test_asrpt_offline.py::test_milp_equals_brute_force_random",
        "tests/core/test_bound_kind.py::test_every_paper_reports_a_valid_named_bound",
        "tests/core/test_bound_kind.py::test_oasis_colgen_bound_is_valid",
        "tests/core/test_confirm_scip.py::test_confirm_keeps_the_highs_optimum[edgecloud]",
        "tests/core/test_confirm_scip.py::test_confirm_keeps_the_highs_optimum[hetero]",
        "tests/core/test_confirm_scip.py::test_confirm_keeps_the_highs_optimum[okita]",
        "tests/core/test_core_adversary.py::test_anneal_with_several_starts_begins_at_the_worst_generated_instance",
        "tests/core/test_core_adversary.py::test_cli_worst_case_writes_files_and_prints_the_bound",
        "tests/core/test_core_adversary.py::test_evolve_is_deterministic_and_counts_invalid_draws",
        "tests/core/test_core_adversary.py::test_mutations_are_valid_single_changes",
        "tests/core/test_core_adversary.py::test_oasis_search_runs_and_finds_at_least_the_start",
        "tests/core/test_core_adversary.py::test_search_space_draws_are_valid_at_the_demo_size[asrpt]",
        "tests/core/test_core_experiment.py::test_cli_figure_list_run_report",
        "tests/core/test_core_experiment.py::test_same_seed_same_csv_serial_and_pool",
        "tests/core/test_core_ratio.py::test_runs_past_T_get_ratios_on_the_extended_instance",
        "tests/core/test_core_ratio.py::test_same_seed_same_table_serial_and_parallel",
        "tests/core/test_core_ratio.py::test_time_limit_gives_interval_not_point",
        "tests/core/test_core_ratio.py::test_undeclared_or_false_declarations_raise",
        "tests/core/test_core_sweep.py::test_local_pool_is_reused_across_calls_with_the_same_results",
        "tests/core/test_core_sweep.py::test_serial_and_process_pool_agree_in_order",
        "tests/core/test_verify.py::test_the_committed_hetero_table_ii_record_is_reproduced",
        "tests/core/test_verify.py::test_cli_figure_verify_exit_codes",
        "tests/core/test_verify.py::test_the_oasis_fig5_record_reproduces_on_its_kernels",
        "tests/core/test_experiment_layer.py::test_edgecloud_fig9_reuses_fig7_rows",
        "tests/core/test_horizon.py::test_worst_case_evaluate_applies_the_rule",
        "tests/core/test_protocols.py::test_offline_result_status_is_a_status_and_schedule_the_papers[edgecloud]",
        "tests/edgecloud/test_edgecloud_certificate.py::test_weak_duality_chain[3]",
        "tests/edgecloud/test_edgecloud_instance.py::test_calibration_at_paper_scale",
        "tests/edgecloud/test_edgecloud_milp.py::test_generated_instances_optimal_and_checked",
        "tests/edgecloud/test_edgecloud_paper.py::test_ratios_on_demo_instances_are_certified_and_at_least_one",
        "tests/edgecloud/test_edgecloud_relax.py::test_relaxation_chain[10]",
        "tests/edgecloud/test_edgecloud_relax.py::test_relaxation_chain[11]",
        "tests/edgecloud/test_edgecloud_relax.py::test_strong_duality_lp4_equals_dual6[11]",
        "tests/edgecloud/test_edgecloud_relax.py::test_strong_duality_lp4_equals_dual6[1]",
        "tests/edgecloud/test_edgecloud_relax.py::test_strong_duality_lp4_equals_dual6[2]",
        "tests/edgecloud/test_edgecloud_relax.py::test_strong_duality_lp4_equals_dual6[3]",
        "tests/edgecloud/test_edgecloud_relax.py::test_strong_duality_lp4_equals_dual6[7]",
        "tests/edgecloud/test_edgecloud_relax.py::test_strong_duality_lp4_equals_dual6[8]",
        "tests/edgecloud/test_edgecloud_relax_storage.py::test_lemma1_chain_with_storage[10]",
        "tests/edgecloud/test_edgecloud_relax_storage.py::test_lemma1_chain_with_storage[1]",
        "tests/edgecloud/test_edgecloud_relax_storage.py::test_lemma1_chain_with_storage[4]",
        "tests/edgecloud/test_edgecloud_relax_storage.py::test_lemma1_chain_with_storage[6]",
        "tests/edgecloud/test_edgecloud_relax_storage.py::test_milp_optimum_is_a_feasible_point_of_ilp8[10]",
        "tests/hetero/test_hetero_market_engine.py::test_engines_identical",
        "tests/hetero/test_hetero_milp.py::test_generated_instances_equal_exhaustive",
        "tests/hetero/test_hetero_milp.py::test_optimum_equals_brute_force",
        "tests/hetero/test_hetero_milp.py::test_single_milp_equals_brute_force_of_its_underestimator",
        "tests/hetero/test_hetero_milp.py::test_time_limit_keeps_a_valid_bound",
        "tests/hetero/test_hetero_more_baselines.py::test_new_baselines_pass_checker",
        # 0.7 s after the brute-force tests filled its memo, 7 s in the fast tier
        "tests/models/test_oasis_models.py::test_brute_force_is_not_trivial",
        "tests/models/test_oasis_models.py::test_column_generation_retries_a_master_lp_solve_error",
        "tests/models/test_oasis_models.py::test_milp_feasible_and_beats_oasis",
        "tests/models/test_oasis_models.py::test_milp_matches_brute_force[10]",
        "tests/models/test_oasis_models.py::test_milp_matches_brute_force[13]",
        "tests/models/test_oasis_models.py::test_milp_matches_brute_force[1]",
        "tests/models/test_oasis_models.py::test_milp_matches_brute_force[4]",
        "tests/models/test_oasis_models.py::test_milp_matches_brute_force[7]",
        "tests/oasis/test_oasis_baselines.py::test_schedules_pass_checker[dorm]",
        "tests/oasis/test_oasis_online.py::test_long_horizon_prices_finite",
        "tests/oasis/test_oasis_variants.py::test_theorem4_links_on_random_instances",
        "tests/okita/test_okita_baselines.py::test_baselines_with_fractional_chunks_per_worker",
        "tests/okita/test_okita_instance.py::test_witness_feasible_at_paper_size",
        "tests/okita/test_okita_milp.py::test_enough_feasible_tiny_instances",
        "tests/okita/test_okita_milp.py::test_generated_optimum_below_local_first[0]",
        "tests/okita/test_okita_milp.py::test_generated_optimum_below_local_first[1]",
        "tests/okita/test_okita_milp.py::test_generated_optimum_below_local_first[3]",
        "tests/okita/test_okita_milp.py::test_no_start_same_optimum",
        "tests/edgecloud/test_edgecloud_local_search.py::test_small_instances_never_beat_the_proven_optimum",
        "tests/edgecloud/test_edgecloud_local_search.py::test_random_small_instances_checked_and_not_worse",
        "tests/oasis/test_oasis_local_search.py::test_random_small_instances_checked_and_not_worse",
        "tests/okita/test_okita_local_search.py::test_hand_instance_trades_latency_for_exchange",
        "tests/okita/test_okita_local_search.py::test_tiny_instances_never_beat_the_proven_optimum",
        "tests/okita/test_okita_local_search.py::test_search_is_deterministic_and_every_accepted_move_improves",
        "tests/okita/test_okita_local_search.py::test_default_start_improves_local_first",
        "tests/okita/test_okita_local_search.py::test_random_small_instances_checked_and_not_worse",
        "tests/okita/test_okita_one_shot.py::test_dta_is_feasible_for_7_and_never_beats_its_optimum",
        "tests/okita/test_okita_online.py::test_checker_accepts_generated",
        "tests/paper_figures/test_asrpt_figures.py::test_fig6_grid_on_dask_gives_identical_csv",
        "tests/paper_figures/test_asrpt_figures.py::test_predictors_run_asrpt_only_and_perfect_is_labelled",
        "tests/paper_figures/test_asrpt_figures.py::test_total_time_rows_match_fresh_runs_and_the_checker",
        "tests/paper_figures/test_edgecloud_figures.py::test_competitive_ratio_bounds_are_ordered",
        "tests/paper_figures/test_hetero_figures_categories.py::test_fig46_k15_against_the_paper",
        "tests/paper_figures/test_okita_figures.py::test_performance_ratio_against_a_fresh_solve",
        "tests/test_cli_edges.py::test_broken_pipe_quiet_exit",
        "tests/test_cli_edges.py::test_ctrl_c_during_ratio",
        "tests/test_cli_edges.py::test_unreachable_dask_scheduler_fails_fast",
        "tests/test_every_algorithm_checked.py::test_every_algorithm_passes_the_checker",
        "tests/test_oasis_levers.py::test_every_lever_keeps_the_proven_optimum[1]",
        "tests/test_oasis_levers.py::test_oasis_levers_quick",
        "tests/test_offline_edges.py::test_asrpt_huge_iterations_honour_time_limit[False]",
        "tests/test_offline_edges.py::test_oasis_deadline_during_model_building",
        "tests/test_readme_examples.py::test_readme_example_runs_as_script",
        "tests/test_schedule_roundtrip.py::test_round_trip_keeps_verdict_and_json[oasis]",
    }
)


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """One build of the documentation site per session, as ``make docs``
    (``sphinx-build -W --keep-going``), into a temporary folder: ``(html
    folder, sphinx-build exit status)``.  Shared by tests/test_docs_build.py
    and tests/test_docs_browser.py (one xdist group, so one build)."""
    from sphinx.cmd.build import build_main
    from sphinx.deprecation import RemovedInSphinx11Warning

    docs = Path(__file__).resolve().parents[1] / "docs"
    html = tmp_path_factory.mktemp("docs") / "html"
    with warnings.catch_warnings():  # 3,000 notices about extensions' internals
        warnings.simplefilter("ignore", RemovedInSphinx11Warning)
        status = build_main(["-W", "--keep-going", "-b", "html", str(docs), str(html)])
    return html, status


def slow_reason(
    relpath: str, nodeid: str, fixtures: Iterable[str], seed_index: int | None = None
) -> str | None:
    """Why a test is slow (rules 1-4 of the module docstring), or None.

    Parameters
    ----------
    relpath
        The test file relative to the repository root, with ``/`` separators.
    nodeid
        The pytest node id, ``<relpath>::<name>[<params>]``.
    fixtures
        Names of the fixtures the test requests, directly or not.
    seed_index
        Position of the test's ``seed`` in its parametrization (None if the
        test has no ``seed`` parameter).
    """
    for pattern in SLOW_FILES:
        if fnmatch.fnmatch(relpath, pattern):
            return f"file matches {pattern}"
    for name in fixtures:
        if name in SLOW_FIXTURES:
            return f"uses fixture {name}: {SLOW_FIXTURES[name]}"
    if nodeid in SLOW_TESTS or nodeid.split("[", 1)[0] in SLOW_TESTS:
        return f"measured above {SLOW_S} s"
    keep = SEED_SWEEPS.get(relpath)
    if keep is not None and seed_index is not None and seed_index >= keep:
        return f"seed sweep beyond its first {keep} seeds"
    return None


def _string_literals(obj: object) -> set[str]:
    """The string constants in the source of a function or module (empty if none)."""
    try:
        tree = ast.parse(inspect.getsource(obj))  # type: ignore[arg-type]
    except (OSError, TypeError, SyntaxError):
        return set()
    return {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def _spec_names() -> set[str]:
    """Names of the figure specs (empty if the registry cannot be read)."""
    try:
        from optsched.core import experiment

        return set(experiment.specs())
    except Exception:  # noqa: BLE001 - grouping is an optimisation only
        return set()


def _specs_read(item: pytest.Function, specs: set[str]) -> set[str]:
    """The figure specs whose quick run ``item`` reads (via ``quick_run``)."""
    params = getattr(item, "callspec", None)
    found = {v for v in (params.params.values() if params else ()) if v in specs}
    found |= _string_literals(item.function) & specs
    if not found:  # e.g. through a module fixture naming the spec in a constant
        found = _string_literals(item.module) & specs
    return found or {"quick_run"}


def _has_memo(module: object) -> bool:
    """Whether a test module defines a ``functools.cache``/``lru_cache`` function.

    Its tests share results through that memo (e.g. one optimum per seed
    read by several tests): split over two workers, each would compute them.
    """
    name = getattr(module, "__name__", None)
    return any(
        callable(v) and hasattr(v, "cache_info") and v.__module__ == name
        for v in vars(module).values()
    )


def group_keys(
    items: list[pytest.Item], specs: set[str] | None = None
) -> dict[str, str]:
    """``{nodeid: group}`` for the tests that must share one xdist worker.

    Keys of one test are the figure specs it reads through ``quick_run``,
    the shared (module- or session-scoped) fixtures from ``tests/`` it
    requests, and its module when the module memoizes results
    (:func:`_has_memo`); tests linked by a common key form one group
    (union-find), named by its smallest key.
    """
    parent: dict[str, str] = {}

    def find(k: str) -> str:
        parent.setdefault(k, k)
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    keys_of: dict[str, list[str]] = {}
    memo: dict[str, bool] = {}
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:  # notebooks
            continue
        keys: list[str] = []
        module = getattr(item, "module", None)
        if module is not None:
            if module.__name__ not in memo:
                memo[module.__name__] = _has_memo(module)
            if memo[module.__name__]:
                keys.append(f"module:{item.nodeid.split('::', 1)[0]}")
        for name in info.names_closure:
            defs = info.name2fixturedefs.get(name)
            if not defs:
                continue
            fdef = defs[-1]
            if name == "quick_run":
                if specs is None:
                    specs = _spec_names()
                keys += sorted(f"spec:{s}" for s in _specs_read(item, specs))
            elif fdef.scope != "function" and fdef.baseid.startswith("tests"):
                keys.append(f"fixture:{fdef.baseid}::{name}")
        if keys:
            keys_of[item.nodeid] = keys
            for k in keys[1:]:
                parent[find(k)] = find(keys[0])
    roots: dict[str, str] = {}
    for keys in keys_of.values():
        for k in keys:
            r = find(k)
            roots[r] = min(roots.get(r, k), k)
    return {nid: roots[find(keys[0])] for nid, keys in keys_of.items()}


@pytest.hookimpl(tryfirst=True)  # before xdist's hook reads the xdist_group marks
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Mark slow tests (rules of the module docstring) and group shared fixtures."""
    for item in items:
        rel = item.nodeid.split("::", 1)[0]  # the file, relative to the rootdir
        fixtures = getattr(item, "fixturenames", ())
        callspec = getattr(item, "callspec", None)
        seed_index = callspec.indices.get("seed") if callspec else None
        if slow_reason(rel, item.nodeid, fixtures, seed_index):
            item.add_marker(pytest.mark.slow)
    groups = group_keys(items)
    for item in items:
        if item.nodeid in groups:
            item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))
