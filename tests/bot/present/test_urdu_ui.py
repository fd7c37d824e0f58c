"""The Urdu UI strings read as one careful translator wrote them: each concept the learner
meets has one word everywhere, and renderings a reader stumbles on stay out."""

from __future__ import annotations

import re

import pytest

from bot.present.i18n import Catalogue, strip_isolates
from tests.helpers import first_strong_direction

# The English word of a concept (outside /commands, {placeholders} and typed arguments) and
# the one Urdu word every string that uses it says.
CONCEPTS = {
    r"\bstreaks?\b": "تسلسل",
    r"\baccuracy\b": "درستی",
    r"\bleaderboards?\b": "لیڈر بورڈ",
    r"\brounds?\b": "راؤنڈ",
    r"\bquiz(zes)?\b": "کوئز",
    r"\btopics?\b": "موضوع",
    r"\breview(s|ed)?\b": "دہر",
    r"\bmembers?\b": "رکن|اراکین",
    r"\bteams?\b": "ٹیم",
    r"\bscores?d?\b": "اسکور",
    r"\battempts?\b": "کوشش",
    r"\badmins?\b": "منتظم",
    r"\breminders?\b": "یاد دہانی",
    r"\bright(?! (now|after))\b": "درست",
    # Discord's own screens (Server Settings, Privacy Settings) keep their Latin labels
    r"(?<!Server )(?<!Privacy )\bsettings\b(?! →)": "ترتیبات",
}
# "5 میں سے 1 نے": the Urdu names no noun where English counts members (test_i18n).
NO_NOUN = {("round.who_summary", r"\bmembers?\b")}
# What a learner types is not translated: /commands with their arguments, Discord's options.
TYPED = re.compile(r"/[a-z_]+(?: (?:last|off|on|start|stop|skip|set|remove|quiz|language)\b)*"
                   r"|\b(?:quiz|what|topic|teams|scoring|untimed|time|language):"
                   r"|\{\w+\}|\[[^\]]*\]|\bteams \d|\bscoring \w+|\bor (?:streak|untimed)\b")

# Renderings a reader stumbles on, and the word the strings use instead.
REJECTED = {
    "سلسلہ": "a streak is تسلسل (سلسلہ is a series)",
    "ارکان": "members are اراکین everywhere",
    "صحیح": "a right answer is درست, as ✅ درست! says",
    "شناخت": "a quiz's id stays id, as the commands type it",
    "سیٹنگ": "the bot's settings are ترتیبات; Discord's own screens keep their Latin names",
    "ٹیلیگرام|ڈسکارڈ": "Telegram and Discord keep their Latin names",
    "انضمام": "a Discord integration keeps its Latin name",
    "غلط سوال|غلط ہونے والے سوال": "a missed question is a غلط جواب والا سوال, not a wrong one",
}


def _urdu(catalogue: Catalogue, key: str) -> str:
    return strip_isolates(catalogue.raw("ur", key))


def test_each_concept_has_one_urdu_word_in_every_string(catalogue: Catalogue) -> None:
    keys = sorted(catalogue.keys("en"))
    misses = {}
    for key in keys:
        english = TYPED.sub("", catalogue.raw("en", key))
        urdu = _urdu(catalogue, key)
        for word, term in CONCEPTS.items():
            if (key, word) in NO_NOUN:
                continue
            if re.search(word, english, re.IGNORECASE) and not re.search(term, urdu):
                misses[f"{key}: {word}"] = urdu
    assert misses == {}


@pytest.mark.parametrize("rendering", sorted(REJECTED))
def test_no_urdu_string_uses_a_rejected_rendering(catalogue: Catalogue, rendering: str) -> None:
    found = {key: text for key in sorted(catalogue.keys("ur"))
             if re.search(rendering, text := _urdu(catalogue, key))}
    assert found == {}, REJECTED[rendering]


