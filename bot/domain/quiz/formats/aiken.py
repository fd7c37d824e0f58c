"""Aiken, Moodle's plain multiple-choice format (https://docs.moodle.org/en/Aiken_format).

As the specification gives it: the question on one line (here also several lines, up to
the first option), then options each on its own line starting with a capital letter and
`.` or `)` and a space (`A. `, `B) `), then `ANSWER: B`; a blank line between questions.
The format carries no feedback, names or pictures.
"""

from __future__ import annotations

import re

from bot.domain.quiz.formats.draft import Draft, DraftOption, DraftQuestion, tidy

_OPTION = re.compile(r"([A-Z])[.)]\s+(.*)")
# "ANSWER: B", also "Answer: b", "ANSWER:B" and "ANSWER: B." or "ANSWER: B)" as typed
_ANSWER = re.compile(r"ANSWER\s*:\s*(.*?)[.)]?\s*$", re.IGNORECASE)
_SEVERAL = re.compile(r"[A-Z](?:\s*[,;&/]?\s*(?:AND\s+)?[A-Z])+")  # "A, C", "A and C"


def read(text: str, source: str) -> Draft:
    """Every question of an Aiken file."""
    draft = Draft(source)
    lines: list[str] = []
    start = 0
    for n, raw in enumerate([*text.splitlines(), ""], 1):
        if raw.strip():
            start = start or n
            lines.append(raw.strip())
            if _ANSWER.match(raw.strip()):
                _question(lines, f"{source}:{start}", draft)
                lines, start = [], 0
        elif lines and any(_OPTION.match(x) for x in lines):
            draft.problems.append(f"{source}:{start}: the question has no 'ANSWER: <letter>' "
                                  "line after its options")
            lines, start = [], 0
    if lines:
        draft.problems.append(f"{source}:{start}: text without options and 'ANSWER:' line")
    return draft


def _question(lines: list[str], where: str, draft: Draft) -> None:
    stem: list[str] = []
    letters: list[str] = []
    options: list[DraftOption] = []
    for line in lines[:-1]:
        match = _OPTION.match(line)
        if match and (options or stem):
            letters.append(match.group(1))
            options.append(DraftOption(tidy(match.group(2))))
        elif options:
            draft.problems.append(f"{where}: {line[:40]!r} follows the options; each option "
                                  "starts with a capital letter and '.' or ')' ")
            return
        else:
            stem.append(line)
    answer = _ANSWER.match(lines[-1])
    letter = answer.group(1).upper() if answer else ""
    if not letters:
        draft.problems.append(f"{where}: no options before 'ANSWER:'; write each on its own "
                              "line starting with a capital letter and '.' or ')', as 'A. '")
        return
    if letter not in letters and _SEVERAL.fullmatch(letter):
        draft.problems.append(f"{where}: ANSWER names several options ({letter!r}); an "
                              "Aiken question has one right answer: give one letter")
        return
    if letter not in letters:
        named = repr(letter) if letter else "empty"
        draft.problems.append(f"{where}: ANSWER is {named}, which names no option "
                              f"(options: {', '.join(letters) or 'none'})")
        return
    options[letters.index(letter)].fraction = 100.0
    draft.questions.append(DraftQuestion(where, "", tidy("\n".join(stem)), options))
