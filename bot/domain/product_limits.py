"""Product limits, each in one place: how long a round's question stays open, how many
questions and teams a round may have, how long a question of the day stays open, what a
badge takes, how many names a message lists, how often a bot replies into a busy group.

Config validation, the features, the store commands and both chat adapters import these;
nobody keeps a second literal. (What a platform allows, such as message sizes, lives in
`bot.domain.platforms`; how a round scores, in `bot.domain.round_rules`.)
"""

from __future__ import annotations

# --- a study-group round ------------------------------------------------------------------
MIN_SECONDS, MAX_SECONDS = 10, 300  # a timed question's length (`rounds.default_seconds`)
DEFAULT_SECONDS = 30
DEFAULT_REVEAL_SECONDS, MAX_REVEAL_SECONDS = 5.0, 60.0  # from a reveal to the next question
UNTIMED_SECONDS = 30 * 60  # an untimed question stays open at most this long
LOBBY_SECONDS = 30  # a team (or untimed) round's joining time before question 1
LATE_POST = 3.0  # seconds: a question posted later than this after opening is timed from its post
MIN_QUESTIONS, MAX_QUESTIONS = 1, 50  # questions a host may ask one round to take
MIN_TEAMS, MAX_TEAMS = 2, 6
# A round nobody plays (everyone left, the host walked away) would post every question and
# its reveal into the group: 8 questions are 16 posts of the group's ~20 a minute, and noise
# for its members. After this many questions in a row that nobody answered, the last one's
# reveal is the round's end (its podium, as a stop shows it). Two, not one: a single quiet
# question is a hard one, or a group that looked away; a question of the day is no round.
UNANSWERED_TO_END = 2

# --- a question of the day (/daily): open at least an hour, closed before the next one ----
MIN_CLOSE_HOURS, MAX_CLOSE_HOURS, DEFAULT_CLOSE_HOURS = 1, 23, 8

# --- a quiz's badge: at least 80% right in one full attempt (Telegram has no roles) -------
BADGE_SHARE = 0.8

# --- names and lines one message shows ------------------------------------------------------
STANDINGS_SHOWN = 10  # members on a round's standings
RIGHT_SHOWN = 20  # names under "Got it right:" at most; the rest are counted
NAME_SHOWN = 64  # characters of one member's name (Telegram's run to 129)
OPTION_SHOWN = 40  # characters of an option's text beside its bar in a round's reveal
WHO_PAGE = 20  # members per page of the private "Who answered?" list
STREAKS_SHOWN = 5  # members named under a question of the day's streaks
WEEK_SHOWN = 10  # members on Sunday's standing of the week
MISSES_SHOWN = 5  # confident misses listed on /stats and the dashboard

# --- what a page, a command or an admin's list shows at most ----------------------------------
MISSES_LISTED = 50  # misses on a learner's dashboard page
MEMBERS_LISTED = 50_000  # member rows (one per member and quiz) a group's table searches,
#   orders and pages over; past them the strongest are left out and counted
MEMBERS_PAGE = 50  # member rows a group's page ships at a time ("Show 50 more")
FIND_CHARS = 64  # characters of a member-table search (a name is at most NAME_SHOWN)
ROUNDS_LISTED = 30  # rounds on a group's dashboard page
WEAKEST_LISTED = 10  # a group's worst-answered questions its page spells out; the rest counted
HELP_NAMED = 3  # members a group admin's first screen names as the weakest so far
REPORTS_LISTED = 100  # open problem reports an admin's list shows
OVERVIEW_GROUPS = 20  # groups `quizbot stats` lists (those with most learners)
OVERVIEW_REPORTS = 50  # open problem reports `quizbot stats` lists
ITEM_MIN_LEARNERS = 10  # members with a finished attempt before a quiz's item figures show

# --- problem reports ("Report a problem") -------------------------------------------------
REPORTS_PER_DAY = 5  # reports per learner in any 24 hours
NOTE_CHARS = 500  # characters of the line a learner may add to a report

# --- lanes: what the bot's replies may take of a group's posts ------------------------------
GROUP_REPLIES_PER_MINUTE = 10  # command replies into one group (Telegram allows 20 posts)
MEMBER_QUIET = 60.0  # seconds: one reply per member while a round runs, the rest dropped
NOT_TEXT_QUIET = 30.0  # seconds: one "I read text" per private chat sent photos, stickers...


def round_seconds_ok(seconds: float) -> bool:
    """True when a timed question may stay open `seconds`."""
    return MIN_SECONDS <= seconds <= MAX_SECONDS


def round_questions_ok(asked: int | None, available: int) -> bool:
    """True when a round may take `asked` (None: all) of a quiz's `available` questions."""
    if asked is None:
        return available >= MIN_QUESTIONS
    return MIN_QUESTIONS <= asked <= min(MAX_QUESTIONS, available)


def teams_ok(teams: int) -> bool:
    """True for a round without teams (0) or with an allowed number of them."""
    return teams == 0 or MIN_TEAMS <= teams <= MAX_TEAMS


def close_hours_ok(hours: float) -> bool:
    """True when a question of the day may stay open `hours`."""
    return MIN_CLOSE_HOURS <= hours <= MAX_CLOSE_HOURS