def test_the_streak_line_names_the_streak(catalogue: Catalogue) -> None:
    for days in (1, 4):
        line = strip_isolates(catalogue.t("ur", "progress.streak", days=days))
        assert line == f"تسلسل: لگاتار {days} دن"


# --- direction: arrows point the way an Urdu reader goes, quotes open on the right ---------

MIRROR = str.maketrans("◀▶➡⬅→←", "▶◀⬅➡←→")
# keys whose arrow says a direction (▶ Start and ▶ Open my quiz are a play sign, not one)
DIRECTED = ("round.who_prev", "round.who_next", "button.next_quiz", "summary.missed_item")


@pytest.mark.parametrize("key", DIRECTED)
def test_urdu_arrows_are_the_english_ones_mirrored(catalogue: Catalogue, key: str) -> None:
    arrows = [ch for ch in catalogue.raw("en", key) if ch in "◀▶➡⬅→←"]
    assert arrows, key
    urdu = [ch for ch in catalogue.raw("ur", key) if ch in "◀▶➡⬅→←"]
    assert urdu == [a.translate(MIRROR) for a in arrows]


def test_the_who_answered_pages_point_outward_in_urdu(catalogue: Catalogue) -> None:
    # Urdu lays the row out right to left (Next on the left): each arrow points away from
    # the other button, the way its page lies, as "◀ Back" and "Next ▶" do in English.
    from bot.domain.round_results import WhoAnswered
    from bot.present import render
    from bot.present.round_plan import RoundPlanner

    page = WhoAnswered(round_id=3, qindex=0, chat_id="-100", lang="ur", quiz_title="Q",
                       number=1, total=8, page=1, pages=3, members=90, answered=40, rows=())
    card = RoundPlanner(catalogue, render.PLAIN, lambda q: "").who(page, "7")
    left, right = (strip_isolates(button.label) for button in card.rows[0])
    assert left.endswith("◀") and right.startswith("▶")  # logical order: shown mirrored
    assert "آگے" in left and "پیچھے" in right


def test_urdu_quotes_open_on_the_right(catalogue: Catalogue) -> None:
    # ”…“ as the lobby's ”کوئی بھی ٹیم“: typed “…” the quote marks face outward in Urdu
    for key in sorted(catalogue.keys("ur")):
        text = catalogue.raw("ur", key)
        assert "“" not in text or text.index("”") < text.index("“"), key


# --- the learner is addressed without guessing their gender; sentences end in Urdu --------

# A verb that agrees with آپ takes a gender ("دے چکے ہیں" a man, "دے چکی ہیں" a woman); the
# bot does not know it, so a sentence about the learner is built around something else
# ("آپ کا جواب ... محفوظ ہے", "آپ کو ... مل گیا").
GENDERED = re.compile(r"\bآپ (?!کا|کی|کے|کو|نے)[^۔؛،:()]*?(?:چکے|چکی|ئیں گے|یں گے|یں گی|پہنچے"
                      r"|پہنچیں|جائیں گے)")


def test_no_urdu_string_guesses_the_learners_gender(catalogue: Catalogue) -> None:
    found = {key: text for key in sorted(catalogue.keys("ur"))
             if GENDERED.search(text := _urdu(catalogue, key))}
    assert found == {}


def test_urdu_sentences_end_with_urdu_punctuation(catalogue: Catalogue) -> None:
    for key in sorted(catalogue.keys("en")):
        english, urdu = catalogue.raw("en", key).rstrip(), _urdu(catalogue, key).rstrip()
        if english.endswith((".", "?", "!")):
            assert urdu.endswith(("۔", "؟", "!")), key


def test_a_stale_press_tells_the_old_question_from_the_current_one(catalogue: Catalogue) -> None:
    # "That question is no longer active; here is where you are": یہ ... یہ named both
    assert _urdu(catalogue, "answer.stale").startswith("وہ سوال")


# --- a number beside a name keeps to itself ------------------------------------------------

