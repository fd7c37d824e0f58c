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


def test_fp8_dispatch_and_bf16_combine(moe: Quiz):
    """e01 asked parallelism-numbers' n13 (an MoE layer's all-to-all bytes) with fixed numbers;
    it now asks why DeepSeek-V3 sends the dispatch in FP8 but the combine in BF16."""
    assert moe.question("e01-all-to-all-bytes") is None
    dispatch, scales, combine = K * H * 1, K * H // 128 * 4, K * H * BF16  # bytes per token
    assert (round(dispatch / 1000), scales, round(combine / 1000)) == (57, 1792, 115)
    mixed, bf16 = dispatch + scales + combine, 2 * K * H * BF16
    assert (round(mixed / 1000), round(bf16 / 1000)) == (174, 229)
    assert round(1 - mixed / bf16, 2) == 0.24  # about a quarter fewer bytes
    q = question(moe, "e01-fp8-dispatch-bf16-combine")
    assert right(q).startswith("The dispatch carries inputs that the experts' FP8 GEMMs")
    for lang in ("en", "ur"):
        text = q.explanation.get(lang)
        assert "1,792" in text and "174 KB" in text and "229 KB" in text


def test_node_limited_routing(moe: Quiz):
    nodes, experts_per_node = 4, 160 / 50
    assert right(question(moe, "e02-node-limited-routing")).startswith(f"{nodes}:")
    assert round(nodes * experts_per_node) == 13
    assert "13 experts" in question(moe, "e02-node-limited-routing").explanation.get("en")


def test_skewed_capacity(moe: Quiz):
    tokens, experts, factor, hot = 4096, 8, 1.25, 1100
    capacity = tokens // experts * factor
    cool = (tokens - 2 * hot) / (experts - 2)
    dropped = 2 * (hot - capacity) / tokens
    padding = (experts - 2) * (capacity - cool) / (experts * capacity)
    assert (capacity, cool) == (640, 316)
    assert right(question(moe, "e03-skewed-capacity")) == (
        f"About {dropped:.0%} of tokens dropped; about {padding:.0%} of the slots padding")
    wider = 2 * capacity / factor  # factor 2.0
    text = question(moe, "e03-skewed-capacity").explanation.get("en")
    assert f"{2 * (hot - wider):.0f} tokens ({2 * (hot - wider) / tokens:.1%})" in text
    padded = (experts - 2) * (wider - cool) / (experts * wider)
    assert f"{padded:.0%} of {experts * wider:,.0f}" in text
    tokens, topk, factor, experts = 8192, 2, 1.25, 64
    cap = tokens * topk * factor / experts
    padding = 1 - tokens * topk / experts / cap
    assert right(question(moe, "e04-capacity-padding")) == (
        f"{cap:.0f} tokens, {padding:.0%} padding")


def test_expert_parallel_placement(moe: Quiz):
    gpus, layers, experts, expert = 32, 16, 64, 3 * 4096 * 1408
    tokens, topk, h = 8192, 8, 4096
    grads = experts // 8 * layers * expert * 2  # EP 8: a GPU's 8 experts a layer, bf16
    sync = 2 * 3 / 4 * grads  # ring over the 4 copies, one per node
    all_to_all = tokens * topk * h * 2 * 24 / 32 * 4 * layers  # EP 32: 24 of 32 ranks remote
    assert right(question(moe, "e07-expert-parallel-placement")) == (
        f"EP 8: about {sync / 1e9:.1f} GB of expert gradients, once per step; "
        f"EP 32: about {all_to_all / 1e9:.0f} GB of all-to-alls, inside every layer")
    everyone = 2 * 31 / 32 * experts * layers * expert * 2  # a sync over all 32 GPUs
    remote = tokens * topk * h * 2 * 31 / 32 * 4 * layers  # every other rank counted remote
    q = question(moe, "e07-expert-parallel-placement")
    shown = " ".join(o.text.get("en") for o in q.options)
    assert f"about {everyone / 1e9:.0f} GB" in shown and f"about {remote / 1e9:.0f} GB" in shown
    assert f"{gpus // 8} replicas" in q.explanation.get("en")  # one per node


def test_cross_node_dispatch(moe: Quiz):
    nvlink, ib = 160, 50
    within = (7 / 8) / nvlink
    across = max(0.5 / ib, (7 / 16) / nvlink)
    assert right(question(moe, "e08-all-to-all-across-nodes")) == f"About {across / within:.1f}×"


def test_overlap_costs_the_communication_sms(moe: Quiz):
    compute_ms, sms, held = 2 * 9, 132, 20
    pair = compute_ms * sms / (sms - held)
    assert right(question(moe, "e09-overlap-sm-cost")).startswith(f"About {pair:.0f} ms")
    assert f"{26 / pair:.1f}× faster" in question(moe, "e09-overlap-sm-cost").explanation.get("en")


def test_decoding_layouts(moe: Quiz):
    expert_bytes = 3 * 7168 * 2048  # FP8
    copies = 128 * 8  # sent, and on average received, per GPU in either layout
    flops_s, hbm = 1979e12, 3.35e12
    compute = copies * 2 * expert_bytes / flops_s
    ep8 = max(compute, 32 * expert_bytes / hbm)
    ep256 = max(compute, expert_bytes / hbm)
    assert (round(ep8 * 1e6, -1), round(ep256 * 1e6)) == (420, 46)
    assert right(question(moe, "e10-decode-expert-layout")).startswith(
        f"About {round(ep8 * 1e6, -1):.0f} µs with EP = 8")
    assert f"{ep256 * 1e6:.0f} µs with EP = 256" in right(question(moe, "e10-decode-expert-layout"))
    assert f"{expert_bytes / hbm * 1e6:.0f} µs" in question(
        moe, "e10-decode-expert-layout").options[2].text.get("en")


