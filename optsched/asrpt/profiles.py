"""DNN model profiles of Table I and their training configurations (Luo et al., Sec. V-A-1-b).

The paper profiles nine models on GPUs and derives their distributed
training configurations with the pipeline planner of its ref. [20], but it
prints only each model's parameter count and mini-batch size (Table I), not
the per-stage times ``p^f``, ``p^b`` or sizes ``d^in``, ``d^out``, ``h``.
This module is a documented substitute (docs/errata.md, ``asrpt``): every
model is a short list of *blocks* (consecutive layers) with its multiply-
accumulates per sample, trainable parameters and output activations per
sample, taken from the models' published architectures:

=============  ============================================================
VGG19          ImageNet 224x224: conv1-2 / conv3 / conv4 / conv5 + FC
               (19.6 GMAC, 143.7 M parameters)
ResNet152      stem + layer1 / layer2 / layer3 / layer4 + FC (11.5 GMAC,
               60.2 M)
Inception-V3   299x299: stem / Mixed-5 / Mixed-6 / Mixed-7 + FC (5.7 GMAC,
               23.8 M)
BERT-large     SQuAD 2.0, 384 tokens: 24 layers of d = 1024 in 4 blocks of
               6 (embeddings with the first block; 340 M)
XLNet-large    512 tokens: 24 layers in 4 blocks of 6 (550 M as Table I)
T5 (11B)       the paper's 3-layer profile model: 3 layers of d_model =
               1024, d_ff = 65,536, 128 heads x 128, 512 tokens
GPT 6.7B/13B/  the paper's 3-layer profile models: 3 layers of d = 4,096 /
175B           5,120 / 12,288 (12 d^2 parameters each), 512 tokens
=============  ============================================================

A transformer layer of ``P`` parameters over ``L`` tokens costs
``P L + 2 L^2 d`` MAC per sample.  Time per mini-batch on one V100:
``p^f = batch' * MAC / RATE`` with ``RATE = 15`` GMAC/ms (30 TFLOP/s
effective, fp16 tensor cores), ``p^b = 2 p^f``; ``batch'`` is the share of
the mini-batch (Table I) a replica processes, ``batch / k``.  Activations
and gradients are fp16 (2 bytes per element), parameters' gradients fp32
(4 bytes).  Units: ms and MB (so bandwidths in MB/ms, i.e. GB/s).

Configurations (the planner's output, substituted): a configuration of
``G'`` GPUs splits the blocks into ``S`` contiguous stages (``S`` = 1 ..
number of blocks, at least the model's ``min_stages``), balancing the
stages' compute (the split minimising the largest stage), and spreads the
``G'`` GPUs over the stages, one each and the rest to the stages with the
most compute per replica.  Every ``S <= G'`` gives one configuration.
Single-GPU configurations exist only for the five models the paper profiles
whole (VGG19, ResNet152, Inception-V3, BERT-large, XLNet-large); T5 and GPT
"cannot be accommodated on a single GPU" (Sec. V-A-1-b) and are used for
multi-GPU jobs only; GPT-175B needs 3 stages (one layer is 1.8 B
parameters, 29 GB of fp32 weights, gradients and Adam states on a 32 GB
V100).

The absolute milliseconds of Table II come from the authors' own profiles
and cannot be reproduced from these; Table II is compared on the ratio of
Heavy-Edge to the exact placement.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

from optsched.core.errors import InvalidInstanceError

from .timing import Stage

#: Effective V100 throughput, GMAC per ms (30 TFLOP/s).
RATE = 15.0
_ACT_BYTES = 2.0  # fp16 activations / their gradients
_GRAD_BYTES = 4.0  # fp32 parameter gradients


@dataclass(frozen=True)
class Block:
    """Consecutive layers: ``gmac`` per sample, ``params`` (millions), ``out`` elements per sample."""

    gmac: float
    params: float
    out: float


@dataclass(frozen=True)
class Model:
    """A Table I model: name, parameters (as printed), mini-batch, blocks, stage limits."""

    name: str
    parameters: str
    batch: int
    blocks: tuple[Block, ...]
    single_gpu: bool = True
    min_stages: int = 1


def _layer(d: float, params_m: float, tokens: int, out: float) -> Block:
    gmac = (params_m * 1e6 * tokens + 2 * tokens**2 * d) / 1e9
    return Block(gmac, params_m, out)


def _gpt(name: str, params: str, batch: int, d: int) -> Model:
    p = 12 * d * d / 1e6
    layer = _layer(d, p, 512, 512 * d)
    return Model(name, params, batch, (layer,) * 3, single_gpu=False,
                 min_stages=3 if d >= 12288 else 1)  # fmt: skip


def _bert(name: str, params: str, total_m: float, tokens: int) -> Model:
    emb = 32.0  # vocabulary x 1024 embeddings
    per = (total_m - emb) / 24
    one = _layer(1024, per, tokens, tokens * 1024)
    six = Block(6 * one.gmac, 6 * per, one.out)
    first = Block(six.gmac, six.params + emb, six.out)
    return Model(name, params, 4, (first, six, six, six))


MODELS: dict[str, Model] = {
    m.name: m
    for m in (
        Model("VGG19", "144M", 32, (
            Block(4.7, 0.26, 128 * 56 * 56),
            Block(6.5, 2.2, 256 * 28 * 28),
            Block(6.5, 8.3, 512 * 14 * 14),
            Block(1.9, 133.0, 1000),
        )),
        Model("ResNet152", "60M", 4, (
            Block(0.8, 0.3, 256 * 56 * 56),
            Block(1.8, 1.2, 512 * 28 * 28),
            Block(8.2, 40.6, 1024 * 14 * 14),
            Block(0.7, 18.1, 1000),
        )),
        Model("Inception-V3", "24M", 32, (
            Block(1.2, 0.3, 192 * 35 * 35),
            Block(0.9, 0.8, 288 * 35 * 35),
            Block(2.6, 11.0, 768 * 17 * 17),
            Block(1.0, 11.7, 1000),
        )),
        _bert("BERT-large", "340M", 340.0, 384),
        _bert("XLNet-large", "550M", 550.0, 512),
        Model("T5", "11B", 8, (_layer(16384, 201.3, 512, 512 * 1024),) * 3,
              single_gpu=False),
        _gpt("GPT-6.7B", "6.7B", 32, 4096),
        _gpt("GPT-13B", "13B", 32, 5120),
        _gpt("GPT-175B", "175B", 16, 12288),
    )
}  # fmt: skip


def _split(blocks: tuple[Block, ...], n: int) -> tuple[tuple[Block, ...], ...]:
    """Contiguous split of ``blocks`` into ``n`` stages minimising the largest stage's MAC."""
    best, best_cost = None, float("inf")
    for cuts in itertools.combinations(range(1, len(blocks)), n - 1):
        bounds = (0, *cuts, len(blocks))
        parts = tuple(blocks[a:b] for a, b in itertools.pairwise(bounds))
        cost = max(sum(b.gmac for b in p) for p in parts)
        if cost < best_cost - 1e-12:
            best, best_cost = parts, cost
    assert best is not None
    return best


