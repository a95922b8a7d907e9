"""Table II's task: Heavy-Edge against the exact placement MILP."""

from __future__ import annotations

from optsched.asrpt.experiments import PLACEMENT_COLUMNS, placement_case


def test_placement_case_orders_the_three_alphas():
    for model in ("VGG19", "GPT-175B"):
        for case in range(3):
            rows = placement_case({"model": model, "gpus": 8, "case": case})
            assert rows
            for r in rows:
                assert list(r) == PLACEMENT_COLUMNS
                assert r["ilp_status"] == r["same_status"] == "optimal"
                # any free GPU <= the same GPUs as Heavy-Edge <= Heavy-Edge
                assert r["ilp_alpha_ms"] <= r["same_alpha_ms"] * (1 + 1e-9)
                assert r["same_alpha_ms"] <= r["he_alpha_ms"] * (1 + 1e-9)
                assert sum(map(int, r["free"].split())) >= 8
