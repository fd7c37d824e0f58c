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
