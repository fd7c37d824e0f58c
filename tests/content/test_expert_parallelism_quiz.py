"""expert-parallelism: complete in both languages, not answerable from the shape of its
options, and its computed answers agree with the arithmetic in its explanations."""

from __future__ import annotations

import math

import pytest

from bot.domain.quiz import Quiz
from tests.content.quizzes import question, right


@pytest.fixture(scope="module")
def moe(quizzes: dict[str, Quiz]) -> Quiz:
    return quizzes["expert-parallelism"]


# --- the computed answers, recomputed ----------------------------------------------------------

H, K, BF16 = 7168, 8, 2


def test_all_to_all_bytes(moe: Quiz):
    per_token = 2 * K * H * BF16  # dispatch + combine, forward only
    assert right(question(moe, "e01-all-to-all-bytes")) == f"About {round(per_token / 1000)} KB"
    assert "459 KB" in question(moe, "e01-all-to-all-bytes").options[1].text.get("en")
    assert f"{round(2 * per_token / 1000)}" == "459"


def test_node_limited_routing(moe: Quiz):
    nodes, experts_per_node = 4, 160 / 50
    assert right(question(moe, "e02-node-limited-routing")).startswith(f"{nodes}:")
    assert round(nodes * experts_per_node) == 13
    assert "13 experts" in question(moe, "e02-node-limited-routing").explanation.get("en")


def test_capacity(moe: Quiz):
    capacity = 4096 // 8 * 1.25
    assert right(question(moe, "e03-capacity-drop")).startswith(
        f"Capacity {capacity:.0f}; {800 - capacity:.0f} tokens")
    tokens, topk, factor, experts = 8192, 2, 1.25, 64
    cap = tokens * topk * factor / experts
    padding = 1 - tokens * topk / experts / cap
    assert right(question(moe, "e04-capacity-padding")) == (
        f"{cap:.0f} tokens, {padding:.0%} padding")


def test_expert_data_parallel_layout(moe: Quiz):
    gpus, ep, experts = 32, 8, 64
    assert right(question(moe, "e07-expert-data-parallel")).startswith(
        f"{experts // ep} experts; the {gpus // ep} GPUs")


def test_cross_node_dispatch(moe: Quiz):
    nvlink, ib = 160, 50
    within = (7 / 8) / nvlink
    across = max(0.5 / ib, (7 / 16) / nvlink)
    assert right(question(moe, "e08-all-to-all-across-nodes")) == f"About {across / within:.1f}×"


def test_active_versus_total(moe: Quiz):
    flops = 6 * 37e9 * 14.8e12
    weights_tb = 671e9 * BF16 / 1e12
    assert right(question(moe, "e12-active-vs-total")) == (
        f"About {flops / 1e24:.1f} × 10^24 FLOPs; about {weights_tb:.2f} TB of weights")


def test_expert_gemm_ridge_point(moe: Quiz):
    ridge = 989e12 / 3.35e12  # FLOPs per byte; the GEMM does m FLOPs per weight byte
    assert right(question(moe, "e14-expert-gemm-intensity")) == (
        f"About {round(ridge, -2):.0f} tokens")


def test_expert_choice_capacity(moe: Quiz):
    tokens, factor, experts = 8192, 2, 64
    per_expert = tokens * factor // experts
    assert right(question(moe, "e17-expert-choice")).startswith(
        f"Each expert takes exactly {per_expert} tokens;")


def test_z_loss_rounding(moe: Quiz):
    spacing_at_128 = 2.0 ** (7 - 7)  # bfloat16: 8 significant bits
    assert round(math.exp(spacing_at_128 / 2) - 1, 2) == 0.65
    assert round(math.exp(2.0 ** (2 - 7) / 2) - 1, 3) == 0.016
    assert "65%" in question(moe, "e18-router-z-loss").explanation.get("en")


def test_fine_grained_combinations(moe: Quiz):
    assert math.comb(16, 2) == 120 and math.comb(64, 8) == 4_426_165_368
    assert right(question(moe, "e19-fine-grained-experts")).startswith(
        f"About {math.comb(64, 8) / 1e9:.1f} × 10^9; up to {8 // 2}×")
    ordered = 64 ** 8  # the distractor: ordered picks with repeats
    assert "2.8 × 10^14" in question(moe, "e19-fine-grained-experts").options[2].text.get("en")
    assert f"{ordered / 1e14:.1f}" == "2.8"


def test_hot_expert_phase(moe: Quiz):
    gpus, tokens, topk, balanced_ms = 8, 4096, 2, 4
    mean = tokens * gpus * topk / gpus
    hot = 3 * mean
    others = (tokens * gpus * topk - hot) / (gpus - 1)
    phase = balanced_ms * hot / mean
    busy = balanced_ms * others / mean / phase
    assert right(question(moe, "e20-hot-expert")) == f"About {busy:.0%} of a {phase:.0f} ms phase"
    assert f"{others / mean:.0%}" == "71%"


def test_upcycled_parameters(moe: Quiz):
    mlp = 32 * 3 * 4096 * 14336
    rest = 7.24e9 - mlp
    total, active = rest + 8 * mlp, rest + 2 * mlp
    assert right(question(moe, "e21-sparse-upcycling")).startswith(
        f"About {total / 1e9:.0f}B in total, {active / 1e9:.0f}B per token;")
    assert f"{8 * 7.24:.0f}" == "58"  # the distractor copies the whole model
