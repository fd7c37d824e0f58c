"""The shape of the source, read statically (ast, nothing imported): no import circle among the
modules of bot/ and adapters/, no module over 400 lines, and no two modules sharing a basename
unless they are the same role on two platforms (adapters/telegram/x.py and adapters/discord/x.py),
the `Engine` as the adapters' one door (no adapter reaches one of its services or its store), and
its services built in bot/app/compose.py only.

Each check prints what it found, so a failure names the offenders."""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "adapters")
MAX_LINES = 400


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every .py file under bot/ and adapters/."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


@functools.cache
def parsed(source: str) -> ast.Module:
    """A module's tree, parsed once per test process (the checks below read every module)."""
    return ast.parse(source)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _module_level(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported: its top-level statements, including those
    inside top-level if/try/with blocks, but not inside functions, classes or
    `if TYPE_CHECKING:` (an `else:` of that runs, so it counts)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody,
                          *(handler.body for handler in node.handlers)):
                yield from _module_level(block)
        elif isinstance(node, ast.With):
            yield from _module_level(node.body)


def _targets(name: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The project modules an import statement in module `name` loads (the deepest one each
    names: `from bot.store import sqlite` is bot.store.sqlite, `from bot.store import X` is
    bot.store)."""
    if isinstance(node, ast.Import):
        bases = [alias.name for alias in node.names]
        return {_deepest(base) for base in bases} - {""}
    if node.level:
        package = name.split(".")
        if MODULES[name].name != "__init__.py":
            package = package[:-1]
        package = package[:len(package) - node.level + 1]
        base = ".".join(package + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    found = set()
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        found.add(sub if sub in MODULES else _deepest(base))
    return found - {""}


def _deepest(dotted: str) -> str:
    """The longest prefix of `dotted` that is a project module ("" if none)."""
    parts = dotted.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return ""


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        tree = parsed(path.read_text(encoding="utf-8"))
        edges: set[str] = set()
        for node in _module_level(tree.body):
            edges |= _targets(name, node)
        graph[name] = edges - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def oversized() -> list[str]:
    lines = {path: len(path.read_text(encoding="utf-8").splitlines())
             for path in MODULES.values()}
    return [f"{path.relative_to(ROOT)} ({n} lines)"
            for path, n in sorted(lines.items()) if n > MAX_LINES]


def shared_basenames() -> list[str]:
    """Basenames held by more than one module, except one role on several platforms: every
    holder directly in its own adapters/<platform>/ folder."""
    holders: dict[str, list[Path]] = defaultdict(list)
    for path in MODULES.values():
        if path.name not in ("__init__.py", "__main__.py"):
            holders[path.name].append(path.relative_to(ROOT))
    shared = []
    for name, paths in sorted(holders.items()):
        if len(paths) < 2:
            continue
        per_platform = all(len(p.parts) == 3 and p.parts[0] == "adapters" for p in paths)
        if not per_platform:
            shared.append(f"{name}: " + ", ".join(str(p) for p in sorted(paths)))
    return shared


def _engine_handed() -> list[ast.arg]:
    """The `Engine.__init__`'s keyword-only parameters, read from bot/features/engine.py."""
    tree = parsed(MODULES["bot.features.engine"].read_text(encoding="utf-8"))
    engine = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Engine")
    init = next(n for n in engine.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    return init.args.kwonlyargs


def engine_services() -> set[str]:
    """What the `Engine` is handed: every feature service and the store (its clock is no
    service)."""
    return {a.arg for a in _engine_handed()} - {"clock"}


def service_classes() -> set[str]:
    """The classes of the engine's services (their annotations; `Store` is a port the
    store's own module opens), and the `Engine` itself."""
    return {a.annotation.id for a in _engine_handed()
            if isinstance(a.annotation, ast.Name)} - {"Store"} | {"Engine"}


def built(source: str, classes: set[str]) -> list[str]:
    """Where `source` calls one of `classes` (`Rounds(...)`, `features.Library(...)`)."""
    found = []
    for node in ast.walk(parsed(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = (func.id if isinstance(func, ast.Name)
                    else func.attr if isinstance(func, ast.Attribute) else None)
            if name in classes:
                found.append((node.lineno, f"{name}(...)"))
    return [f"{line}: {text}" for line, text in sorted(found)]


def built_outside_compose() -> list[str]:
    classes = service_classes()
    return [f"{path.relative_to(ROOT)}:{where}"
            for name, path in MODULES.items() if name != "bot.app.compose"
            for where in built(path.read_text(encoding="utf-8"), classes)]


def past_the_engine(source: str, services: set[str]) -> list[str]:
    """Where `source` reaches one of the engine's services (`self.engine.rounds`,
    `app.engine.dailies.chat_gone`, `engine.store`) or one held on the app (`app.rounds`;
    `app.store` is the app's own documented member): "line: expression"."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(parsed(source)):
        if not (isinstance(node, ast.Attribute) and node.attr in services):
            continue
        holder = node.value
        name = (holder.id if isinstance(holder, ast.Name)
                else holder.attr if isinstance(holder, ast.Attribute) else None)
        if name == "engine" or (name == "app" and node.attr != "store"):
            found.append((node.lineno, ast.unparse(node)))
    return [f"{line}: {text}" for line, text in sorted(found)]


def adapters_past_the_engine() -> list[str]:
    services = engine_services()
    return [f"{path.relative_to(ROOT)}:{where}"
            for name, path in MODULES.items() if name.startswith("adapters.")
            for where in past_the_engine(path.read_text(encoding="utf-8"), services)]


def importers_of(package: str, *, outside: str) -> list[str]:
    """Modules under `outside` (not in `package`) with any import of `package`, function-level
    and `if TYPE_CHECKING:` ones included: "path:line"."""
    found = []
    for name, path in MODULES.items():
        if not name.startswith(outside + ".") or name.startswith(package):
            continue
        for node in ast.walk(parsed(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n == package or n.startswith(package + ".") for n in names):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def _report(title: str, offenders: list[str]) -> str:
    text = f"{title}: " + ("; ".join(offenders) if offenders else "none")
    print(text)
    return text


def test_no_import_circle_among_bot_and_adapters_modules() -> None:
    found = circles(import_graph())
    message = _report("import circles", [" <-> ".join(c) for c in found])
    assert not found, message


def test_no_module_over_400_lines() -> None:
    found = oversized()
    message = _report(f"modules over {MAX_LINES} lines", found)
    assert not found, message


def test_no_two_modules_share_a_basename_but_one_role_on_two_platforms() -> None:
    found = shared_basenames()
    message = _report("shared basenames", found)
    assert not found, message


def test_adapters_use_only_the_engine_never_its_services() -> None:
    """Issue 25: `Engine` is the adapters' one door (thin methods over the services that
    `bot.app.compose.build_engine` hands it); an adapter calls `engine.start_round(...)`,
    never `engine.rounds.start(...)` or `engine.dailies.store`."""
    found = adapters_past_the_engine()
    message = _report("adapters reaching past the engine", found)
    assert not found, message


def test_every_service_and_the_engine_are_built_in_compose_only() -> None:
    """Issue 25: one place wires the services (`bot.app.compose.build_engine`); nothing in
    bot/ or adapters/ builds a `Rounds`, a `Library` or an `Engine` of its own."""
    found = built_outside_compose()
    message = _report("services built outside bot/app/compose.py", found)
    assert not found, message


def test_the_running_bot_imports_nothing_from_the_maintainer_operations() -> None:
    """bot/ops (backup, restore, copy-db, the ops reader) is built on the store and run by
    the CLI only: nothing else in bot/ imports it, so the dependency points ops -> store."""
    found = importers_of("bot.ops", outside="bot")
    message = _report("bot/ modules importing bot.ops", found)
    assert not found, message
    assert importers_of("bot.ops", outside="adapters"), "the check sees no importer at all"


def test_the_build_check_knows_the_services_and_finds_a_build() -> None:
    classes = service_classes()
    assert {"Library", "Sessions", "Rounds", "Dailies", "Installed", "Engine"} <= classes
    assert "Store" not in classes
    source = ("rounds = Rounds(library, groups, solo, store)\n"
              "library = features.Library(store, quizzes)\n"
              "rows = Rows(store)\n")
    assert built(source, classes) == ["1: Rounds(...)", "2: Library(...)"]


def test_the_engine_door_check_sees_every_service_and_each_way_past_it() -> None:
    """The check above would pass vacuously if it knew no service or never matched."""
    services = engine_services()
    assert {"library", "solo", "rounds", "dailies", "rewards", "store"} <= services
    source = (
        "async def f(self, app, engine):\n"
        "    await self.app.engine.rounds.start(a, b)\n"
        "    dailies = app.engine.dailies\n"
        "    await engine.store.read(q)\n"
        "    await app.rounds.who(a, 1, 2)\n"
        "    await self.engine.start_round(a, b)\n"  # the door: fine
        "    await app.store.read(q)\n"  # the app's own member: fine
        "    await self.rounds.posts.show(e)\n"  # an adapter's own rounds: fine
    )
    assert past_the_engine(source, services) == [
        "2: self.app.engine.rounds", "3: app.engine.dailies", "4: engine.store",
        "5: app.rounds"]


def test_the_circle_finder_finds_a_circle_and_only_a_circle() -> None:
    """The checks above would pass vacuously if the finder never found anything."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_import_reader_skips_type_checking_and_function_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import bot.domain.errors\n"
        "from bot.store import sqlite\n"
        "from . import quiz\n"
        "if TYPE_CHECKING:\n"
        "    from bot.features.engine import Engine\n"
        "else:\n"
        "    import bot.domain.payloads\n"
        "try:\n"
        "    import bot.present.render\n"
        "except ImportError:\n"
        "    pass\n"
        "def later():\n"
        "    import bot.features.rounds\n"
    )
    name = "bot.domain.results"
    imported: set[str] = set()
    for node in _module_level(ast.parse(source).body):
        imported |= _targets(name, node)
    assert imported == {"bot.domain.errors", "bot.store.sqlite", "bot.domain.quiz",
                        "bot.domain.payloads", "bot.present.render"}


def test_the_shape_checks_see_every_module() -> None:
    graph = import_graph()
    assert len(graph) == len(MODULES) > 100
    assert "bot.features.engine" in graph and "adapters.telegram.handlers" in graph
    assert any(graph.values()), "no import edge found at all"
