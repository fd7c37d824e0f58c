"""One rooted exception hierarchy; adapters map these to user messages in one place."""

from __future__ import annotations

import re
from typing import Any

from bot.domain.product_limits import MAX_TEAMS, MIN_TEAMS

ECHO_LIMIT = 64  # characters of a user's own text an error message repeats back
# Bidi embeddings, overrides and isolates: in someone's text that a message repeats (a name,
# a /quiz argument) an override turns the rest of the message's line around
DIRECTION_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def clip_echo(value: Any) -> Any:
    """A user-supplied string without direction controls, cut to ECHO_LIMIT characters
    with "…" (a 5,000-character `/quiz` argument must not make the refusal itself too long
    to send; '/quiz \u202eabc' in a group must not reverse what the bot says after it)."""
    if isinstance(value, str):
        value = DIRECTION_CONTROLS.sub("", value)
        if len(value) > ECHO_LIMIT:
            return value[: ECHO_LIMIT - 1] + "…"
    return value


class QuizbotError(Exception):
    """The root of every error quizbot raises on purpose. Two families: `QuizError` (a
    learner's request refused; each names the UI string an adapter shows), and the
    maintainer's (config, content, storage, start-up), which the CLI prints as one line."""


class QuizError(QuizbotError):
    """Base of every error the engine raises on purpose.

    `key` names the UI string (in bot/present/locales) an adapter shows the user; `params` fill it.
    """

    key = "error.generic"

    def __init__(self, message: str = "", **params: Any) -> None:
        super().__init__(message or self.key)
        # Parameters may be what the user typed; they are shown back only clipped.
        self.params = {name: clip_echo(value) for name, value in params.items()}


class UnknownQuiz(QuizError):
    key = "error.unknown_quiz"
    ids: tuple[str, ...] | None = None  # the quizzes to offer instead (None: every one)


class SeveralQuizzes(UnknownQuiz):
    """A typed part of a title that several quizzes' titles hold ("pipeline"): not "no
    such quiz" (untrue), but which of these; `ids`: those quizzes, to offer as buttons."""

    key = "error.several_quizzes"

    def __init__(self, ids: tuple[str, ...], **params: Any) -> None:
        super().__init__(**params)
        self.ids = ids


class QuizGone(QuizError):
    """A button naming a quiz that is no longer offered (removed since it was sent): not
    what anyone typed, so neither its id nor "send the command again" is said."""

    key = "answer.quiz_removed"


class UnknownTopic(QuizError):
    key = "error.unknown_topic"


class BadLink(QuizError):
    """A deep link (`/start <payload>`) that is malformed or names a quiz, topic or group
    that is not there (any more). What it carried is never shown: the learner did not type
    it, and a forged one could say anything."""

    key = "error.bad_link"


class UnsupportedLanguage(QuizError):
    key = "error.unsupported_language"


class NothingToReview(QuizError):
    key = "error.nothing_to_review"


class NothingDue(NothingToReview):
    """No question is due for spaced review; says when the next one is (if any)."""

    key = "error.nothing_due_never"

    def __init__(self, unit: str | None = None, amount: int = 0) -> None:
        super().__init__(amount=amount)
        if unit is not None:
            self.key = f"error.nothing_due_{unit}"


class BadReminder(QuizError):
    """`/remind` with something that is not HH:MM (and optionally an offset like +05:00)."""

    key = "error.bad_reminder"


class QuizInProgress(QuizError):
    key = "error.quiz_in_progress"


class NoActiveSession(QuizError):
    key = "error.no_session"


class NotAdmin(QuizError):
    key = "error.not_admin"


class ReloadFailed(QuizError):
    """The quiz files on disk do not validate; the quizzes in use stay."""

    key = "error.reload_failed"


class UploadTooBig(QuizError):
    """A quiz file over the upload limit (params: size, limit in kB)."""

    key = "error.upload_too_big"