def test_a_topics_share_stays_apart_from_a_name_that_starts_in_latin(
        catalogue: Catalogue) -> None:
    # "▰▰▱▱▱ 33% micro-batch شیڈول" was one left-to-right piece, "33% micro-batch", which
    # glued the share to the topic's first word
    from bot.present.i18n import LRI, PDI

    line = catalogue.t("ur", "progress.topic", bar="▰▰▱▱▱", percent=33,
                       name="micro-batch شیڈول")
    assert f"{LRI}33%{PDI} {LRI}micro-batch{PDI} شیڈول" in line
    row = catalogue.t("ur", "stats.question", number=f"{LRI}4{PDI}", accuracy=62, correct=5,
                      answered=8, text="GPipe میں ببل کتنا ہے؟")
    assert f"{LRI}62% (5/8){PDI} {LRI}GPipe{PDI} میں" in row


@pytest.mark.parametrize(("lang", "names"), [("en", "Hana, Chen"), ("ur", "Hana، Chen")])
def test_who_got_it_right_is_listed_with_the_languages_comma(catalogue: Catalogue, lang: str,
                                                             names: str) -> None:
    from bot.domain.round_results import RoundQuestion, RoundReveal, Standing
    from bot.present import render
    from bot.present.round_plan import RoundPlanner

    q = RoundQuestion(1, "telegram", "-100", lang, "Q", "Host", 0, 8, "?", ("a", "b"), 30, 0.0)
    standings = (Standing(1, "1", "Hana", 1, 3.0), Standing(1, "3", "Chen", 1, 3.0))
    reveal = RoundReveal(1, "telegram", "-100", lang, "Q", q, 0, (2, 1), ("Hana", "Chen"),
                         "", standings, "7", final=False, stopped=False, next_at=5.0)
    card = RoundPlanner(catalogue, render.PLAIN, lambda q: "").reveal(reveal)
    said = catalogue.raw(lang, "round.right").split("{")[0]
    assert f"{said}{names}" in strip_isolates(card.body)


@pytest.mark.parametrize(("lang", "rows"), [
    ("en", ["🥇 1. Hana: 1 right · 3.0 s", "▫️ 2. Bilal: 0 right"]),
    ("ur", ["🥇 1. Hana: 1 درست · 3.0 سیکنڈ", "▫️ 2. Bilal: 0 درست"])])
def test_a_member_with_nothing_right_shows_no_time(catalogue: Catalogue, lang: str,
                                                   rows: list[str]) -> None:
    # "Bilal: 0 right · 0.0 s": the time is that spent on right answers, and none read as
    # the fastest answer of the round
    from bot.domain.round_results import RoundQuestion, RoundReveal, Standing
    from bot.present import render
    from bot.present.round_plan import RoundPlanner

    q = RoundQuestion(1, "telegram", "-100", lang, "Q", "Host", 0, 8, "?", ("a", "b"), 30, 0.0)
    standings = (Standing(1, "1", "Hana", 1, 3.0), Standing(2, "2", "Bilal", 0, 0.0))
    reveal = RoundReveal(1, "telegram", "-100", lang, "Q", q, 0, (1, 1), ("Hana",),
                         "", standings, "7", final=False, stopped=False, next_at=5.0)
    card = RoundPlanner(catalogue, render.PLAIN, lambda q: "").reveal(reveal)
    lines = strip_isolates(card.body).splitlines()
    assert [line for line in lines if "Hana:" in line or "Bilal:" in line][-2:] == rows


@pytest.mark.parametrize("lang", ["en", "ur"])
@pytest.mark.parametrize(("m", "said"), [(1, "m = 1 micro-batch "), (8, "m = 8 micro-batches ")])
def test_a_schedules_caption_counts_its_micro_batches(catalogue: Catalogue, lang: str, m: int,
                                                      said: str) -> None:
    # the naive schedule's picture said "m = 1 micro-batches"
    caption = catalogue.t(lang, "picture.caption", name="Naive", p=4, m=m, v="", bubble=75)
    assert said in strip_isolates(caption)


