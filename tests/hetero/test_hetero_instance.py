"""Hetero instances: the Sec. IV-A example, validation, JSON round trip and the generator."""

import json
import math

import numpy as np
import pytest

from optsched.core.errors import InvalidInstanceError
from optsched.hetero.instance import (
    GPU_TYPES,
    MODELS,
    HeteroInstance,
    Job,
    Worker,
    example,
    generate,
    heterogeneity_degree,
)


def test_example_is_section_iv_a():
    """example() holds the corrected Eq. (9) matrix, Table III sizes and no communication."""
    inst = example()
    assert [j.name for j in inst.jobs] == ["ResNet18", "VGG19"]
    assert [j.dataset_size for j in inst.jobs] == [100_000, 50_000]
    assert [j.epochs for j in inst.jobs] == [200, 200]
    assert inst.gpu == ("T4", "T4", "V100", "V100")
    assert inst.rho.tolist() == [[275, 275, 644, 644], [884, 884, 1754, 1754]]
    assert inst.communication is False
    assert inst.predicted is None and inst.rho_hat is inst.rho


def test_table_iii_and_paper_throughputs():
    """MODELS carries Table III's sizes/epochs and the paper's four throughputs exactly."""
    table3 = {
        "ResNet101": (50_000, 200),
        "ResNet18": (100_000, 200),
        "VGG19": (50_000, 200),
        "AlexNet": (50_000, 100),
        "Transformer": (36_718, 3),
    }
    assert {m: (s.dataset_size, s.epochs) for m, s in MODELS.items()} == table3
    assert MODELS["ResNet18"].throughput["T4"] == 275
    assert MODELS["ResNet18"].throughput["V100"] == 644
    assert MODELS["VGG19"].throughput["T4"] == 884
    assert MODELS["VGG19"].throughput["V100"] == 1754


def test_throughput_table_follows_documented_formulas():
    """P100 is the rounded geometric mean and the estimates follow the documented MAC power law."""
    macs = {
        "ResNet101": 2.52,
        "ResNet18": 2.22,
        "VGG19": 0.40,
        "AlexNet": 0.015,
        "Transformer": 0.41,
    }
    g_t4 = math.log(884 / 275) / math.log(2.22 / 0.40)
    g_v100 = math.log(1754 / 644) / math.log(2.22 / 0.40)
    for name, spec in MODELS.items():
        t, v = spec.throughput["T4"], spec.throughput["V100"]
        assert spec.throughput["P100"] == round(math.sqrt(t * v))
        assert t == round(884 * (0.40 / macs[name]) ** g_t4)
        assert v == round(1754 * (0.40 / macs[name]) ** g_v100)


def test_json_round_trip_exact():
    """to_json / from_json round-trips to an equal instance, with and without prediction."""
    for inst in (example(), generate(3), generate(4, 3, 7, epsilon=0.2)):
        again = HeteroInstance.from_json(inst.to_json())
        assert again == inst
        assert np.array_equal(again.rho_hat, inst.rho_hat)


def test_same_seed_same_instance():
    """generate is deterministic in its seed and differs across seeds."""
    assert generate(1, epsilon=0.1) == generate(1, epsilon=0.1)
    assert generate(1, epsilon=0.1) != generate(2, epsilon=0.1)


