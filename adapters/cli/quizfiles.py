"""`quizbot import`, `quizbot export-quiz` and `quizbot quizzes list|add|remove`: quiz files
in and out of the formats teachers use (GIFT, Moodle XML, Aiken, CSV, Excel .xlsx), and the
quizzes installed in the database. Problems go to stderr one line each, with the source's position;
the exit code is 1 when anything was refused."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import re
import shlex
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import yaml

from adapters.cli import datadir
from adapters.cli.options import add_config
from bot.app.config import load_config
from bot.domain.errors import (
    NotInstalled,
    QuizbotError,
    ShippedQuiz,
    UploadRefused,
    UploadTooBig,
)
from bot.domain.quiz import Quiz, load_all, load_file, load_quizzes
from bot.domain.quiz.formats import EXPORT_FORMATS, FORMATS, export_quiz
from bot.domain.quiz.formats.export import left_out
from bot.domain.quiz.images import MAX_IMAGE_BYTES
from bot.domain.quiz.load import MAX_FILE_BYTES
from bot.domain.quiz.topics import TOPICS_FILE
from bot.features.importing import Imported, convert, inside
from bot.features.installed import Installed
from bot.ops.files import (
    PlaceError,
    refuse_existing,
    refuse_missing_folder,
    refuse_quizbot_database,
    write_new,
)
from bot.present.i18n import Catalogue
from bot.store.sqlite import path_from_url

EXIT_OK, EXIT_ERROR = 0, 1
_ID = re.compile(r"^id: *['\"]?([a-z0-9_-]+)", re.MULTILINE)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `import` and `export-quiz` subcommands."""
    said = ("convert a GIFT, Moodle XML, Aiken, CSV or Excel (.xlsx, Kahoot's template too) "
            "file into a quiz file, checked as validate does")
    imp = sub.add_parser("import", help=said, description=said[:1].upper() + said[1:] + ".")
    imp.add_argument("path", type=Path, metavar="PATH", help="the file to import")
    imp.add_argument("--format", choices=FORMATS,
                     help="the file's format (default: from its name and content; xlsx: "
                          "an Excel workbook, its first sheet with a header row)")
    imp.add_argument("--id", dest="quiz_id", metavar="ID",
                     help="the quiz's id (default: from the file name)")
    imp.add_argument("--lang", metavar="LANG",
                     help="the language the questions are in (default: ur when they are "
                          "written in Urdu's script, else en)")
    imp.add_argument("--output", "-o", type=Path, metavar="FILE",
                     help="the quiz file to write, pictures beside it in img/ (default: "
                          "standard output)")
    imp.add_argument("--force", action="store_true",
                     help="write even with problems (listed), or over another file")
    add_config(imp, "config file: the quiz is checked against the shared topics of its "
                    "content.dir (topics.yaml), as the bot will load it there, unless "
                    "--output's folder has its own (default: the shipped topics)")
    exp = sub.add_parser("export-quiz", help="write a quiz as GIFT, Moodle XML or CSV, for "
                                             "a learning platform")
    exp.add_argument("quiz_id", metavar="ID", help="the quiz's id")
    exp.add_argument("--format", choices=EXPORT_FORMATS, required=True,
                     help="gift or moodle-xml: for Moodle's question bank (Import); csv: the "
                          "columns quizbot import reads, for a spreadsheet")
    exp.add_argument("--output", "-o", type=Path, metavar="FILE",
                     help="a new file to write (default: standard output)")
    exp.add_argument("--force", action="store_true", help="replace an existing --output")
    exp.add_argument("--lang", metavar="LANG", help="the language to write (default: the "
                                                    "quiz's first)")
    add_config(exp, "config file: its content folder and the quizzes installed in its "
                    "database (default: the shipped quizzes and those installed in your data "
                    "folder, as for quizzes add)")
    quizzes = sub.add_parser("quizzes", help="the quizzes admins installed (in the database)")
    action = quizzes.add_subparsers(dest="quizzes_command", required=True,
                                    metavar="{list,add,remove}")
    action.add_parser("list", help="every installed quiz")
    add = action.add_parser("add", help="check a quiz file (any format import reads, or "
                                        "our YAML) and install it")
    add.add_argument("path", type=Path, metavar="PATH")
    add.add_argument("--id", dest="quiz_id", metavar="ID", help="the quiz's id (default: "
                                                                "from the file)")
    remove = action.add_parser("remove", help="stop serving an installed quiz (learners' "
                                              "history stays)")
    remove.add_argument("quiz_id", metavar="ID")
    for parser in action.choices.values():
        add_config(parser, "config file: its database and content.dir (default: the "
                           "built-in defaults, as for play)")


