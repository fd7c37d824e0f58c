"""What an import says about a teacher's file (each problem and warning, `file:line: ...`),
in the uploader's language. The readers and checks say it in English, the language of
`quizbot import` and its logs; a chat upload shows it in the uploader's, through this table
of each message's English form and its translation ({names} match any text and are carried
over: file names, columns, the teacher's own words). A message without a translation here
is shown as it is said."""

from __future__ import annotations

import re
from functools import cache

from bot.present.typed_import_texts import URDU_TYPED, URDU_TYPED_REASONS

# (English, Urdu): every message a reader, the conversion and the checks of an imported
# question give, and the import's own about the file
URDU: tuple[tuple[str, str], ...] = (
    # the file
    ("{at}: is an old Excel workbook (.xls); save it as .xlsx or CSV (Excel: File > Save As > "
     "Excel Workbook) and use that file",
     "{at}: یہ پرانی Excel ورک بک (.xls) ہے؛ اسے .xlsx یا CSV کے طور پر محفوظ کریں (Excel: "
     "File > Save As > Excel Workbook) اور وہ فائل بھیجیں"),
    ("{at}: is an OpenDocument spreadsheet (.ods); save it as .xlsx or CSV (LibreOffice: File "
     "> Save As > Excel 2007-365) and use that file",
     "{at}: یہ OpenDocument اسپریڈشیٹ (.ods) ہے؛ اسے .xlsx یا CSV کے طور پر محفوظ کریں "
     "(LibreOffice: File > Save As > Excel 2007-365) اور وہ فائل بھیجیں"),
    ("{at}: is a document; write the questions as Aiken or GIFT text (a .txt file) or export "
     "them from Moodle as Moodle XML",
     "{at}: یہ دستاویز ہے؛ سوالات Aiken یا GIFT متن (.txt فائل) میں لکھیں، یا Moodle سے "
     "Moodle XML کے طور پر برآمد کریں"),
    ("{at}: is a Moodle course backup; export the question bank as Moodle XML (Question bank "
     "> Export) and use that file",
     "{at}: یہ Moodle کورس کا بیک اپ ہے؛ سوالات کا بینک Moodle XML کے طور پر برآمد کریں "
     "(Question bank > Export) اور وہ فائل بھیجیں"),
    ("{at}: cannot tell its format; name the file .yaml, .gift, .xml (Moodle XML), .csv or "
     ".xlsx, or give an Aiken file its ANSWER: lines (quizbot import also takes --format "
     "{formats})",
     "{at}: فائل کی قسم معلوم نہیں ہو سکی؛ فائل کا نام .yaml، .gift، .xml (Moodle XML)، .csv "
     "یا .xlsx پر ختم کریں، یا Aiken فائل میں ANSWER: والی سطریں لکھیں (quizbot import میں "
     "--format {formats} بھی دیا جا سکتا ہے)"),
    ("{at}: unknown format {fmt}; one of {formats}",
     "{at}: نامعلوم قسم {fmt}؛ ان میں سے ایک دیں: {formats}"),
    ("--id {id}: must be 1-40 of a-z, 0-9, '-', '_'",
     "--id {id}: میں a-z، 0-9، '-' اور '_' کے 1 سے 40 حروف ہوں"),
    ("--lang {lang}: must be a language code like en or ur",
     "--lang {lang}: زبان کا کوڈ ہو، جیسے en یا ur"),
    ("{at}: no question could be imported (every one was skipped)",
     "{at}: کوئی سوال درآمد نہیں ہو سکا (سب چھوڑ دیے گئے)"),
    ("{at}: no question could be imported", "{at}: کوئی سوال درآمد نہیں ہو سکا"),
    ("{at}: its {count} questions make a quiz of {size} kB; a quiz may have {limit} kB: split "
     "it into files of at most {most} questions",
     "{at}: اس کے {count} سوالات سے {size} kB کا کوئز بنتا ہے؛ کوئز زیادہ سے زیادہ {limit} kB کا "
     "ہو سکتا ہے: اسے زیادہ سے زیادہ {most} سوالات والی فائلوں میں تقسیم کریں"),
    ("{at}: is a zip archive; export the questions as one GIFT, Moodle XML, Aiken or CSV file",
     "{at}: یہ zip آرکائیو ہے؛ سوالات ایک GIFT، Moodle XML، Aiken یا CSV فائل میں برآمد کریں"),
    ("{at}: is not valid UTF-16 (byte {byte}); save the file as CSV UTF-8 and import it again",
     "{at}: درست UTF-16 نہیں (بائٹ {byte})؛ فائل کو CSV UTF-8 کے طور پر محفوظ کر کے دوبارہ "
     "بھیجیں"),
    ("{at}: is not UTF-8 (byte {byte}); save the file as UTF-8 and import it again",
     "{at}: UTF-8 نہیں (بائٹ {byte})؛ فائل کو UTF-8 میں محفوظ کر کے دوبارہ بھیجیں"),
    ("{at}: is {size} MB; an import may be at most {limit} MB",
     "{at}: فائل {size} MB کی ہے؛ زیادہ سے زیادہ {limit} MB کی فائل درآمد ہو سکتی ہے"),
    # Moodle XML
    ("{at}: nests deeper than {most} elements; not a Moodle export",
     "{at}: عناصر {most} سطحوں سے زیادہ گہرائی تک ہیں؛ یہ Moodle برآمد نہیں"),
    ("{at}: has more than {most} elements; not a Moodle export",
     "{at}: اس میں {most} سے زیادہ عناصر ہیں؛ یہ Moodle برآمد نہیں"),
    ("{at}: declares the XML entity {name}; entities are refused (entity bombs, external "
     "files)",
     "{at}: اس میں XML entity {name} ہے؛ entities قبول نہیں کی جاتیں (entity بم، بیرونی فائلیں)"),
    ("{at}: has a DTD; Moodle XML needs none",
     "{at}: اس میں DTD ہے؛ Moodle XML کو اس کی ضرورت نہیں"),
    ("{at}: refers to an external resource ({what}); refused",
     "{at}: یہ کسی بیرونی وسیلے ({what}) کا حوالہ دیتی ہے؛ قبول نہیں"),
    ("{at}: is not well-formed XML: {why}", "{at}: درست XML نہیں: {why}"),
    ("{at}: is not Moodle XML (the root must be <quiz>)",
     "{at}: یہ Moodle XML نہیں (سب سے بیرونی عنصر <quiz> ہونا چاہیے)"),
    ("{at}: fraction {value} is not a number", "{at}: fraction {value} عدد نہیں"),
    ("{at}: a picture in the text is not in the file (no <file> element); it is left out",
     "{at}: متن کی ایک تصویر فائل میں نہیں (<file> عنصر نہیں)؛ اسے شامل نہیں کیا گیا"),
    ("{at}: picture {name} is not base64-encoded", "{at}: تصویر {name} base64 میں نہیں"),
    ("{at}: picture {name} is over {most} MB, the most a picture may be",
     "{at}: تصویر {name} {most} MB سے بڑی ہے، جو کسی تصویر کی زیادہ سے زیادہ حد ہے"),
    ("{at}: picture {name} is not valid base64", "{at}: تصویر {name} درست base64 نہیں"),
    ("{at}: picture {name} left out: a question here shows one picture",
     "{at}: تصویر {name} شامل نہیں کی گئی: یہاں ایک سوال ایک ہی تصویر دکھاتا ہے"),
    # CSV
    ("{at}: is empty; the first row names the columns",
     "{at}: فائل خالی ہے؛ پہلی قطار میں کالموں کے نام ہوتے ہیں"),
    ("{at}: the header names {names} twice (columns {columns}); name each column once",
     "{at}: سرخی میں {names} دو بار ہے (کالم {columns})؛ ہر کالم کا نام ایک بار لکھیں"),
    ("{at}: the header has no {names} column (columns: {known})",
     "{at}: سرخی میں {names} کالم نہیں (کالم: {known})"),
    ("{at}: a quoted cell that starts in this row is not closed; add the missing '\"'",
     "{at}: اس قطار میں شروع ہونے والا اقتباس والا خانہ بند نہیں ہوا؛ چھوٹا ہوا '\"' لگائیں"),
    ("{at}: is not valid CSV: {why}", "{at}: درست CSV نہیں: {why}"),
    ("{at}: has {count} options ({filled} filled); a question has 2 to {most}: leave out the "
     "weakest",
     "{at}: اس میں {count} آپشن ہیں ({filled} بھرے ہوئے)؛ ایک سوال میں 2 سے {most} آپشن ہوتے "
     "ہیں: سب سے کمزور نکال دیں"),
    ("{at}: correct is {given}, which is option {n} ({text}) by its number or letter, but "
     "option {m} reads {again}; give the right option's letter ({one} or {other})",
     "{at}: correct میں {given} ہے، جو نمبر یا حرف کے لحاظ سے آپشن {n} ({text}) ہے، مگر "
     "آپشن {m} کا متن {again} ہے؛ درست آپشن کا حرف لکھیں ({one} یا {other})"),
    ("{at}: correct is {given}; give the right option's number (1-{most}), letter (A-J) or "
     "text, of a filled option",
     "{at}: correct میں {given} ہے؛ کسی بھرے ہوئے آپشن کا نمبر (1-{most})، حرف (A-J یا الف ب "
     "ج د) یا متن لکھیں"),
    # Excel workbooks (.xlsx, Kahoot's template)
    ("{at}: cannot be read as an Excel workbook (.xlsx); open it in Excel, LibreOffice or "
     "Google Sheets and save it again as .xlsx or CSV",
     "{at}: اسے Excel ورک بک (.xlsx) کے طور پر پڑھا نہیں جا سکا؛ اسے Excel، LibreOffice یا "
     "Google Sheets میں کھول کر دوبارہ .xlsx یا CSV کے طور پر محفوظ کریں"),
    ("{at}: unpacks to {size} MB; a workbook may hold at most {limit} MB: keep only the "
     "questions' sheet",
     "{at}: کھلنے پر یہ {size} MB کی ہو جاتی ہے؛ ورک بک زیادہ سے زیادہ {limit} MB کی ہو سکتی "
     "ہے: صرف سوالات والی شیٹ رکھیں"),
    ("{at}: the formula in {refs} has no saved value, so it reads as empty (the file was "
     "never saved by a spreadsheet program); open the file in Excel, LibreOffice or Google "
     "Sheets and save it, or paste the values in place of the formulas",
     "{at}: {refs} کے فارمولے کی کوئی محفوظ قدر نہیں، اس لیے یہ خالی پڑھا گیا (یہ فائل کبھی "
     "کسی اسپریڈشیٹ پروگرام میں محفوظ نہیں ہوئی)؛ فائل کو Excel، LibreOffice یا Google Sheets "
     "میں کھول کر محفوظ کریں، یا فارمولوں کی جگہ ان کی قدریں چسپاں کریں"),
    ("{at}: no row in its first {count} names the columns; write a header row (question, "
     "option1, option2 .. option10, correct, explanation) or use Kahoot's template (Question, "
     "Answer 1 .. Answer 4, Correct answer(s))",
     "{at}: اس کی پہلی {count} قطاروں میں سے کوئی کالموں کے نام نہیں بتاتی؛ سرخی کی قطار "
     "لکھیں (question، option1، option2 .. option10، correct، explanation) یا Kahoot کا سانچہ "
     "استعمال کریں (Question، Answer 1 .. Answer 4، Correct answer(s))"),
    # Aiken
    ("{at}: the question has no 'ANSWER: <letter>' line after its options",
     "{at}: سوال کے آپشنز کے بعد 'ANSWER: <حرف>' والی سطر نہیں"),
    ("{at}: text without options and 'ANSWER:' line",
     "{at}: ایسا متن جس کے آپشن اور 'ANSWER:' والی سطر نہیں"),
    ("{at}: {line} follows the options; each option starts with a capital letter and '.' "
     "or ')' ",
     "{at}: آپشنز کے بعد {line} ہے؛ ہر آپشن بڑے انگریزی حرف اور '.' یا ')' سے شروع ہوتا ہے"),
    ("{at}: no options before 'ANSWER:'; write each on its own line starting with a capital "
     "letter and '.' or ')', as 'A. '",
     "{at}: 'ANSWER:' سے پہلے کوئی آپشن نہیں؛ ہر آپشن الگ سطر پر بڑے انگریزی حرف اور '.' یا "
     "')' سے شروع کریں، جیسے 'A. '"),
    ("{at}: ANSWER names several options ({letters}); an Aiken question has one right "
     "answer: give one letter",
     "{at}: ANSWER میں کئی آپشن ہیں ({letters})؛ Aiken سوال کا ایک ہی درست جواب ہوتا ہے: ایک "
     "حرف لکھیں"),
    ("{at}: ANSWER is {letter}, which names no option (options: {letters})",
     "{at}: ANSWER میں {letter} ہے، جو کسی آپشن کا حرف نہیں (آپشن: {letters})"),
    # GIFT
    ("{at}: '::' opens a title that is not closed with '::'",
     "{at}: '::' سے شروع ہونے والا عنوان '::' سے بند نہیں ہوا"),
    ("{at}: '{{' opens the answers but no '}}' closes them; close them with '}}' (a literal "
     "brace is written '\\{{')",
     "{at}: '{{' سے جوابات شروع ہوتے ہیں مگر کوئی '}}' انہیں بند نہیں کرتا؛ '}}' سے بند کریں "
     "(قوسین بطور حرف '\\{{' لکھا جاتا ہے)"),
    ("{at}: another question follows its answers without a blank line; put a blank line "
     "between two questions",
     "{at}: جوابات کے فوراً بعد خالی سطر کے بغیر اگلا سوال ہے؛ دو سوالوں کے درمیان ایک خالی "
     "سطر چھوڑیں"),
    ("{at}: a picture (<img>) is left out: GIFT files carry none; import the Moodle XML "
     "export, which does",
     "{at}: تصویر (<img>) شامل نہیں کی گئی: GIFT فائلوں میں تصویریں نہیں ہوتیں؛ Moodle XML "
     "برآمد بھیجیں، اس میں ہوتی ہیں"),
    ("{at}: the answers must start with '=' or '~', got {got}",
     "{at}: جوابات '=' یا '~' سے شروع ہونے چاہییں، یہاں {got} ہے"),
    ("{at}: '=' inside an answer's text ('{word}') starts another right answer; write a "
     "literal '=' as '\\=' ('{fixed}')",
     "{at}: جواب کے متن ('{word}') کے اندر '=' ایک اور درست جواب شروع کرتا ہے؛ '=' بطور حرف "
     "'\\=' لکھیں ('{fixed}')"),
    # every format: the key, what is skipped or left out
    ("{at}: no option is the right answer (worth 100%); mark exactly one",
     "{at}: کوئی آپشن درست جواب (100%) نہیں؛ ٹھیک ایک کو درست قرار دیں"),
    ("{at}: {count} options are worth 100%; a question here has exactly one right answer",
     "{at}: {count} آپشن 100% کے ہیں؛ یہاں ہر سوال کا ٹھیک ایک درست جواب ہوتا ہے"),
    ("{at}: partial credit ({shares}) is not kept: only the 100% option counts as right",
     "{at}: جزوی نمبر ({shares}) نہیں رکھے گئے: صرف 100% والا آپشن درست مانا جاتا ہے"),
    ("{at}: {count} hint(s) left out: a question here has none; put what they say in the "
     "explanation",
     "{at}: اشارے ({count}) شامل نہیں کیے گئے: یہاں سوالوں کے اشارے نہیں ہوتے؛ ان کی بات وضاحت "
     "میں لکھ دیں"),
    ("{at}: no general feedback; the explanation is the right answer's text (write a better "
     "one)",
     "{at}: عمومی فیڈبیک نہیں؛ وضاحت کے طور پر درست جواب کا متن رکھا گیا ہے (بہتر وضاحت لکھیں)"),
    # the checks every imported question gets
    ("{at}: the question has no takeaway (the one line shown before the explanation)",
     "{at}: سوال کا خلاصہ (takeaway) نہیں (وضاحت سے پہلے دکھائی جانے والی ایک سطر)"),
    ("{at}: the question ({id}) repeats the question at {other}, options and all: learners "
     "would answer it twice; remove one",
     "{at}: سوال ({id}) آپشنز سمیت {other} والے سوال کو دہراتا ہے: سیکھنے والے اسے دو بار حل "
     "کریں گے؛ ایک ہٹا دیں"),
    ("{at}: {option} ({lang}) is the same as {other} and one of them is the right answer: a "
     "learner who picks the other is marked wrong; remove one or reword it",
     "{at}: {option} ({lang}) اور {other} ایک جیسے ہیں اور ان میں سے ایک درست جواب ہے: دوسرا "
     "چننے والے کا جواب غلط مانا جائے گا؛ ایک ہٹا دیں یا الفاظ بدلیں"),
    ("{at}: {option} ({lang}) repeats the question's wording ({shared})",
     "{at}: {option} ({lang}) سوال کے الفاظ ({shared}) دہراتا ہے"),
    ("{at}: an option is only a picture and options here are text; describe it in words (a "
     "picture may go in the question text)",
     "{at}: ایک آپشن صرف تصویر ہے جبکہ یہاں آپشن متن ہوتے ہیں؛ اسے الفاظ میں بیان کریں (تصویر "
     "سوال کے متن میں آ سکتی ہے)"),
    ("{at}: ({lang}) the right option is the longest in {count} of {total} questions (at most "
     "{most}); a learner can pick it without knowing the answer",
     "{at}: ({lang}) {total} میں سے {count} سوالوں میں درست آپشن سب سے لمبا ہے (زیادہ سے زیادہ "
     "{most})؛ سیکھنے والا جواب جانے بغیر اسے چن سکتا ہے"),
    ("{at}: the question ({lang}) absolute words ({words}) appear only in wrong options; word "
     "the right one as firmly or soften them",
     "{at}: سوال ({lang}): قطعی الفاظ ({words}) صرف غلط آپشنز میں ہیں؛ درست آپشن بھی اتنے ہی "
     "قطعی انداز میں لکھیں یا انہیں نرم کریں"),
    ("{at}: the question ({lang}) only the right option shares {words} with the question; "
     "give a wrong option the same word",
     "{at}: سوال ({lang}): صرف درست آپشن میں سوال والا لفظ {words} ہے؛ کسی غلط آپشن میں بھی "
     "یہی لفظ رکھیں"),
    ("{at}: the question ({lang}) {one} and {other} are near copies of each other and one is "
     "right; make every option as close, or none",
     "{at}: سوال ({lang}): {one} اور {other} تقریباً ایک جیسے ہیں اور ان میں سے ایک درست ہے؛ "
     "سب آپشنز اتنے ہی قریب رکھیں، یا کوئی نہیں"),
    ("{at}: the question ({lang}) the right option shares the most phrases and numbers with "
     "the others (each wrong option differs from it in one part); vary the wrong options more",
     "{at}: سوال ({lang}): درست آپشن کے سب سے زیادہ فقرے اور اعداد باقی آپشنز میں ہیں (ہر غلط "
     "آپشن اس سے ایک حصے میں مختلف ہے)؛ غلط آپشنز میں زیادہ فرق رکھیں"),
    ("{at}: the question ({lang}) every part of the right option is the most common value of "
     "that part among the options; let each wrong option miss more than one part (a 2 x 2 "
     "design)",
     "{at}: سوال ({lang}): درست آپشن کا ہر حصہ آپشنز میں اس حصے کی سب سے عام قدر ہے؛ ہر غلط "
     "آپشن کو ایک سے زیادہ حصوں میں مختلف رکھیں (2 x 2 ترتیب)"),
    ("{at}: {field} ({lang}) renders {used} as {written}; the glossary's term is {term}",
     "{at}: {field} ({lang}) میں {used} کو {written} لکھا گیا ہے؛ فرہنگ کی اصطلاح {term} ہے"),
    ("{at}: {field} ({lang}) does not render {term} (English: {words}) with the glossary's "
     "{ur}",
     "{at}: {field} ({lang}) میں {term} (انگریزی: {words}) کے لیے فرہنگ کی اصطلاح {ur} نہیں"),
    ("{at}: the question ({id}): options {one} and {other} are less than {gap}% apart in "
     "{times} of {draws} draws (e.g. {example}); move them apart, add a `where`, or declare a "
     "smaller `min_gap`",
     "{at}: سوال ({id}): {draws} میں سے {times} قرعوں میں آپشن {one} اور {other} میں {gap}% سے "
     "کم فرق ہے (مثلاً {example})؛ انہیں دور کریں، `where` لگائیں، یا چھوٹا `min_gap` دیں"),
    ("{at}: the question ({id}) gives away the answer of {other}: its options or explanation "
     "say {words}, as that key does",
     "{at}: سوال ({id}) {other} کا جواب بتا دیتا ہے: اس کے آپشنز یا وضاحت میں {words} ہے، جیسا "
     "اُس کے درست جواب میں"),
    ("{at}: the question ({id}) says {claim}{times}, which its numbers contradict; say it "
     "with a condition ({{if answer > 80: over|within}})",
     "{at}: سوال ({id}) میں {claim}{times} لکھا ہے، جسے اس کے اعداد جھٹلاتے ہیں؛ اسے شرط کے ساتھ "
     "لکھیں ({{if answer > 80: over|within}})"),
    ("{at}: explanation ({lang}) is {count} characters; keep it to {most} (the takeaway "
     "carries the point)",
     "{at}: وضاحت ({lang}) میں {count} حروف ہیں؛ اسے {most} تک رکھیں (اصل بات خلاصہ بتاتا ہے)"),
    ("{at}: {option} ({lang}) is the same as {other}; remove one or reword it",
     "{at}: {option} ({lang}) اور {other} ایک جیسے ہیں؛ ایک ہٹا دیں یا الفاظ بدلیں"),
    # a quiz file of ours (YAML): what `quizbot validate` says of it
    ("{at}: is {size} kB; a quiz file may have {limit} kB (split it)",
     "{at}: فائل {size} kB کی ہے؛ کوئز فائل زیادہ سے زیادہ {limit} kB کی ہو سکتی ہے (اسے "
     "تقسیم کریں)"),
    ("{at}: cannot be read: {why}", "{at}: پڑھی نہیں جا سکی: {why}"),
    ("{at}: is not valid YAML: {why}", "{at}: درست YAML نہیں: {why}"),
    ("{at}: key {key} is given twice (also at {other}); the last would silently win",
     "{at}: کلید {key} دو بار دی گئی ہے ({other} پر بھی)؛ آخری والی خاموشی سے غالب آ جاتی"),
    ("{at}: id {id} is already used by {other}",
     "{at}: id {id} پہلے ہی {other} میں استعمال ہو چکی ہے"),
    ("{at}: id must be 1-40 of a-z, 0-9, '-', '_' starting with a letter or digit, got {got}",
     "{at}: id میں a-z، 0-9، '-' اور '_' کے 1 سے 40 حروف ہوں، پہلا حرف یا ہندسہ؛ یہاں {got} ہے"),
    ("{at}: languages must be a list of language codes like [en, ur], got {got}",
     "{at}: languages زبانوں کے کوڈز کی فہرست ہو، جیسے [en, ur]؛ یہاں {got} ہے"),
    ("{at}: languages lists a language twice", "{at}: languages میں ایک زبان دو بار ہے"),
    ("{at}: {key} must be one of {known}, got {got}",
     "{at}: {key} ان میں سے ایک ہو: {known}؛ یہاں {got} ہے"),
    ("{at}: shuffle_questions must be true or false, got {got}",
     "{at}: shuffle_questions میں true یا false ہو؛ یہاں {got} ہے"),
    ("{at}: next must be another quiz's id, got {got}",
     "{at}: next میں کسی اور کوئز کی id ہو؛ یہاں {got} ہے"),
    ("{at}: questions must be a non-empty list of questions",
     "{at}: questions سوالوں کی ایسی فہرست ہو جو خالی نہ ہو"),
    ("{at}: {path} must be 1-40 of a-z, 0-9, '-', '_', got {got}",
     "{at}: {path} میں a-z، 0-9، '-' اور '_' کے 1 سے 40 حروف ہوں؛ یہاں {got} ہے"),
    ("{at}: {path} {id} duplicates the id of {other}",
     "{at}: {path} {id} وہی id ہے جو {other} کی ہے"),
    ("{at}: {path} must be the 0-based index of the right option, got {got}",
     "{at}: {path} میں درست آپشن کا نمبر ہو، 0 سے گنتی؛ یہاں {got} ہے"),
    ("{at}: {path} is {n} but the question has {count} options (0-based: 0 to {last})",
     "{at}: {path} میں {n} ہے مگر سوال کے {count} آپشن ہیں (0 سے گنتی: 0 سے {last})"),
    ("{at}: {path} has {count} options; a question needs {least} to {most}",
     "{at}: {path} میں {count} آپشن ہیں؛ سوال میں {least} سے {most} آپشن ہوں"),
    ("{at}: {path} must be a path like img/gpipe-p4-m4.png, got {got}",
     "{at}: {path} img/gpipe-p4-m4.png جیسا راستہ ہو؛ یہاں {got} ہے"),
    ("{at}: {path} must be an http(s) URL, got {got}",
     "{at}: {path} http(s) والا URL ہو؛ یہاں {got} ہے"),
    ("{at}: {path} must be a list of topic ids, got {got}",
     "{at}: {path} موضوعات کی ids کی فہرست ہو؛ یہاں {got} ہے"),
    ("{at}: {path} names {topic}, which is not a declared topic (topics.yaml or the quiz's "
     "`topics:`; known: {known})",
     "{at}: {path} میں {topic} ہے، جو کوئی اعلان شدہ موضوع نہیں (topics.yaml یا کوئز کا "
     "`topics:`؛ معلوم: {known})"),
    ("{at}: {path} must map each language to a string, got {kind}",
     "{at}: {path} ہر زبان کو ایک متن سے ملائے؛ یہاں {kind} ہے"),
    ("{at}: {path} has no {lang} text (the quiz declares {declared})",
     "{at}: {path} میں {lang} متن نہیں (کوئز میں {declared} کا اعلان ہے)"),
    ("{at}: {path} is a language the quiz does not declare in `languages`",
     "{at}: {path} ایسی زبان ہے جس کا کوئز کے `languages` میں اعلان نہیں"),
    ("{at}: {path} is not a known key (expected one of: {keys})",
     "{at}: {path} کوئی معروف کلید نہیں (ان میں سے ایک ہو: {keys})"),
    ("{at}: {path} is {count} characters; the limit is {most}",
     "{at}: {path} میں {count} حروف ہیں؛ حد {most} ہے"),
    ("{at}: {path} must be a mapping, got {kind}", "{at}: {path} mapping ہو؛ یہاں {kind} ہے"),
    ("{at}: {path} must be a list, got {kind}", "{at}: {path} فہرست ہو؛ یہاں {kind} ہے"),
    ("{at}: {path} is missing", "{at}: {path} موجود نہیں"),
    ("{at}: {path} is empty", "{at}: {path} خالی ہے"),
    ("{at}: the question ({id}): the answer is the {side} of the {count} options in {times} "
     "of {draws} draws (at most {most}); a learner who replays picks it without computing: "
     "add a mistake whose side of the answer depends on the draw (a slip drawn as an under- "
     "or an over-count, p and m swapped)",
     "{at}: سوال ({id}): {draws} میں سے {times} قرعوں میں جواب {count} آپشنز میں {side} ہے "
     "(زیادہ سے زیادہ {most})؛ دوبارہ کھیلنے والا حساب کیے بغیر اسے چن لے گا: ایسی غلطی شامل "
     "کریں جو قرعے کے لحاظ سے جواب سے کم یا زیادہ ہو (کم یا زیادہ گنتی، p اور m کی جگہ بدلنا)"),
)
# The kinds of question a reader skips, and the reasons it gives (inside the message above)
URDU_WORDS = {
    "an essay": "مضمون نما (essay)", "a numerical": "عددی (numerical)",
    "a typed-number": "عدد لکھ کر جواب والا",
    "a matching": "جوڑ ملانے والا (matching)", "a short answer": "مختصر جواب والا (short answer)",
    "a multiple-answer": "کئی درست جوابات والا", "a description": "بیانیہ (description)",
    "no answers in {...}": "{...} میں کوئی جواب نہیں", "only '=' answers": "صرف '=' والے جواب",
    "the smallest": "سب سے چھوٹا", "empty": "خالی",
    "smallest": "سب سے چھوٹا", "largest": "سب سے بڑا",
    "a shortanswer": "مختصر جواب والا (shortanswer)", "a match": "جوڑ ملانے والا (match)",
    "a calculated": "حسابی (calculated)", "a calculatedsimple": "سادہ حسابی (calculatedsimple)",
    "a ddwtos": "گھسیٹ کر رکھنے والا (ddwtos)", "a gapselect": "خالی جگہ چننے والا (gapselect)",
    "a multianswer": "کئی حصوں والا (multianswer)", "an untyped": "بغیر قسم کا",
    "a ddimageortext": "تصویر پر گھسیٹ کر رکھنے والا (ddimageortext)",
    "a ddmarker": "نشان گھسیٹ کر رکھنے والا (ddmarker)", "a random": "بے ترتیب (random)",
    "a randomsamatch": "بے ترتیب جوڑ ملانے والا (randomsamatch)",
    "it has one answer, typed in; give it wrong answers to choose from, as a calculatedmulti":
        "اس کا ایک ہی جواب ہے جو لکھا جاتا ہے؛ calculatedmulti کی طرح چننے کے لیے غلط جواب بھی دیں",
    "<single>false</single>": "<single>false</single>",
    "a mapping": "mapping", "a list": "فہرست", "a string": "متن", "nothing": "کچھ نہیں",
    "the question": "سوال",
}
# Why a Moodle calculated question is skipped (the {why} of "skipped ... question ({why})")
URDU_REASONS: tuple[tuple[str, str], ...] = (
    ("the formula {formula} is not one our formulas can read",
     "فارمولا {formula} ہمارے فارمولوں کی زبان میں نہیں پڑھا جا سکتا"),
    ("the formula {formula}: {why}", "فارمولا {formula}: {why}"),
    ("the answer {answer} must hold one {{=formula}}",
     "جواب {answer} میں ایک {{=formula}} ہونا چاہیے"),
    ("the wildcard {name} takes over {count} values in {span}; give it dataset items",
     "wildcard {name} کی {span} میں {count} سے زیادہ قدریں ہیں؛ اسے dataset items دیں"),
    ("it declares no wildcards (dataset definitions)",
     "اس میں کوئی wildcard نہیں (dataset definitions)"),
    ("{value} is not a number", "{value} عدد نہیں"),
    ("no numbers could be drawn ({why})", "کوئی اعداد نہیں نکالے جا سکے ({why})"),
    ("the credit is shared by {count} answers", "نمبر {count} جوابات میں بٹے ہیں"),
)
MESSAGES = {"ur": URDU + URDU_TYPED}
REASONS, WORDS = {"ur": URDU_REASONS + URDU_TYPED_REASONS}, {"ur": URDU_WORDS}


