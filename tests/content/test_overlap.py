"""A learner who takes several shipped quizzes meets each idea asked once: where two quizzes
asked the same thing the same way, one kept it and the other now teaches another point."""

from __future__ import annotations

import re

from bot.domain.quiz import Quiz

# A crux, the words that ask it, and the one question that may ask it.
ASKED_ONCE = [
    # The micro-batch size with the shortest 1F1B step at a fixed batch (d17 keeps it;
    # pipeline-schedules' ps22 asked it again with other numbers).
    (r"micro-batch size gives the shortest step", "parallelism-deep", "d17-micro-batch-size"),
    # GPipe's first GPU holds m micro-batches, 1F1B's p (d03 keeps it; ps10 asked it again).
    (r"(?=.*\bGPipe\b)(?=.*\b1F1B\b)(?=.*\bpeak\b)", "parallelism-deep",
     "d03-activations-in-flight"),
    # The data-parallel size left by the other groups, and which group stays in a node (d06
    # keeps it; long-context's l16 asked it again for Llama 3's layout).
    (r"What is (?:DP|the data-parallel size), and (?:which|how)", "parallelism-deep",
     "d06-3d-layout"),
    # parallelism-deep asked four of parallelism-numbers' computed questions again with fixed
    # numbers (d01 GPipe's bubble, d02 the interleaved bubble, d04 a layer's tensor-parallel
    # all-reduce bytes, d16 activation memory with TP and SP): the computed ones keep them.
    (r"^GPipe runs p = .*What share of the step", "parallelism-numbers", "n01-gpipe-bubble"),
    (r"interleaved 1F1B schedule runs p = .*What share of the step is bubble",
     "parallelism-numbers", "n03-interleaved-bubble"),
    (r"bytes does each GPU send (?:for|in) one transformer layer's forward",
     "parallelism-numbers", "n08-tp-allreduce-bytes"),
    (r"^(?!.*selective)(?=.*sequence parallelism)(?=.*activation memory)",
     "parallelism-numbers", "n06-activations-tp-sp"),
    # An MoE layer's forward all-to-all bytes (expert-parallelism's e01 asked n13's with
    # DeepSeek-V3's numbers).
    (r"How many bytes .*forward.*dispatch and combine", "parallelism-numbers",
     "n13-moe-all-to-all"),
    # What replaced them, asked once each.
    (r"GPipe .*how does the step's weight update differ", "parallelism-deep",
     "d01-gpipe-same-update"),
    (r"interleaved 1F1B .*Which layers does the first GPU hold", "parallelism-deep",
     "d02-interleaved-layout"),
    (r"In the backward, where does the block all-reduce", "parallelism-deep",
     "d04-tensor-backward-allreduce"),
    (r"ZeRO-Offload", "parallelism-deep", "d05-zero-offload"),
    (r"weight gradient needs that whole input again", "parallelism-deep",
     "d16-sp-backward-gather"),
    (r"FP8 before the dispatch", "expert-parallelism", "e01-fp8-dispatch-bf16-combine"),
    (r"(?=.*PipeDream)(?=.*copy of its layers)", "pipeline-schedules", "ps08-replicated-stage"),
]


def test_each_crux_is_asked_once(quizzes: dict[str, Quiz]):
    for pattern, quiz_id, qid in ASKED_ONCE:
        asking = [(quiz.id, q.id) for quiz in quizzes.values() for q in quiz.questions
                  if re.search(pattern, q.text.get("en"))]
        assert asking == [(quiz_id, qid)], (pattern, asking)


def test_the_first_stage_count_is_the_crux_of_one_pipeline_schedules_question(
        quizzes: dict[str, Quiz]):
    """'1F1B's first stage holds p micro-batches' was the key of ps10, ps17 and ps22 besides
    d03 and d11: in pipeline-schedules no key restates it now."""
    keys = {q.id: q.options[q.correct].text.get("en")
            for q in quizzes["pipeline-schedules"].questions if q.options}
    restating = [qid for qid, key in keys.items()
                 if re.search(r"\b(?:p − s|7 − s|p micro-batches|8 micro-batches)\b", key)]
    assert restating == [], restating


def test_zero3_traffic_under_accumulation_is_asked_once(quizzes: dict[str, Quiz]):
    """d13 (parallelism-deep) and l12 (long-context) both taught that ZeRO-3's traffic grows
    with the micro-batches (12Ψ at m = 4, stage 2's 5Ψ); l12 now asks about ZeRO++."""
    saying = [(quiz.id, q.id) for quiz in quizzes.values() for q in quiz.questions
              if q.takeaway is not None and "grows with m" in q.takeaway.get("en")]
    assert saying == [("parallelism-deep", "d13-zero3-volume")], saying


def test_the_model_states_over_the_memory_left_are_taught_once(quizzes: dict[str, Quiz]):
    """parallelism-deep's d05 (ZeRO-3: N ≥ 16Ψ ÷ the memory left) and parallelism-numbers' n12
    (pipeline stages: p ≥ 16Ψ over the memory left) taught one division; d05 now asks what
    ZeRO-Offload keeps on the GPU."""
    saying = [(quiz.id, q.id) for quiz in quizzes.values() for q in quiz.questions
              if q.takeaway is not None
              and re.search(r"16Ψ (?:÷|over) the memory left", q.takeaway.get("en"))]
    assert saying == [("parallelism-numbers", "n12-smallest-pipeline")], saying


def test_what_interleaving_costs_in_sends_is_one_questions_key(quizzes: dict[str, Quiz]):
    """parallelism-deep's d08 (interleaving costs v times the point-to-point sends) and
    pipeline-schedules' ps08 (doubling v doubles the p2p messages, halves the extra memory)
    had the same key; ps08 now asks what replicating a slow stage does."""
    keys = [(quiz.id, q.id) for quiz in quizzes.values() for q in quiz.questions
            if q.options and re.search(r"point-to-point sends|p2p messages",
                                       q.options[q.correct].text.get("en"))]
    assert keys == [("parallelism-deep", "d08-interleaving-cost")], keys


def test_rewritten_questions_have_new_ids(quizzes: dict[str, Quiz]):
    """A rewritten question gets a new id, so a learner's review card or unfinished attempt of
    the old one never lands on a question that teaches something else."""
    retired = {"parallelism-deep": ["d01-gpipe-bubble", "d02-interleaved-bubble",
                                    "d04-tensor-allreduce-bytes", "d05-zero3-gpus-needed",
                                    "d16-activation-memory"],
               "pipeline-schedules": ["ps08-interleaving-more-chunks"],
               "expert-parallelism": ["e01-all-to-all-bytes"]}
    for quiz_id, ids in retired.items():
        assert [qid for qid in ids if quizzes[quiz_id].question(qid) is not None] == []
