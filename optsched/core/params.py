"""Algorithm parameters: one frozen dataclass per algorithm family.

Every registered algorithm has the signature ``(inst, /, *, seed=0,
params=None) -> Schedule`` (:class:`optsched.core.protocols.Algorithm`).
``params`` is ``None`` (the paper's defaults) or a frozen dataclass of the
algorithm's family, in the style of PyVRP's ``...Params`` (e.g.
``OkitaParams(keep_ps_on_delay=False)``,
``AOnlineParams(speed=1.5)``); an algorithm without parameters takes
:class:`NoParams`.  Callers that record the parameters of a run use
:func:`params_dict`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

P = TypeVar("P")


@dataclasses.dataclass(frozen=True)
class NoParams:
    """Parameters of an algorithm that has none (``params_dict`` gives ``{}``)."""


def params_dict(params: Any) -> dict[str, Any]:
    """The fields of ``params`` as a dict (``dataclasses.asdict``); ``None`` -> ``{}``.

    Raises
    ------
    TypeError
        When ``params`` is neither None nor a dataclass instance.
    """
    if params is None:
        return {}
    if not dataclasses.is_dataclass(params) or isinstance(params, type):
        raise TypeError(
            f"params: must be a parameter dataclass or None, got {params!r}"
        )
    return dataclasses.asdict(params)


def resolve(params: P | None, cls: type[P], algorithm: str) -> P:
    """``params``, or ``cls()`` (the defaults) when it is None.

    Raises
    ------
    TypeError
        When ``params`` is not a ``cls`` (names the algorithm, the expected
        and the given type).
    """
    if params is None:
        return cls()
    if not isinstance(params, cls):
        raise TypeError(
            f"{algorithm}: params must be {cls.__name__} or None, "
            f"got {type(params).__name__} {params!r}"
        )
    return params
