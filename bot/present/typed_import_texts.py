"""What an import says about a typed-number question (Moodle numerical, GIFT `{#...}`, a
sheet's `tolerance` column) and about a skipped one, in Urdu: part of the table of
`bot.present.import_texts` (its {names} match any text)."""

from __future__ import annotations

_ONLY = "only multiple choice, true/false, computed and typed-number questions are imported"
_ONLY_UR = "صرف کثیر انتخابی، درست/غلط، حسابی اور عدد لکھ کر جواب والے سوال درآمد ہوتے ہیں"

URDU_TYPED: tuple[tuple[str, str], ...] = (
    ("{at}: skipped {kind} question '{name}' ({why}); " + _ONLY,
     "{at}: {kind} سوال '{name}' چھوڑ دیا گیا ({why})؛ " + _ONLY_UR),
    ("{at}: skipped {kind} question '{name}'; " + _ONLY,
     "{at}: {kind} سوال '{name}' چھوڑ دیا گیا؛ " + _ONLY_UR),
    ("{at}: skipped {kind} question ({why}); " + _ONLY,
     "{at}: {kind} سوال چھوڑ دیا گیا ({why})؛ " + _ONLY_UR),
    ("{at}: skipped {kind} question; " + _ONLY,
     "{at}: {kind} سوال چھوڑ دیا گیا؛ " + _ONLY_UR),
    # typed-number questions (Moodle numerical, GIFT {#...}, a sheet's tolerance column)
    ("{at}: the feedback for any other answer ('*') is not kept; put it in the explanation",
     "{at}: کسی بھی دوسرے جواب ('*') کا فیڈبیک نہیں رکھا گیا؛ اسے وضاحت میں لکھ دیں"),
    ("{at}: partial credit ({shares}) is not kept: only the 100% answer counts as right; the "
     "others are wrong answers with their feedback",
     "{at}: جزوی نمبر ({shares}) نہیں رکھے گئے: صرف 100% والا جواب درست مانا جاتا ہے؛ باقی "
     "اپنے فیڈبیک کے ساتھ غلط جواب ہیں"),
    ("{at}: no wrong answers to offer as buttons (where typing is not taken, as in rounds); "
     "three of our own are shown beside the answer: add wrong answers (0%) with feedback to "
     "choose them",
     "{at}: بٹنوں کے لیے کوئی غلط جواب نہیں (جہاں لکھا ہوا جواب نہیں لیا جاتا، جیسے راؤنڈز میں)؛ "
     "درست جواب کے ساتھ ہمارے اپنے تین غلط جواب دکھائے جاتے ہیں: اپنے چنے ہوئے غلط جواب (0%) "
     "فیڈبیک کے ساتھ شامل کریں"),
    ("{at}: no general feedback; the explanation is the right answer (write a better one)",
     "{at}: عمومی فیڈبیک نہیں؛ وضاحت کے طور پر درست جواب رکھا گیا ہے (بہتر وضاحت لکھیں)"),
    ("{at}: the answer {value} ({share}) is within the right answer's tolerance (±{tol}) "
     "and is left out: typing it counts as right",
     "{at}: جواب {value} ({share}) درست جواب کی گنجائش (±{tol}) کے اندر ہے اس لیے شامل "
     "نہیں کیا گیا: اسے لکھنا درست مانا جاتا ہے"),
    ("{at}: more than {most} wrong answers; the rest are left out",
     "{at}: {most} سے زیادہ غلط جواب؛ باقی شامل نہیں کیے گئے"),
)
# Why a typed-number question is skipped (the {why} of "skipped ... question ({why})")
URDU_TYPED_REASONS: tuple[tuple[str, str], ...] = (
    ("its answer {value} is not a number", "اس کا جواب {value} عدد نہیں"),
    ("no answer is worth 100%", "کوئی جواب 100% کا نہیں"),
    ("it has {count} right answers ({values}); a typed number here has one",
     "اس کے {count} درست جواب ہیں ({values})؛ یہاں لکھے ہوئے عدد کا ایک ہی درست جواب ہوتا ہے"),
    ("correct gives {count} options ({given}); keep the one right answer",
     "correct میں {count} آپشن ({given}) دیے گئے ہیں؛ صرف ایک درست جواب رکھیں"),
)