# --- buttons: cut after a whole word, Latin titles isolated ---------------------------------

def test_a_long_title_is_cut_after_a_whole_word() -> None:
    from bot.present.render import clip

    title = "متوازیت کی گہرائی میں: شیڈولز، میموری اور کمیونیکیشن"
    assert clip(title, 44) == "متوازیت کی گہرائی میں: شیڈولز، میموری اور…"  # was "…اور ک…"
    assert clip("Pipelinescheduleswithoutanyspaces", 10) == "Pipelines…"  # no word: cut anyway
    assert clip(title, 0) == "" and clip("short", 10) == "short"
    # the punctuation before a cut goes with it: "Zero Bubble…", not "Zero Bubble,…"
    assert clip("Pipeline schedules past 1F1B: Zero Bubble, DualPipe", 46) == \
        "Pipeline schedules past 1F1B: Zero Bubble…"
    assert clip(title, 32) == "متوازیت کی گہرائی میں: شیڈولز…"  # not "شیڈولز،…"


def test_an_urdu_catalogue_button_isolates_a_latin_title_within_the_limit(
        catalogue: Catalogue) -> None:
    from bot.domain.results import CatalogueEntry, QuizInfo
    from bot.present.i18n import LRI, PDI
    from bot.present.quiz_list import catalogue_label

    info = QuizInfo("expert-parallelism", "Mixture of experts اور ایکسپرٹ متوازیت", "", "", 21,
                    ("en", "ur"), level="advanced")
    label = catalogue_label(catalogue, "ur", CatalogueEntry(info), 64)
    # "Mixture of experts" first would make the whole label read left to right
    assert label.startswith(f"{LRI}Mixture of experts{PDI} اور")
    for limit in range(20, 70):
        label = catalogue_label(catalogue, "ur", CatalogueEntry(info), limit)
        assert len(label) <= limit and label.count(LRI) == label.count(PDI)


@pytest.mark.parametrize(("lang", "one", "many"), [
    ("en", "your 1 reviewed question with a 90% chance", "90% of your 5 reviewed questions"),
    ("ur", "اپنا 1 دہرایا گیا سوال یاد ہو", "آپ کے 5 دہرائے گئے سوالات میں سے 90% یاد ہوں گے"),
])
def test_the_memory_line_counts_one_reviewed_question(catalogue: Catalogue, lang: str,
                                                      one: str, many: str) -> None:
    # after a first answer it said "your 1 reviewed questions", "1 دہرائے گئے سوالات"
    assert one in strip_isolates(catalogue.t(lang, "progress.retention", percent=90, cards=1))
    assert many in strip_isolates(catalogue.t(lang, "progress.retention", percent=90, cards=5))


@pytest.mark.parametrize("key", ["daily.on", "daily.closes"])
def test_the_question_of_the_day_stays_open_for_its_hours(catalogue: Catalogue,
                                                          key: str) -> None:
    # "Open for 24 h": کھلا رہے گا (stays open); "24 گھنٹے کھلا ہے" read like opening hours
    text = strip_isolates(catalogue.t("ur", key, title="T", time="09:00", offset="UTC", hours=24))
    assert "24 گھنٹے کھلا رہے گا۔" in text


@pytest.mark.parametrize("key", ["daily.on", "daily.closes"])
@pytest.mark.parametrize(("hours", "ur", "en"), [
    (1, "1 گھنٹہ کھلا رہے گا۔", "1 h"), ("1", "1 گھنٹہ کھلا رہے گا۔", "1 h"),
    ("1.5", "1.5 گھنٹے کھلا رہے گا۔", "1.5 h"), ("8", "8 گھنٹے کھلا رہے گا۔", "8 h"),
])
def test_a_question_of_the_day_open_one_hour_says_one_hour(
        catalogue: Catalogue, key: str, hours: object, ur: str, en: str) -> None:
    # daily.close_hours: 1 read "1 گھنٹے کھلا رہے گا" (the plural, "1 hours")
    params = {"title": "T", "time": "09:00", "offset": "UTC", "hours": hours}
    assert ur in strip_isolates(catalogue.t("ur", key, **params))
    assert f"{en}." in catalogue.t("en", key, **params)