@cache
def _patterns(lang: str, reasons: bool = False) -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each English message (or a skipped question's reason) as a pattern whose {names}
    match any text."""
    out = []
    for english, said in (REASONS if reasons else MESSAGES).get(lang, ()):
        parts = re.split(r"(\{\w+\})", english.replace("{{", "\0").replace("}}", "\1"))
        regex = "".join(f"(?P<{p[1:-1]}>.*?)" if re.fullmatch(r"\{\w+\}", p)
                        else re.escape(p.replace("\0", "{").replace("\1", "}"))
                        for p in parts)
        out.append((re.compile(regex, re.DOTALL), said))
    return tuple(out)


# A check of a computed question (a typed-number one included) says how many of its draws
# showed the problem: "... (in 40 of 40 draws)"
_DRAWS = re.compile(r"(?P<said>.*) \(in (?P<n>\d+) of (?P<of>\d+) draws\)", re.DOTALL)
DRAWS = {"ur": " (نکالے گئے اعداد کی {of} باریوں میں سے {n} میں)"}


def said_in(lang: str, message: str) -> str:
    """`message` (an import's problem or warning) in `lang`; as it is when `lang` has no
    translation of it."""
    draws = _DRAWS.fullmatch(message)
    if draws and lang in DRAWS and translated(lang, draws.group("said")):
        return (_said(lang, draws.group("said"), reasons=False)
                + DRAWS[lang].format(n=draws.group("n"), of=draws.group("of")))
    return _said(lang, message, reasons=False)


def _said(lang: str, message: str, *, reasons: bool) -> str:
    words = WORDS.get(lang, {})
    for pattern, said in _patterns(lang, reasons):
        found = pattern.fullmatch(message)
        if found is not None:  # a skipped question's reason is said in `lang` too
            values = {k: words.get(v) or (_said(lang, v, reasons=True) if k == "why" else v)
                      for k, v in found.groupdict().items()}
            return said.format(**values)
    return message


def translated(lang: str, message: str) -> bool:
    """Whether `lang` has its own words for `message` (English always does)."""
    draws = _DRAWS.fullmatch(message)
    message = draws.group("said") if draws and lang in DRAWS else message
    return lang == "en" or any(p.fullmatch(message) for p, _ in _patterns(lang))