def import_file(args: argparse.Namespace) -> int:
    """quizbot import PATH [--format F] [--id ID] [--lang LANG] [--output FILE] [--force]."""
    try:
        data = args.path.read_bytes()
    except OSError as exc:
        print(f"{args.path}: cannot be read: {exc.strerror}", file=sys.stderr)
        return EXIT_ERROR
    try:
        if args.output is not None:  # before anything is read from it or written beside it
            refuse_quizbot_database(args.output)
    except PlaceError as exc:
        print(f"quizbot: {exc}", file=sys.stderr)
        return EXIT_ERROR
    result = convert(data, str(args.path), fmt=args.format, quiz_id=args.quiz_id,
                     lang=args.lang, topics=_topics(args), before=_before(args.output))
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for problem in result.problems:
        print(problem, file=sys.stderr)
    if result.problems and not (args.force and result.yaml):
        print(f"{len(result.problems)} problem(s) found; nothing written.", file=sys.stderr)
        return EXIT_ERROR
    try:
        where = _write(result, args.output, force=args.force)
    except PlaceError as exc:
        print(f"quizbot: {exc}", file=sys.stderr)
        return EXIT_ERROR
    count = len(result.quiz.questions) if result.quiz else result.yaml.count("\n  - id: ")
    note = f" despite {len(result.problems)} problem(s) (--force)" if result.problems else ""
    print(f"wrote {where}: {_questions(count)}{note}", file=sys.stderr)
    return EXIT_OK


def _topics(args: argparse.Namespace) -> Path | None:
    """The shared topics the import is checked against: a topics.yaml beside --output, else
    the --config file's content.dir's (where `qb import` puts a deployment's quizzes), else
    None (the shipped ones)."""
    folders = [args.output.parent] if args.output is not None else []
    if args.config is not None:
        folders.append(load_config(args.config).content_dir)
    return next((f / TOPICS_FILE for f in folders if (f / TOPICS_FILE).is_file()), None)


def _before(output: Path | None) -> Quiz | None:
    """The quiz an earlier import wrote to `output` (its unchanged questions keep their
    ids), or None."""
    if output is None or not output.is_file():
        return None
    try:
        return load_file(output)
    except (QuizbotError, OSError, ValueError):
        return None  # not a quiz (any more): nothing to keep


def _write(result: Imported, output: Path | None, *, force: bool) -> str:
    if output is None:
        if result.images:
            raise PlaceError(f"{result.source}: has {len(result.images)} picture(s); give "
                             "--output FILE so they can be written beside it in img/")
        sys.stdout.write(result.yaml)
        return "standard output"
    replace = force or _same_quiz(output, result.yaml)
    refuse_missing_folder(output)
    refuse_existing(output, force=replace)
    _refuse_taken_id(output, result.yaml)
    for rel, data in result.images.items():  # pictures first: the file then finds them
        picture = output.parent / rel
        picture.parent.mkdir(exist_ok=True)
        write_new(picture, data, force=True)
    write_new(output, result.yaml.encode(), force=replace)
    return str(output)