@pytest.mark.parametrize(("lang", "due", "last"), [
    ("en", "due", "last misses"), ("ur", "دہرائی کے منتظر سوال", "پچھلی بار کے غلط جواب والے"),
])
def test_the_review_commands_menu_entry_says_what_it_does(catalogue: Catalogue, lang: str,
                                                          due: str, last: str) -> None:
    # /review with no option reviews what is due (as /help says); the Telegram menu and
    # Discord's description said only "Retake the questions you missed"
    text = catalogue.t(lang, "command.review")
    assert due in text and last in text and len(text) <= 100  # Discord's limit


def test_every_urdu_line_reads_right_to_left_even_when_it_opens_with_a_command(
        catalogue: Catalogue) -> None:
    # A phone sets each line's direction by its first strong letter (isolates skipped):
    # "/quiz: کوئز شروع کریں" stood left to right between right-to-left lines of /help.
    import unicodedata

    from tests.bot.present.test_bidi import sample_params

    skipped = re.compile("[\u2066-\u2068][^\u2069]*\u2069")

    def first_strong(line: str) -> str | None:
        return next((kind for ch in skipped.sub("", line)
                     if (kind := unicodedata.bidirectional(ch)) in ("L", "R", "AL")), None)

    lines = {f"{key}: {line}" for key in sorted(catalogue.keys("ur"))
             for line in catalogue.t("ur", key, **sample_params(catalogue.raw("ur", key)))
             .splitlines() if first_strong(line) == "L"}
    assert lines == set()
    help_text = catalogue.t("ur", "help", offer="کوئز", title="T", count=8)
    assert "\u200f/quiz: " in help_text  # the mark, not an isolate: the command stays tappable


TOPIC_NAMES = {
    "schedules": "micro-batch شیڈول", "moe": "MoE اور ایکسپرٹ متوازیت",
    "overlap": "حساب اور کمیونیکیشن کا overlap", "bubble": "پائپ لائن ببل",
    "tensor": "ٹینسر متوازیت", "memory": "میموری (ویٹس، آپٹیمائزر اسٹیٹ)",
    "data": "ڈیٹا متوازیت اور بانٹنا (ZeRO، FSDP)", "hardware": "انٹرکنیکٹ اور ہارڈویئر",
    "volume": "کمیونیکیشن کا حجم اور collectives", "why": "ماڈل کیوں اور کیسے تقسیم ہوتا ہے"}


class _Topics:
    """Topic names as a quiz gives them (some open in Latin), for `topic_choice`."""

    def topics(self) -> dict[str, object]:
        return dict.fromkeys(TOPIC_NAMES)

    def topic_name(self, topic: str, lang: str) -> str:
        return TOPIC_NAMES[topic]


def test_an_urdu_topic_button_reads_right_to_left_whatever_its_first_word(
        catalogue: Catalogue) -> None:
    # "/review nope" shows every topic as a button; "micro-batch شیڈول" and "MoE اور ایکسپرٹ
    # متوازیت" opened in Latin, so the app laid them out left to right: "schedule micro-batch"
    # and "and expert parallelism MoE" to a right-to-left reader
    from bot.domain.results import Actor
    from bot.present.plan import Planner
    from bot.present.render import PLAIN
    from bot.present.topic_choice import topic_choice

    plan = Planner(catalogue, PLAIN, shared_chats=False)
    reply = topic_choice(plan, "ur", Actor("telegram", "7"), "nope", _Topics())
    labels = [row[0].label for row in reply.send[0].rows]
    assert sorted(map(strip_isolates, labels)) == sorted(TOPIC_NAMES.values())
    assert all(first_strong_direction(label) == "R" for label in labels), labels
    english = topic_choice(plan, "en", Actor("telegram", "7"), "nope", _Topics())
    assert not any("\u2066" in row[0].label for row in english.send[0].rows)


