"""One algorithm signature (issue 24 item 3): ``(inst, /, *, seed=0, params=None)``.

Every registered algorithm takes the instance positionally, ``seed`` and
``params`` by keyword; ``params`` is None or the algorithm family's frozen
``...Params`` dataclass, whose defaults give the same schedule as None.
:data:`FAMILY` lists the expected class of every algorithm (32) by hand.
"""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import optsched
from optsched.asrpt.online import AsrptParams
from optsched.asrpt.variants import AblationParams
from optsched.core.params import NoParams, params_dict
from optsched.edgecloud.baselines import TiresiasParams
from optsched.edgecloud.online import AOnlineParams
from optsched.hetero.baselines import EnumerationParams, GavelParams
from optsched.hetero.online import HasParams, JpsParams
from optsched.oasis.baselines import DormParams, FifoParams, RrhParams
from optsched.oasis.online import OasisParams
from optsched.okita.baselines import BaselineParams
from optsched.okita.online import OkitaParams

FAMILY: dict[str, dict[str, type]] = {
    "oasis": {
        "oasis": OasisParams,
        "fifo": FifoParams,
        "drf": NoParams,
        "rrh": RrhParams,
        "dorm": DormParams,
        "oasis_lfloor": NoParams,
        "oasis_eta_one": NoParams,
        "oasis_per_class": NoParams,
    },
    "hetero": {
        "has": HasParams,
        "jps": JpsParams,
        "optimus": NoParams,
        "optimus_lb": NoParams,
        "exhaustive": EnumerationParams,
        "gavel": GavelParams,
        "las": EnumerationParams,
    },
    "edgecloud": {
        "a_online": AOnlineParams,
        "a_online_e": AOnlineParams,
        "srtf": NoParams,
        "tiresias_l": TiresiasParams,
        "batchsche": NoParams,
    },
    "okita": {
        "okita": OkitaParams,
        "fifo": BaselineParams,
        "drf": BaselineParams,
        "oasis": BaselineParams,
    },
    "asrpt": {
        "asrpt": AsrptParams,
        "asrpt_perfect": AsrptParams,
        "asrpt_eager": AsrptParams,
        "asrpt_consolidate": AblationParams,
        "spjf": NoParams,
        "spwf": NoParams,
        "wcs_duration": NoParams,
        "wcs_workload": NoParams,
        "wcs_subtime": NoParams,
    },
}

CASES = [(key, name) for key, algs in FAMILY.items() for name in algs]


def test_family_table_covers_every_registered_algorithm() -> None:
    """The table above names exactly the 33 registered algorithms."""
    assert {k: list(v) for k, v in FAMILY.items()} == {
        k: list(optsched.get_paper(k).algorithms) for k in optsched.PAPERS
    }
    assert len(CASES) == 33


@pytest.mark.parametrize(("key", "name"), CASES)
def test_signature_is_inst_seed_params(key: str, name: str) -> None:
    """The callable's parameters are exactly inst (positional), seed=0, params=None."""
    fn = optsched.get_paper(key).algorithms[name]
    params = list(inspect.signature(fn).parameters.values())
    got = [(p.name, p.kind, p.default) for p in params]
    assert got == [
        ("inst", inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.empty),
        ("seed", inspect.Parameter.KEYWORD_ONLY, 0),
        ("params", inspect.Parameter.KEYWORD_ONLY, None),
    ]


@pytest.mark.parametrize(("key", "name"), CASES)
def test_default_params_equal_none_and_wrong_type_is_refused(
    key: str, name: str
) -> None:
    """``params=Cls()`` gives the schedule of ``params=None``; another type is a TypeError."""
    cls = FAMILY[key][name]
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    p = optsched.get_paper(key)
    inst = p.generate(seed=1, **p.demo_size)
    assert p.run(name, inst, params=cls()).to_json() == p.run(name, inst).to_json()
    with pytest.raises(TypeError, match="params"):
        p.run(name, inst, params=object())


def test_params_dict() -> None:
    """``params_dict`` is ``dataclasses.asdict``; None gives {} and a non-dataclass fails."""
    assert params_dict(None) == {}
    assert params_dict(NoParams()) == {}
    assert params_dict(AOnlineParams(speed=1.5)) == {"speed": 1.5}
    assert params_dict(OkitaParams(alpha1=2.0))["alpha1"] == 2.0
    with pytest.raises(TypeError, match="params"):
        params_dict({"speed": 1.5})


def test_params_are_immutable() -> None:
    """Parameter objects are frozen: a run cannot change the caller's settings."""
    p = JpsParams()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.n_samples = 3  # type: ignore[misc]


def test_params_change_the_run() -> None:
    """A field of ``params`` reaches the algorithm (OASiS with ``ul_scale``)."""
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=0, **p.demo_size)
    a = p.run("oasis", inst).meta["params"]
    b = p.run("oasis", inst, params=OasisParams(ul_scale=4.0)).meta["params"]
    assert b.ul_scale == 4.0 and a.ul_scale == 1.0
