"""Quiz content: YAML files under content/ loaded and validated into frozen dataclasses."""

from bot.domain.quiz.load import (
           built_in_ids,
           default_content_dir,
           iter_quiz_files,
           load_all,
           load_file,
           load_quizzes,
)
from bot.domain.quiz.model import Option, Question, Quiz, Text, entry_quiz
from bot.domain.quiz.quality import quality_warnings, takeaway_warnings

__all__ = ["Option", "Question", "Quiz", "Text", "built_in_ids", "default_content_dir",
           "entry_quiz", "iter_quiz_files", "load_all", "load_file", "load_quizzes",
           "quality_warnings", "takeaway_warnings"]