def _refuse_taken_id(output: Path, new_yaml: str) -> None:
    """PlaceError when another quiz file beside `output` has the new quiz's id: the
    folder would no longer load (validate and the bot refuse a quiz id used twice)."""
    for other in sorted(output.parent.glob("*.y*ml")):
        if other.name != output.name and _same_quiz(other, new_yaml):
            quiz_id = _ID.search(new_yaml)
            raise PlaceError(f"{other}: already holds the quiz "
                             f"{quiz_id.group(1) if quiz_id else ''!r}; give --id another "
                             f"id, or --output {other.name} to replace it")


def _same_quiz(output: Path, new_yaml: str) -> bool:
    """True when `output` is this quiz imported before (same id): a re-import replaces it,
    keeping the question ids and so the learners' progress."""
    try:
        with output.open(encoding="utf-8") as file:
            old = _ID.search(file.read(64 * 1024))
    except (OSError, UnicodeDecodeError):
        return False
    new = _ID.search(new_yaml)
    return old is not None and new is not None and old.group(1) == new.group(1)


def export_file(args: argparse.Namespace) -> int:
    """quizbot export-quiz ID --format gift|moodle-xml|csv [--output FILE] [--lang LANG];
    with --config, the quizzes installed in its database are found too."""
    return asyncio.run(_export(args))


async def _export(args: argparse.Namespace) -> int:
    # The database `quizzes add` installs into: the config's, else the data folder's.
    config = datadir.load(args.config)
    quizzes, _ = load_all([config.content_dir])
    if args.quiz_id in quizzes or (args.config is None and not path_from_url(
            config.storage_url).exists()):
        return _write_export(args, quizzes)  # nothing installed without a database to open
    from bot.app.compose import open_installed

    async with open_installed(config, quizzes) as service:
        return _write_export(args, service.library.quizzes)  # while its pictures exist


def _write_export(args: argparse.Namespace, quizzes: Mapping[str, Quiz]) -> int:
    quiz = quizzes.get(args.quiz_id)
    if quiz is None:
        known = ", ".join(sorted(quizzes)) or "none"
        print(f"quizbot: no quiz {args.quiz_id!r} (quizzes: {known})", file=sys.stderr)
        return EXIT_ERROR
    lang = args.lang or quiz.languages[0]
    if lang not in quiz.languages:
        print(f"quizbot: {quiz.id} has no {lang!r} text (it has "
              f"{', '.join(quiz.languages)})", file=sys.stderr)
        return EXIT_ERROR
    try:  # before the notes of a conversion that could not be written anyway
        if args.output is not None:
            refuse_missing_folder(args.output)
            refuse_quizbot_database(args.output)
            refuse_existing(args.output, force=args.force)
    except PlaceError as exc:
        print(f"quizbot: {exc}", file=sys.stderr)
        return EXIT_ERROR
    data, notes = export_quiz(quiz, args.format, lang)
    for note in [*notes, *left_out(quiz, lang)]:
        print(f"note: {note}", file=sys.stderr)
    if args.output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return EXIT_OK
    if args.format == "csv":  # Excel reads a CSV file as UTF-8 only with a BOM (Urdu)
        data = "\ufeff".encode() + data
    try:
        write_new(args.output, data, force=args.force)
    except PlaceError as exc:
        print(f"quizbot: {exc}", file=sys.stderr)
        return EXIT_ERROR
    print(f"wrote {args.output}: {_questions(len(quiz.questions))} ({args.format}, {lang})",
          file=sys.stderr)
    return EXIT_OK


def installed_command(args: argparse.Namespace) -> int:
    """quizbot quizzes list|add PATH|remove ID [--config PATH]."""
    return asyncio.run(_installed(args))


