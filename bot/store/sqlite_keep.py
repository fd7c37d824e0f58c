"""SQLite statements that more than one part of the SQLite store runs."""

# A finished attempt's score stands on a board only if it beats the one already there (the
# earlier finish keeps a tie): the one statement for solo sessions and rounds alike.
KEEP_BEST_SQL = (
    "INSERT INTO best_scores (quiz_id, scope, platform, user_id, score, total, finished_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (quiz_id, scope, platform, user_id) DO UPDATE "
    "SET score = excluded.score, total = excluded.total, finished_at = excluded.finished_at "
    "WHERE excluded.score > best_scores.score")
