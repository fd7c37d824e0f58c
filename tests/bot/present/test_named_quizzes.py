"""What an admin picks a quiz from (/reload's reply, `/quiz remove`'s refusals): the title
leads and the id they type stands beside it, in English and Urdu, within one message."""

from __future__ import annotations

from bot.present.i18n import Catalogue, strip_isolates
from bot.present.limits import LIST_CHARS, named_quizzes


def test_the_title_leads_and_the_id_stands_beside_it(catalogue: Catalogue) -> None:
    pairs = [("photosynthesis", "Photosynthesis"), ("week3", "Pipeline basics")]
    assert named_quizzes("en", pairs) == ("• Photosynthesis (photosynthesis)\n"
                                          "• Pipeline basics (week3)")
    said = catalogue.t("en", "error.remove_usage", ids=named_quizzes("en", pairs))
    assert said.endswith("Uploaded quizzes:\n• Photosynthesis (photosynthesis)\n"
                         "• Pipeline basics (week3)")


def test_in_urdu_each_title_and_id_keeps_its_own_direction(catalogue: Catalogue) -> None:
    line = named_quizzes("ur", [("photosynthesis", "ضیائی تالیف")])
    # the id typed left to right inside the Urdu line, the title in its own direction
    assert line == "• \u2068ضیائی تالیف\u2069 (\u2066photosynthesis\u2069)"
    said = catalogue.t("ur", "admin.reloaded", count=1, ids=line)
    assert "ضیائی تالیف" in said and "photosynthesis" in strip_isolates(said)


def test_a_long_catalogue_is_cut_with_a_count_not_sent_past_the_limit() -> None:
    pairs = [(f"quiz-{i}", f"A long teacher's quiz title number {i}") for i in range(300)]
    text = named_quizzes("en", pairs)
    assert len(text) <= LIST_CHARS + 20 and text.endswith(tuple(f"+{n}" for n in range(300)))