async def _installed(args: argparse.Namespace) -> int:
    from bot.app.compose import open_installed

    config = datadir.load(args.config)
    async with open_installed(config, load_quizzes([config.content_dir])) as service:
        try:
            return await _quizzes(args, service, by=f"cli:{getpass.getuser()}")
        except UploadRefused as exc:
            # every problem, one a line, as validate and import list them (a chat reply
            # shows the first 20)
            for problem in exc.every:
                print(problem, file=sys.stderr)
            print(f"{len(exc.every)} problem(s) found; nothing installed. Fix each in "
                  f"{args.path} (the lines above say where), then run again: "
                  f"{_again(args)}", file=sys.stderr)
        except (UploadTooBig, ShippedQuiz, NotInstalled) as exc:
            print(f"quizbot: {Catalogue.load().t('en', exc.key, **exc.params)}",
                  file=sys.stderr)
        except OSError as exc:
            print(f"quizbot: {args.path}: cannot be read: {exc.strerror}", file=sys.stderr)
        return EXIT_ERROR


async def _quizzes(args: argparse.Namespace, service: Installed, *, by: str) -> int:
    if args.quizzes_command == "list":
        return await _list(service)
    if args.quizzes_command == "add":
        done = await service.add(args.path.read_bytes(), args.path.name, by=by,
                                 quiz_id=args.quiz_id, pictures=_pictures_beside(args.path))
        for warning in done.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if done.unchanged:
            print(f"unchanged {done.quiz_id}: {done.title}, {_questions(done.questions)}, already "
                  f"installed as version {done.version} from the same content; nothing was "
                  "changed")
        else:
            print(f"installed {done.quiz_id}: {done.title}, {_questions(done.questions)} "
                  f"(version {done.version}); every running bot serves it within a minute")
        return EXIT_OK
    title = await service.take_out(args.quiz_id, by=by)
    print(f"removed {args.quiz_id}: {title}; learners' answers stay in their history")
    return EXIT_OK


def _again(args: argparse.Namespace) -> str:
    """The `quizzes add` command line that was run, to paste once the file is fixed."""
    return shlex.join(["quizbot", "quizzes", "add", str(args.path),
                       *(["--id", args.quiz_id] if args.quiz_id else []),
                       *(["--config", str(args.config)] if args.config else [])])


def _pictures_beside(path: Path) -> dict[str, bytes]:
    """The pictures a quiz file of ours (YAML) names, read from beside it, as `quizbot
    validate` finds them: `quizbot import week3.xml --output week-3.yaml` writes them to
    img/ there, and `quizbot quizzes add week-3.yaml` refused the file without them. The
    install checks each again (size, kind, inside the folder) where it puts them."""
    if path.suffix.lower() not in (".yaml", ".yml"):
        return {}
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return {}  # refused as too big anyway
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, RecursionError, yaml.YAMLError):
        return {}  # the install that follows says what is wrong with the file
    questions = data.get("questions") if isinstance(data, dict) else None
    out: dict[str, bytes] = {}
    for question in questions if isinstance(questions, list) else ():
        rel = question.get("image") if isinstance(question, dict) else None
        if not isinstance(rel, str) or not inside(rel) or rel in out:
            continue
        picture = path.parent / rel
        with contextlib.suppress(OSError):
            if (picture.is_file() and not picture.is_symlink()
                    and picture.stat().st_size <= MAX_IMAGE_BYTES):
                out[rel] = picture.read_bytes()
    return out


def _questions(count: int) -> str:
    return f"{count} question{'' if count == 1 else 's'}"


async def _list(service: Installed) -> int:
    listed = await service.listed()
    if not listed:
        print("no installed quizzes; add one with: quizbot quizzes add PATH")
    for row, quiz in listed:
        what = (f"{quiz.title.get(quiz.languages[0])}, {_questions(len(quiz.questions))}"
                if quiz else "does not load any more (see the bot's log)")
        when = datetime.fromtimestamp(row.installed_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
        print(f"{row.quiz_id}: {what}; version {row.version}, by {row.installed_by}, {when}")
    return EXIT_OK