def test_urdu_topic_buttons_are_in_urdu_alphabetical_order(catalogue: Catalogue) -> None:
    # sorted by code point, "ٹینسر", "پائپ لائن", "ڈیٹا" and "کمیونیکیشن" came after "ماڈل"
    # and "میموری": ٹ پ ڈ ک sit past م in Unicode, not in Urdu's alphabet (ا ب پ ت ٹ …)
    from bot.domain.results import Actor
    from bot.present.plan import Planner
    from bot.present.render import PLAIN
    from bot.present.topic_choice import topic_choice

    plan = Planner(catalogue, PLAIN, shared_chats=False)
    reply = topic_choice(plan, "ur", Actor("telegram", "7"), "nope", _Topics())
    assert [strip_isolates(row[0].label) for row in reply.send[0].rows] == [
        "انٹرکنیکٹ اور ہارڈویئر", "پائپ لائن ببل", "ٹینسر متوازیت",
        "حساب اور کمیونیکیشن کا overlap", "ڈیٹا متوازیت اور بانٹنا (ZeRO، FSDP)",
        "کمیونیکیشن کا حجم اور collectives", "ماڈل کیوں اور کیسے تقسیم ہوتا ہے",
        "میموری (ویٹس، آپٹیمائزر اسٹیٹ)",
        "micro-batch شیڈول", "MoE اور ایکسپرٹ متوازیت"]  # names opening in Latin last
    english = topic_choice(plan, "en", Actor("telegram", "7"), "nope", _Topics())
    assert [row[0].label for row in english.send[0].rows][:2] == [
        "micro-batch شیڈول", "MoE اور ایکسپرٹ متوازیت"]  # English: as before


def test_urdu_alphabetical_order_reads_arabic_keyboard_letters_as_urdu() -> None:
    from bot.present.collation import sort_key

    words = ["ماڈل", "كمیونیکیشن", "پائپ", "ٹینسر", "آغاز", "ابتدا", "يقین"]  # ك and ي: Arabic
    assert sorted(words, key=lambda w: sort_key("ur", w)) == [
        "آغاز", "ابتدا", "پائپ", "ٹینسر", "كمیونیکیشن", "ماڈل", "يقین"]


@pytest.mark.parametrize(("kept", "added", "removed"), [(1, 1, 1), (5, 2, 0)])
def test_an_updated_quizs_changes_name_questions_not_learners(
        catalogue: Catalogue, kept: int, added: int, removed: int) -> None:
    # "5 سیکھنے والوں کی پیش رفت کے ساتھ برقرار" read "with the progress of 5 learners", and
    # "1 نئے، 1 ہٹائے گئے" put one question in the plural: each count now follows its label
    text = strip_isolates(catalogue.t("ur", "admin.changes", kept=kept, added=added,
                                      removed=removed))
    assert not re.search(r"\d+\s+(سیکھنے|نئے|ہٹائے)", text), text
    assert f"برقرار: {kept}" in text and f"نئے: {added}" in text
    assert f"ہٹائے گئے: {removed}" in text


def test_how_often_sure_was_right_reads_as_a_share_of_answers(catalogue: Catalogue) -> None:
    # "جب یقین تھا تو 50% بار درست" ("50% times right") is no Urdu; the dashboard's own
    # hint says how often "sure" turned out right (درست نکلا)
    text = strip_isolates(catalogue.t("ur", "progress.calibration", percent=50, right=2,
                                      sure=4))
    assert text == "جب یقین تھا تو 50% جواب درست نکلے (4 میں سے 2)"