def test_generator_default_layout():
    """Default: 1:1:1 GPU mix laid out type by type, 5 GPUs per node, distinct Table III jobs."""
    inst = generate(0, n_jobs=4, n_workers=15)
    assert inst.gpu == ("T4",) * 5 + ("P100",) * 5 + ("V100",) * 5
    assert inst.node.tolist() == [k // 5 for k in range(15)]
    names = [j.name for j in inst.jobs]
    assert len(set(names)) == 4 and set(names) <= set(MODELS)
    for i, job in enumerate(inst.jobs):
        spec = MODELS[job.name]
        assert (job.dataset_size, job.epochs) == (spec.dataset_size, spec.epochs)
        assert inst.rho[i].tolist() == [spec.throughput[g] for g in inst.gpu]
    assert inst.communication and inst.intra_gbps == 300 and inst.inter_gbps == 10


def test_generator_more_jobs_than_models():
    """With S > 5 models repeat and get distinct labels."""
    inst = generate(0, n_jobs=7, n_workers=9)
    names = [j.name for j in inst.jobs]
    assert len(set(names)) == 7
    assert all(n.split("#")[0] in MODELS for n in names)


def test_heterogeneity_degree_by_hand():
    """H (35) of [[1, 2], [1, 2]]: column sums 2 and 4, H = 6 / (2 * 2) = 1.5."""
    assert heterogeneity_degree(np.array([[1.0, 2.0], [1.0, 2.0]])) == pytest.approx(
        1.5
    )
    assert heterogeneity_degree(np.ones((3, 4))) == pytest.approx(1.0)


@pytest.mark.parametrize("target", [1.1, 1.15, 1.21, 1.26])
def test_generator_hits_heterogeneity_target(target):
    """The GPU counts are chosen so that H (35) lands near the Fig. 14 targets."""
    inst = generate(0, n_jobs=4, n_workers=15, heterogeneity=target)
    assert abs(inst.heterogeneity() - target) < 0.03
    assert inst.meta["heterogeneity"] == pytest.approx(inst.heterogeneity())


def test_heterogeneity_grows_with_v100_share():
    """More V100 instead of T4 raises H, as in Fig. 14's description."""
    hs = [
        generate(0, n_jobs=4, n_workers=15, gpu_mix=(6 - v, 0, v)).heterogeneity()
        for v in range(1, 6)
    ]
    assert hs == sorted(hs) and hs[0] < hs[-1]


def test_prediction_error_bounds():
    """Predicted throughput lies in [(1-eps) rho*, (1+eps) rho*] and differs from rho*."""
    inst = generate(5, n_jobs=4, n_workers=12, epsilon=0.3)
    ratio = inst.rho_hat / inst.rho
    assert (ratio >= 0.7).all() and (ratio <= 1.3).all()
    assert not np.allclose(ratio, 1.0)
    assert generate(5, epsilon=0.0).predicted is None


def test_fewer_workers_than_jobs_rejected():
    """K < S violates footnote 3 and raises naming the field."""
    with pytest.raises(InvalidInstanceError, match="n_workers"):
        generate(0, n_jobs=4, n_workers=3)
    with pytest.raises(InvalidInstanceError, match="workers: need K >= S"):
        HeteroInstance(
            jobs=(Job("a", 1, 1, 1.0), Job("b", 1, 1, 1.0)),
            workers=(Worker("T4", 0),),
            throughput=((1.0,), (1.0,)),
        )


def _data():
    return json.loads(generate(0, n_jobs=2, n_workers=3, epsilon=0.1).to_json())


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda d: d["jobs"][1].pop("epochs"), "jobs[1].epochs: missing"),
        (
            lambda d: d["jobs"][0].__setitem__("dataset_size", 0),
            "jobs[0].dataset_size (|Pi_i|)",
        ),
        (lambda d: d["jobs"][0].__setitem__("epochs", 1.5), "jobs[0].epochs (T_i)"),
        (
            lambda d: d["jobs"][1].__setitem__("model_size_mb", -1),
            "jobs[1].model_size_mb (D_i)",
        ),
        (lambda d: d["jobs"][0].__setitem__("name", ""), "jobs[0].name"),
        (lambda d: d["workers"][2].__setitem__("node", -1), "workers[2].node"),
        (lambda d: d["workers"][0].__setitem__("gpu", 7), "workers[0].gpu"),
        (lambda d: d["throughput"][1].__setitem__(2, 0.0), "throughput[1][2]"),
        (lambda d: d["throughput"][0].pop(), "throughput[0]: must have 3 entries"),
        (lambda d: d["throughput"].pop(), "throughput: must have 2 rows"),
        (lambda d: d["predicted"][0].__setitem__(0, "x"), "predicted[0][0]"),
        (lambda d: d.__setitem__("inter_gbps", 0), "inter_gbps"),
        (lambda d: d.__setitem__("inter_gbps", 500.0), "inter_gbps: must be <="),
        (lambda d: d.__setitem__("intra_gbps", "fast"), "intra_gbps"),
        (lambda d: d.__setitem__("communication", "yes"), "communication"),
        (lambda d: d.__setitem__("format", "optsched.oasis/1"), "format"),
        (lambda d: d.pop("workers"), "workers: missing"),
    ],
)
def test_malformed_json_names_field(mutate, needle):
    """Malformed instance JSON raises InvalidInstanceError naming the field."""
    d = _data()
    mutate(d)
    with pytest.raises(InvalidInstanceError) as info:
        HeteroInstance.from_json(json.dumps(d))
    assert needle in str(info.value)


def test_not_json():
    """Text that is not JSON raises InvalidInstanceError."""
    with pytest.raises(InvalidInstanceError):
        HeteroInstance.from_json("{not json")


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"epsilon": 1.0}, "epsilon"),
        ({"gpu_mix": (1, 1)}, "gpu_mix"),
        ({"heterogeneity": 0.5}, "heterogeneity"),
        ({"models": ["LeNet"]}, "models"),
    ],
)
def test_generator_arguments_validated(kwargs, needle):
    """Bad generator arguments raise InvalidInstanceError naming the argument."""
    with pytest.raises(InvalidInstanceError, match=needle):
        generate(0, **kwargs)


def test_gpu_types_order():
    """Workers are laid out in GPU_TYPES order (T4, P100, V100)."""
    assert GPU_TYPES == ("T4", "P100", "V100")