class UploadRefused(QuizError):
    """An uploaded quiz file that does not validate; nothing was installed. `problems` is
    the list, already cut to what one message can show (so not clipped again); `every`
    each problem in full, for the command line (`quizbot quizzes add`)."""

    key = "error.upload_refused"

    def __init__(self, problems: str, every: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.params = {"problems": problems}
        self.every = every


class ShippedQuiz(QuizError):
    """An upload or removal aimed at a shipped quiz's id (params: quiz)."""

    key = "error.shipped_quiz"


class ShippedQuizKept(ShippedQuiz):
    """A removal aimed at a shipped quiz's id: said apart from an upload's refusal, whose
    remedy (give yours another id) means nothing to someone removing (params: quiz)."""

    key = "error.shipped_quiz_remove"


class NotInstalled(QuizError):
    """`/quiz remove ID` for an id no installed quiz has (params: quiz, ids)."""

    key = "error.not_installed"


class NothingInstalled(NotInstalled):
    """`/quiz remove` when no uploaded quiz is installed (none yet, or every one removed)."""

    key = "error.nothing_installed"


class RemoveWhich(NotInstalled):
    """`/quiz remove` without an id (params: ids, the uploaded quizzes)."""

    key = "error.remove_usage"


class NotGroupAdmin(QuizError):
    """A group's settings changed by someone who is not one of its admins."""

    key = "error.not_group_admin"


class GroupsOnly(QuizError):
    """A group's settings asked for outside a group."""

    key = "error.groups_only"


class ContentError(QuizbotError):
    """Quiz files failed validation; `problems` holds every message, each naming file and field."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class ConfigError(QuizbotError):
    """The config file has a missing or bad key; the message names it."""


class StoreRefused(QuizbotError):
    """The database file cannot be used (not SQLite, corrupt, newer schema); it was not touched."""


class OpsError(StoreRefused):
    """`quizbot backup|restore|stats|export|check|copy-db` will not (or could not) do it: one
    line for the maintainer, naming the database and why (the CLI prints it, exit 1)."""


class EmptyDatabase(OpsError):
    """A PostgreSQL database with no tables yet: nothing to read, but `quizbot run` creates
    quizbot's tables there (`check` says so; `stats` and the rest refuse)."""


class SaveFailed(QuizError):
    """The database could not store a write (disk full, I/O error); nothing was acknowledged.

    Raised per write, mid-quiz: the learner is asked to try again, everyone else carries on,
    and the next write succeeds once space returns.
    """

    key = "error.save_failed"


class StoreLost(QuizError):
    """The database file was deleted or replaced under the running bot (`store.sqlite_file`):
    nothing is saved until a restart; the learner is told so, the log says it once."""

    key = "error.store_lost"


class StoreUnreachable(QuizError):
    """The database server does not answer (down, restarting, the network cut): nothing was
    done; the learner is asked to try again in a minute, the log says it once per outage."""

    key = "error.store_unreachable"


class StoreUnavailable(QuizbotError):
    """The database cannot be opened for writing (read-only file or folder, a folder where the
    file should be, a folder that cannot be created, a full disk); the message says which."""


class StartupFailed(QuizbotError):
    """A platform said no at start (rejected token) or never came up in time; one line."""


class RoundsAreForGroups(QuizError):
    """/round in a private chat: rounds are a group's."""

    key = "round.groups_only"


class RoundRunning(QuizError):
    """The chat already has a round going."""

    key = "round.already_running"


class NoRound(QuizError):
    """/round stop or skip with no round going."""

    key = "round.none"


class NotHost(QuizError):
    """Only the host or a moderator may stop or skip a round."""

    key = "round.not_host"


class BadRoundOptions(QuizError):
    """A team count, scoring mode or word of /round that does not parse: the usage line."""

    key = "round.usage"

    def __init__(self) -> None:
        super().__init__(low=MIN_TEAMS, high=MAX_TEAMS)


class BadDaily(QuizError):
    """A /daily time, offset or word that does not parse: the usage line."""

    key = "daily.usage"


class NotChatAdmin(QuizError):
    """/daily and /reward are for the group's (the server's) admins."""

    key = "error.admins_only"


class BadReward(QuizError):
    """A reward's score outside 1..the quiz's questions."""

    key = "reward.bad_score"


class BadRoundLength(QuizError):
    """Seconds per question (or the number of questions) out of range."""

    key = "round.bad_length"
