"""Quiz content: YAML files under content/ loaded and validated into frozen dataclasses."""

from bot.quiz.load import default_content_dir, iter_quiz_files, load_all, load_file, load_quizzes
from bot.quiz.model import Option, Question, Quiz, Text
from bot.quiz.quality import quality_warnings

__all__ = ["Option", "Question", "Quiz", "Text", "default_content_dir", "iter_quiz_files",
           "load_all", "load_file", "load_quizzes", "quality_warnings"]