def _replicas(work: list[float], gpus: int) -> list[int]:
    k = [1] * len(work)
    for _ in range(gpus - len(work)):
        s = max(range(len(work)), key=lambda j: (work[j] / k[j], -j))
        k[s] += 1
    return k


@cache
def configuration(model: str, gpus: int, n_stages: int) -> tuple[Stage, ...]:
    """Stages of ``model`` split into ``n_stages`` on ``gpus`` GPUs (see module doc)."""
    try:
        mod = MODELS[model]
    except KeyError:
        raise InvalidInstanceError(
            f"model: unknown {model!r} (known: {', '.join(MODELS)})"
        ) from None
    if not (max(1, mod.min_stages) <= n_stages <= min(gpus, len(mod.blocks))):
        raise InvalidInstanceError(
            f"n_stages: {model} on {gpus} GPUs takes {mod.min_stages}.."
            f"{min(gpus, len(mod.blocks))} stages, got {n_stages}"
        )
    if gpus == 1 and not mod.single_gpu:
        raise InvalidInstanceError(f"gpus: {model} has no single-GPU configuration")
    parts = _split(mod.blocks, n_stages)
    work = [sum(b.gmac for b in p) for p in parts]
    ks = _replicas(work, gpus)
    stages = []
    for s, (part, k) in enumerate(zip(parts, ks, strict=True)):
        pf = (mod.batch / k) * work[s] / RATE
        # data crossing the boundary into / out of the stage, per replica (MB)
        d_in = mod.batch * parts[s - 1][-1].out * _ACT_BYTES / 1e6 / k if s > 0 else 0.0
        d_out = (
            mod.batch * part[-1].out * _ACT_BYTES / 1e6 / k if s < n_stages - 1 else 0.0
        )
        h = sum(b.params for b in part) * _GRAD_BYTES
        stages.append(Stage(k=k, pf=pf, pb=2 * pf, d_in=d_in, d_out=d_out, h=h))
    return tuple(stages)


def configurations(model: str, gpus: int) -> tuple[tuple[Stage, ...], ...]:
    """Every configuration of ``model`` on ``gpus`` GPUs (empty if none)."""
    mod = MODELS[model]
    if gpus == 1 and not mod.single_gpu:
        return ()
    lo, hi = mod.min_stages, min(gpus, len(mod.blocks))
    return tuple(configuration(model, gpus, s) for s in range(lo, hi + 1))


def models_for(gpus: int) -> tuple[str, ...]:
    """Models with at least one configuration on ``gpus`` GPUs (Table I order)."""
    return tuple(m for m in MODELS if configurations(m, gpus))