def test_training_utilisation(moe: Quiz):
    flops = 6 * 37e9 * 14.8e12
    per_gpu = flops / (2.664e6 * 3600)
    assert round(per_gpu / 1e12) == 343
    assert right(question(moe, "e12-training-utilisation")).startswith(
        f"About {per_gpu / 989e12:.0%}: 6 FLOPs")
    shown = [o.text.get("en") for o in question(moe, "e12-training-utilisation").options]
    for per_token in (8, 2):  # a recomputed forward; the forward alone
        assert any(o.startswith(f"About {per_gpu * per_token / 6 / 989e12:.0%}") for o in shown)
    assert any(o.startswith(f"About {per_gpu / 1979e12:.0%}") for o in shown)  # FP8 peak


def test_grouped_gemm_waves(moe: Quiz):
    tokens, sms, column_tiles = [120, 300, 450, 512, 600, 700, 514, 900], 132, 2048 // 128
    assert sum(tokens) == 4096
    tiles = [math.ceil(m / 128) * column_tiles for m in tokens]
    loop = sum(math.ceil(n / sms) for n in tiles)
    grouped = math.ceil(sum(tiles) / sms)
    padded = math.ceil(len(tokens) * math.ceil(max(tokens) / 128) * column_tiles / sms)
    assert (loop, grouped, padded, sum(tiles)) == (8, 5, 8, 576)
    q = question(moe, "e13-grouped-gemm-waves")
    assert right(q) == f"Grouped finishes in {grouped} waves, while looping or padding to " \
        f"{max(tokens)} rows costs {loop}"
    assert f"{1 - sum(tokens) / (len(tokens) * max(tokens)):.0%} of them padding" in \
        q.explanation.get("en")


def test_expert_gemm_ridge_point(moe: Quiz):
    ridge = 989e12 / 3.35e12  # FLOPs per byte; the GEMM does m FLOPs per weight byte
    assert right(question(moe, "e14-expert-gemm-intensity")) == (
        f"About {round(ridge, -2):.0f} tokens")
    k, n = 7168, 2048  # counting the activations read and written too
    with_activations = ridge * k * n / (k * n - ridge * (k + n))
    assert f"about {round(with_activations, -1):.0f}" in question(
        moe, "e14-expert-gemm-intensity").explanation.get("en")


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


REVIEW = [  # (question, language, what must be said, what must not)
    ("e14-expert-gemm-intensity", "en", ["at the same 989 TFLOP/s"], ["150 holds for 1-byte FP8"]),
    ("e16-backward-all-to-alls", "en", ["(Megatron)", "(DeepEP)"], []),
    ("e16-backward-all-to-alls", "ur", ["آیا تھا"], ["آئی تھی", "جوڑے جاتے"]),
    ("e08-all-to-all-across-nodes", "en", [], ["measured"]),
    ("e06-aux-free-bias", "ur", ["γ جتنا کم"], ["γ کم ہو جاتا"]),
    ("e19-fine-grained-experts", "ur", ["امتزاج"], ["مجموع"]),
    ("e02-node-limited-routing", "ur", ["64-way"], ["درجے کی"]),
    ("e07-expert-parallel-placement", "ur", ["4 replicas"], ["درجے کی"]),
    # Megatron dropped "relies on CUDA_DEVICE_MAX_CONNECTIONS=1" from its MoE README (0888a06,
    # Jan 2026); since ebfa138 (Apr 2026) the shared expert's own stream overlaps at 1 or more,
    # and the flex dispatcher overlaps it too (transformer_config.py: "alltoall or flex").
    ("e11-shared-expert-overlap", "en", ["CUDA stream of their own", "is 1 or more",
                                         "alltoall or flex"], ["so it relies on"]),
    ("e11-shared-expert-overlap", "ur", ["الگ CUDA stream", "alltoall یا flex"],
     ["=1 پر انحصار کرتا ہے"]),
]


@pytest.mark.parametrize("qid, lang, said, unsaid", REVIEW)
def test_review_findings_are_fixed(moe: Quiz, qid, lang, said, unsaid):
    q = question(moe, qid)
    text = "\n".join([q.text.get(lang), q.explanation.get(lang),
                      *(o.text.get(lang) for o in q.options),
                      *(o.why_not.get(lang) for o in q.options if o.why_not)])
    for phrase in said:
        assert phrase in text, phrase
    for phrase in unsaid:
        assert phrase not in text, phrase


def test_dualpipe_is_asked_in_pipeline_schedules_only(quizzes: dict[str, Quiz]):
    """DualPipe's overlap and its two weight copies are pipeline-schedules' questions (ps05,
    ps15); this quiz no longer asks either (the review found each asked twice)."""
    for q in quizzes["expert-parallelism"].questions:
        said = " ".join([q.text.get("en"), *(o.text.get("en") for o in q.options)])
        assert "DualPipe" not in said, q.id
