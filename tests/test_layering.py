"""The file's architecture, checked: sections in the order data flows, and the era
(and the task form) known only to the session and the task adapters.

mcp_tui.py is read with ``ast``. Sections are its banners (``# N. Title`` under a
``# ====`` rule) and sub-sections (``# -- Na. title``). A name a section uses must be
defined in that section or an earlier one (only ``main`` may reach forward), and no
code outside section 2 (session, all its parts) and 3e (tasks) may decide by era: read ``.era``,
``.form`` or ``.protocol_version``, compare with a protocol version, or test the
era-specific error codes -32020, -32021 and -32042.

Issue 23's map, checked: the module docstring's map must match the banners and name each
class where it is; a declared table (MAY_USE) says which sections each section may use
(the TUI never the CLI); the CLI and the TUI never reach into a session's channel or
transport; only the era classes, the task adapters and the choice of era compare eras.
Today's breaches are listed, each by name, in KNOWN_EXCEPTIONS: the to-do of the code moves.
"""
import ast
import functools
import re
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "mcp_tui.py"
ERA_ATTRIBUTES = {"era", "form", "protocol_version"}
ERA_CODES = {-32020, -32021, -32042}
VERSION_NAMES = {"MODERN_VERSION", "LEGACY_VERSIONS"}
VERSION_TEXT = re.compile(r"^\d{4}-\d\d-\d\d$")
TASKS_SECTION = (3, "e")  # the task adapters


def knows_the_era(key):
    """Section 2 (each of its parts) and the task adapters may decide by era."""
    return key is not None and (key[0] == 2 or key == TASKS_SECTION)


def read_sections(text):
    """[(first line, (number, letter), title)] in file order."""
    lines = text.split("\n")
    found = []
    for index, line in enumerate(lines):
        main = re.match(r"^# (\d+)\. (.+)$", line)
        if main and index and lines[index - 1].startswith("# ===="):
            found.append((index + 1, (int(main.group(1)), ""), main.group(2)))
            continue
        # a sub-section's banner, or (the same key again, no letter for a main section) a signpost
        # further into a part: its name is the part's, what it adds is after the colon
        sub = re.match(r"^# -- (\d+)([a-z]?)\. (.+?) -*$", line)
        if sub:
            found.append((index + 1, (int(sub.group(1)), sub.group(2)), sub.group(3)))
    return found


def section_of(line, sections):
    current = None
    for first, key, _ in sections:
        if first <= line:
            current = key
    return current


@functools.lru_cache(maxsize=4)
def parsed(text):
    """ast.parse(text), once per text: each check reads the same 18,000-line file, and a parse
    of it is about 0.4 s of CPU. The checks only read the tree."""
    return ast.parse(text)


@pytest.fixture(scope="module", autouse=True)
def forget_the_parsed_trees():
    """The trees are dropped with this module: kept alive, their 140,000 nodes slow every
    later garbage collection in this worker."""
    yield
    parsed.cache_clear()


def load():
    text = SOURCE.read_text(encoding="utf-8")
    return parsed(text), read_sections(text)


def top_level_names(tree, sections):
    """Each top-level name -> the section that defines it."""
    defined = {}
    for node in tree.body:
        names = []
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
        for name in names:
            defined.setdefault(name, section_of(node.lineno, sections))
    return defined


def is_negative_code(node):
    return (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
            and -node.operand.value in ERA_CODES)


def era_decisions(tree, sections):
    """(line, what) for each era decision outside the session and the task adapters."""
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        if line is None or knows_the_era(section_of(line, sections)):
            continue
        if isinstance(node, ast.Attribute) and node.attr in ERA_ATTRIBUTES and isinstance(node.ctx, ast.Load):
            found.append((line, "reads .%s" % node.attr))
        elif isinstance(node, ast.Compare):
            operands = [node.left] + list(node.comparators)
            for operand in operands:
                if isinstance(operand, ast.Constant) and isinstance(operand.value, str) and VERSION_TEXT.match(
                        operand.value):
                    found.append((line, "compares with %r" % operand.value))
                elif isinstance(operand, ast.Name) and operand.id in VERSION_NAMES:
                    found.append((line, "compares with %s" % operand.id))
                elif is_negative_code(operand):
                    found.append((line, "tests error code -%d" % operand.operand.value))
                elif isinstance(operand, (ast.Tuple, ast.List, ast.Set)) and any(
                        is_negative_code(e) for e in operand.elts):
                    found.append((line, "tests an era error code"))
    return sorted(set(found))


ORDERED_PARTS = (3, 6)


def later(owner, user):
    """Sections follow the data; inside sections 3 and 6 so do their parts (catalog, input
    requests, tasks; the views, then the connections that write with them). The TUI's parts
    read top-down instead: the app, its screens, their widgets."""
    if owner[0] != user[0]:
        return owner[0] > user[0]
    return owner[0] in ORDERED_PARTS and owner[1] > user[1]


def forward_references(tree, sections):
    """(line, name, its section) where a section uses a name defined by a later one."""
    defined = top_level_names(tree, sections)
    found = []
    for node in tree.body:
        user = section_of(node.lineno, sections)
        if user is None or user[0] == 10:  # main may use everything
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load) and inner.id in defined:
                owner = defined[inner.id]
                if owner is not None and later(owner, user):
                    found.append((inner.lineno, inner.id, owner))
    return found


# ------------------------------------------------------------------------------------------
# The map, checked (issue 23, item 4). Every check takes the file's text, so the tests at the
# end feed each one a small bad example and see it fail; each returns readable problems.
#
# What each section may use (besides itself and the constants above section 1). Data flows
# down the file (wire -> session -> features -> debug log -> auth -> views -> CLI -> TUI ->
# sessions keeper -> main), so a section uses those above it, with what the design adds: the
# CLI and the TUI are two front ends over the same session and views, so the TUI never uses
# the CLI; the keeper runs CLI commands' sessions (it parses their words) but no screen; only
# main reaches forward. The connections (6a: connection specs, config files, ``connect``) are
# the session layer's way in, but they open the debug log (4) and the authorizer (5), so they
# are a part of section 6 after the views, which never use them (ORDERED_PARTS).
MAY_USE = {
    1: set(),
    2: {1},
    3: {1, 2},
    4: {1, 2, 3},
    5: {1, 2, 3, 4},
    6: {1, 2, 3, 4, 5},
    7: {1, 2, 3, 4, 5, 6},
    8: {1, 2, 3, 4, 5, 6},  # never 7: the TUI does not use the CLI
    9: {1, 2, 3, 4, 5, 6, 7},  # never 8
    10: {1, 2, 3, 4, 5, 6, 7, 8, 9},
}
FRONT_ENDS = (7, 8)
# "The CLI and the TUI never branch on era or transport": they open sessions through
# ``connect`` and ask the session, never its channel or transport.
SESSION_INSIDES = {"channel", "transport"}
# Where an era/form comparison may be: the era classes (issue 23 item 1 names them ...Era),
# the task adapters, and where the era is chosen.
ERA_CLASSES = {"TaskForm", "ExtensionTasks", "ExperimentalTasks"}
ERA_CHOICE = {"SessionOpener.open", "SessionOpener.auto", "SessionOpener.legacy_overlap",
              "SessionOpener.sign_of_life"}
ERA_COMPARED = {"era", "form", "legacy_stream", "protocol_version"}
ERA_NAMES = {"modern", "legacy"}  # Era.name, as summary()["era"] prints it: comparing it is an era decision

# Today's code breaks these rules in the places below. Each is a to-do for issue 23's code
# moves, not a rule loosened: delete an entry when its code moves (the test fails on an entry
# that no longer happens, so the list stays true).
KNOWN_EXCEPTIONS = {
}

# Today's numbers, measured with ast (issue 23's "done when"); ceilings, so they only go down:
# - era/form comparisons (a comparison reading .era, .form, .legacy_stream or .protocol_version):
#   1 in the whole file (ExperimentalTasks.support: its tasks exist only in 2025-11-25), down
#   from 24 since the session chose an Era (ModernEra or LegacyEra) once and asks it; 15 more
#   compare with a protocol version or an era's error code, all in the era classes, the task
#   adapters and where the era is chosen.
# - transport capability probes (getattr/hasattr on a transport or channel) and branches on
#   transport.name: 0 (were 10 and 5): every transport is a Transport, which declares with
#   defaults what callers use, and callers ask for a capability by its meaning.
# - classes over 500 lines: none (were Authorizer 703, Session 690, Keeper 536, Tui 526). Each
#   was split along its jobs: Authorizer into Grants, TokenKeeper, ...; Tui into TuiConnection;
#   Session's era into ModernEra and LegacyEra; Keeper's relaying into KeeperRelay. The ceiling
#   is the set of classes over BIG_CLASS, so it stays empty.
ERA_COMPARISONS_TODAY = 1
TRANSPORT_PROBES_TODAY = 0
TRANSPORT_NAME_BRANCHES_TODAY = 0
BIG_CLASSES_TODAY = set()
BIG_CLASS = 500


def section_name(title):
    """A banner's title up to its first colon, as the docstring map names it ("sessions keeper")."""
    return title.split(":")[0].strip().lower()


def key_text(key):
    return "%d%s" % key


def banner_names(sections):
    """(number, letter) -> the section's name, from its banner."""
    return {key: section_name(title) for _, key, title in sections}


def docstring_map(tree):
    """[(key, name, description, [classes])] from the module docstring's map: one entry per
    line like ``   3. features      what ...`` or ``     3a. tasks      ...``; continuation
    lines are indented further; ``classes:`` starts the entry's list of classes."""
    text = ast.get_docstring(tree, clean=False) or ""
    entries = []
    for line in text.split("\n"):
        entry = re.match(r"^ {1,6}(\d+)([a-z]?)\. (\S.*?)(?: {2,}(.*))?$", line)
        if entry:
            key = (int(entry.group(1)), entry.group(2))
            entries.append([key, entry.group(3).strip().lower(), entry.group(4) or ""])
        elif entries and line.strip():
            entries[-1][2] += " " + line.strip()
        elif entries:
            break  # the map ends at its first blank line
    found = []
    for key, name, body in entries:
        description, _, classes = body.partition("classes:")
        found.append((key, name, description.strip(), classes.split()))
    return found


def places(tree):
    """(top-level node, place, node) for every node of the file; the place is "Class.method",
    "Class" (its bases and class-level statements), a function's name, or "" at module level."""
    for top in tree.body:
        if isinstance(top, ast.ClassDef):
            for part in top.bases + top.keywords + top.decorator_list + top.body:
                place = top.name + "." + part.name if isinstance(part, ast.FunctionDef) else top.name
                for node in ast.walk(part):
                    yield top, place, node
        else:
            for node in ast.walk(top):
                yield top, top.name if isinstance(top, ast.FunctionDef) else "", node


def top_level_classes(tree, sections):
    """Each top-level class -> (its section, its first line, its length in lines)."""
    return {node.name: (section_of(node.lineno, sections), node.lineno, node.end_lineno - node.lineno + 1)
            for node in tree.body if isinstance(node, ast.ClassDef)}


def map_problems(text):
    """Where the docstring map disagrees with the banners, or with where the classes and the
    ``names`` it lists are defined."""
    tree, sections = parsed(text), read_sections(text)
    documented = docstring_map(tree)
    return map_section_problems(documented, sections) + map_name_problems(documented, tree, sections)


def map_section_problems(documented, sections):
    banners, first_lines = banner_names(sections), {key: line for line, key, _ in sections}
    problems = []
    for key, name, _, _ in documented:
        if key not in banners:
            problems.append("the docstring map lists %s. %s, which has no banner" % (key_text(key), name))
        elif banners[key] != name:
            problems.append("the docstring map calls section %s %r; its banner (line %d) calls it %r" % (
                key_text(key), name, first_lines[key], banners[key]))
    listed = [key for key, _, _, _ in documented]
    for key in banners:
        if key not in listed:
            problems.append("section %s. %s (banner at line %d) is missing from the docstring map" % (
                key_text(key), banners[key], first_lines[key]))
    in_both = [key for key in listed if key in banners]
    if in_both != [key for key in banners if key in listed]:
        problems.append("the docstring map lists the sections in another order than the banners: %s" % (
            " ".join(key_text(key) for key in in_both)))
    return problems


def map_name_problems(documented, tree, sections):
    classes, defined = top_level_classes(tree, sections), top_level_names(tree, sections)
    problems = []
    for key, name, description, listed_classes in documented:
        for cls in listed_classes:
            if cls not in classes:
                problems.append("the docstring map lists class %s under %s. %s; the file has no class %s" % (
                    cls, key_text(key), name, cls))
            elif classes[cls][0] != key:
                problems.append("the docstring map lists class %s under %s. %s; it is in section %s (line %d)" % (
                    cls, key_text(key), name, key_text(classes[cls][0]), classes[cls][1]))
        for mentioned in re.findall(r"``(\w+)``", description):
            owner = defined.get(mentioned, key)
            if owner != key:
                problems.append("the docstring map puts %s under %s. %s; it is in %s" % (
                    mentioned, key_text(key), name, "section " + key_text(owner) if owner else "the preamble"))
    seen = set(cls for _, _, _, listed_classes in documented for cls in listed_classes)
    for cls, (key, line, _) in sorted(classes.items(), key=lambda item: item[1][1]):
        if cls not in seen and key is not None:
            problems.append("class %s (section %s, line %d) is missing from the docstring map" % (
                cls, key_text(key), line))
    return problems


def banner_use_problems(text):
    """Where a banner's "Uses sections A-B" disagrees with MAY_USE."""
    lines = text.split("\n")
    problems = []
    for first, key, _ in read_sections(text):
        block = []
        for line in lines[first:]:
            if not line.startswith("#") or line.startswith("# ===="):
                break
            block.append(line)
        said = re.search(r"Uses sections (\d+)-(\d+)", " ".join(block))
        if said and set(range(int(said.group(1)), int(said.group(2)) + 1)) != MAY_USE[key[0]]:
            problems.append("the banner of section %s (line %d) says it uses sections %s-%s; MAY_USE says %s" % (
                key_text(key), first, said.group(1), said.group(2), sorted(MAY_USE[key[0]])))
    return problems


def use_problems(text):
    """[(rule, place, message)]: a section using a name of a section it may not (MAY_USE), and a
    front end reaching into a session's channel or transport."""
    tree, sections = parsed(text), read_sections(text)
    defined, names = top_level_names(tree, sections), banner_names(sections)
    found = []
    for top, where, inner in places(tree):
        user = section_of(top.lineno, sections)
        if user is None:
            continue
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load) and inner.id in defined:
            owner = defined[inner.id]
            if owner is not None and owner[0] != user[0] and owner[0] not in MAY_USE[user[0]]:
                found.append(("uses", where, "mcp_tui.py:%d: %s (section %d, %s) uses %s from section %d (%s), "
                              "which it may not; it may use %s" % (
                                  inner.lineno, where, user[0], names.get((user[0], ""), "?"), inner.id, owner[0],
                                  names.get((owner[0], ""), "?"), sorted(MAY_USE[user[0]]))))
        if (user[0] in FRONT_ENDS and isinstance(inner, ast.Attribute) and inner.attr in SESSION_INSIDES
                and "session" in dotted(inner.value).split(".")):
            found.append(("reach", where, "mcp_tui.py:%d: %s (section %d, %s) reaches into %s.%s; "
                          "ask the session instead" % (inner.lineno, where, user[0], names.get((user[0], ""), "?"),
                                                       dotted(inner.value), inner.attr)))
    return found


def dotted(node):
    """``self.session.transport`` -> "self.session.transport"; other expressions -> ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return dotted(node.value) + "." + node.attr
    return ""


def era_comparison(node):
    """What an era/form comparison compares, or None: ".era", "MODERN_VERSION", "'2024-10-07'"."""
    if not isinstance(node, ast.Compare):
        return None
    for operand in [node.left] + list(node.comparators):
        for part in (operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else [operand]):
            if isinstance(part, ast.Attribute) and part.attr in ERA_COMPARED:
                return "." + part.attr
            if isinstance(part, ast.Name) and part.id in VERSION_NAMES:
                return part.id
            if isinstance(part, ast.Constant) and isinstance(part.value, str) and (
                    VERSION_TEXT.match(part.value) or part.value in ERA_NAMES):
                return repr(part.value)
            if is_negative_code(part):
                return "-%d" % part.operand.value
    return None


def era_comparisons(text):
    """[(line, place, what)] for every era/form comparison in the file."""
    return sorted((node.lineno, place, what) for _, place, node in places(parsed(text))
                  for what in [era_comparison(node)] if what)


def era_owner(place):
    owner = place.split(".")[0]
    return owner in ERA_CLASSES or owner.endswith("Era") or place in ERA_CHOICE


def era_problems(text):
    """[(rule, place, message)] for era/form comparisons outside the era classes, the task
    adapters and the choice of era."""
    return [("era", place, "mcp_tui.py:%d: %s compares %s; only the era classes, the task adapters and the "
             "choice of era may" % (line, place or "module level", what))
            for line, place, what in era_comparisons(text) if not era_owner(place)]


def unexcused(found, known, rules):
    """The problems no entry of ``known`` names, and the entries of these rules that name none."""
    problems = [message for rule, place, message in found if (rule, place) not in known]
    happening = set((rule, place) for rule, place, _ in found)
    stale = ["KNOWN_EXCEPTIONS[%r] no longer happens: delete it" % (entry,) for entry in known
             if entry[0] in rules and entry not in happening]
    return problems, stale


def transport_probes(text):
    """[(line, what)]: getattr/hasattr on a transport or channel, and branches on transport.name."""
    found = []
    for node in ast.walk(parsed(text)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                and node.args and dotted(node.args[0]).split(".")[-1] in SESSION_INSIDES):
            found.append((node.lineno, "probe"))
        elif isinstance(node, ast.Compare) and any(
                isinstance(operand, ast.Attribute) and operand.attr == "name"
                and dotted(operand.value).split(".")[-1] == "transport" for operand in [node.left] + node.comparators):
            found.append((node.lineno, "transport.name"))
    return found


def big_classes(text):
    tree = parsed(text)
    return {name: size for name, (_, _, size) in top_level_classes(tree, read_sections(text)).items()
            if size > BIG_CLASS}


def test_the_docstring_map_matches_the_banners_and_the_classes():
    text = SOURCE.read_text(encoding="utf-8")
    problems = map_problems(text) + banner_use_problems(text)
    assert not problems, "\n".join(problems)


def test_each_section_uses_only_what_it_may():
    problems, stale = unexcused(use_problems(SOURCE.read_text(encoding="utf-8")), KNOWN_EXCEPTIONS, ("uses", "reach"))
    assert not problems + stale, "\n".join(problems + stale)


def test_only_the_era_classes_and_the_task_adapters_compare_eras():
    problems, stale = unexcused(era_problems(SOURCE.read_text(encoding="utf-8")), KNOWN_EXCEPTIONS, ("era",))
    assert not problems + stale, "\n".join(problems + stale)


def era_questions_asked_wrongly(text):
    """[(line, place, what)] for the ways around the era object that era_comparisons cannot
    see: a string-keyed question (era_states), isinstance on an era class, an era class's
    attribute read from outside it (ModernEra.may_cache), and an assignment to ``.era``
    anywhere but Session.adopt_era."""
    era_classes = set(name for name in re.findall(r"^class (\w*Era)\b", text, re.M))
    found = []
    for _, place, node in places(parsed(text)):
        owner = place.split(".")[0]
        if isinstance(node, ast.Attribute) and node.attr == "era_states":
            found.append((node.lineno, place, "era_states"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
              and len(node.args) == 2 and any(dotted(part) in era_classes for part in (
                  node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]))):
            found.append((node.lineno, place, "isinstance on an era class"))
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id in era_classes and owner not in era_classes):
            found.append((node.lineno, place, "%s.%s" % (node.value.id, node.attr)))
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if isinstance(part, ast.Attribute) and part.attr == "era" and place != "Session.adopt_era":
                        found.append((node.lineno, place, "sets .era"))
    return sorted(found)


def test_the_era_is_asked_questions_and_set_in_one_place():
    """Issue 33 item 6: the cache, ChangeWatch, check and the keeper ask the era object (a
    method), never by a string key, isinstance or a class attribute; session.era is set only
    by Session.adopt_era."""
    found = era_questions_asked_wrongly(SOURCE.read_text(encoding="utf-8"))
    assert found == [], "\n".join("mcp_tui.py:%d %s: %s" % item for item in found)


def test_the_era_question_checker_sees_each_way_around():
    text = ("class Era:\n    pass\nclass ModernEra(Era):\n    pass\n"
            "def watch(session):\n    if isinstance(session.era, ModernEra):\n        return 1\n"
            "    if session.era_states('listens'):\n        return 2\n    session.era = Era(session)\n"
            "    return ModernEra.may_cache(session)\n")
    assert [what for _, _, what in era_questions_asked_wrongly(text)] == [
        "isinstance on an era class", "era_states", "sets .era", "ModernEra.may_cache"]


def test_the_counts_issue_23_names_only_go_down():
    text = SOURCE.read_text(encoding="utf-8")
    era = [item for item in era_comparisons(text) if item[2] in set("." + name for name in ERA_COMPARED)]
    assert len(era) <= ERA_COMPARISONS_TODAY, "%d era/form comparisons (ceiling %d):\n%s" % (
        len(era), ERA_COMPARISONS_TODAY, "\n".join("mcp_tui.py:%d %s %s" % item for item in era))
    probes = transport_probes(text)
    assert sum(1 for _, what in probes if what == "probe") <= TRANSPORT_PROBES_TODAY, probes
    assert sum(1 for _, what in probes if what == "transport.name") <= TRANSPORT_NAME_BRANCHES_TODAY, probes
    for name, size in big_classes(text).items():
        assert name in BIG_CLASSES_TODAY, "class %s has %d lines (at most %d): split it along its jobs" % (
            name, size, BIG_CLASS)


def banner(number, title):
    return "# ====\n# %d. %s\n# ====\n" % (number, title)


def test_the_map_checker_sees_the_tui_use_a_cli_name():
    source = (banner(7, "CLI: words in") + "def parse_words():\n    return []\n"
              + banner(8, "TUI: screens") + "class Screen:\n    def draw(self):\n        return parse_words()\n")
    found = use_problems(source)
    assert [message for _, _, message in found] == [
        "mcp_tui.py:11: Screen.draw (section 8, tui) uses parse_words from section 7 (cli), which it may not; "
        "it may use [1, 2, 3, 4, 5, 6]"]
    assert unexcused(found, {}, ("uses",)) == ([found[0][2]], [])
    # a named exception excuses it; one that names nothing any more is reported
    assert unexcused(found, {("uses", "Screen.draw"): "to be moved"}, ("uses",)) == ([], [])
    assert unexcused([], {("uses", "Screen.draw"): "to be moved"}, ("uses",)) == (
        [], ["KNOWN_EXCEPTIONS[('uses', 'Screen.draw')] no longer happens: delete it"])


def test_the_map_checker_sees_a_section_use_one_it_may_not():
    source = (banner(1, "Wire: framing") + "def frame():\n    return Session\n"
              + banner(2, "Session: the era") + "class Session:\n    pass\n"
              + banner(8, "TUI: screens") + "def draw():\n    return 1\n"
              + banner(9, "Sessions keeper: kept") + "class Keeper(Session):\n    run = draw\n"
              + banner(10, "main: options") + "def main():\n    return Keeper, draw\n")
    assert [message for _, _, message in use_problems(source)] == [
        "mcp_tui.py:5: frame (section 1, wire) uses Session from section 2 (session), which it may not; "
        "it may use []",
        "mcp_tui.py:20: Keeper (section 9, sessions keeper) uses draw from section 8 (tui), which it may not; "
        "it may use [1, 2, 3, 4, 5, 6, 7]"]


def test_the_map_checker_sees_a_front_end_reach_into_the_session():
    source = (banner(7, "CLI: words in") + "class Cli:\n    def call(self, opts):\n"
              "        return self.session.channel.next_id(), opts.transport\n")
    assert [message for _, _, message in use_problems(source)] == [
        "mcp_tui.py:6: Cli.call (section 7, cli) reaches into self.session.channel; ask the session instead"]


def test_the_map_checker_sees_the_docstring_map_disagree_with_the_banners():
    right = ('"""Tiny.\n\n   1. wire          framing (``frame``)\n                    classes: Frame\n'
             '   2. session       the era\n     2a. cache      kept results\n'
             '                    classes: Cache\n\nMore text.\n"""\n'
             + banner(1, "Wire: framing") + "class Frame:\n    pass\ndef frame():\n    return Frame()\n"
             + banner(2, "Session: the era") + "# -- 2a. Cache: kept results --\nclass Cache:\n    pass\n")
    assert map_problems(right) == []
    wrong = ('"""Tiny.\n\n   1. wire          framing\n                    classes: Frame Token Gone\n'
             '   2. keeper        the era (``login``)\n   3. features      what a client asks\n\n"""\n'
             + banner(1, "Wire: framing") + "class Frame:\n    pass\n"
             + banner(2, "Session: the era") + "class Token:\n    pass\nclass Session:\n    pass\n"
             + banner(4, "Debug log: the ring") + "def login():\n    pass\n")
    assert map_problems(wrong) == [
        "the docstring map calls section 2 'keeper'; its banner (line 15) calls it 'session'",
        "the docstring map lists 3. features, which has no banner",
        "section 4. debug log (banner at line 22) is missing from the docstring map",
        "the docstring map lists class Token under 1. wire; it is in section 2 (line 17)",
        "the docstring map lists class Gone under 1. wire; the file has no class Gone",
        "the docstring map puts login under 2. keeper; it is in section 4",
        "class Session (section 2, line 19) is missing from the docstring map"]
    said = banner(8, "TUI: screens\n#\n# Uses sections 1-7 (and the CLI's parser)") + "def draw():\n    pass\n"
    assert banner_use_problems(said) == [
        "the banner of section 8 (line 2) says it uses sections 1-7; MAY_USE says [1, 2, 3, 4, 5, 6]"]


def test_the_map_checker_sees_an_era_decision_outside_the_era_classes():
    source = ("class ModernEra:\n    def stamp(self, session):\n        return session.era == 'modern'\n"
              "class ExperimentalTasks:\n    def get(self):\n        return self.form != 'extension'\n"
              "class Cli:\n    def ping(self, session):\n        return session.era == 'legacy'\n"
              "def is_stale(error):\n    return error.code in (-32020, -32021)\n"
              "def pick(version):\n    return version in LEGACY_VERSIONS\n")
    assert [message for _, _, message in era_problems(source)] == [
        "mcp_tui.py:9: Cli.ping compares .era; only the era classes, the task adapters and the choice of era may",
        "mcp_tui.py:11: is_stale compares -32020; only the era classes, the task adapters and the choice of era may",
        "mcp_tui.py:13: pick compares LEGACY_VERSIONS; only the era classes, the task adapters and the choice of "
        "era may"]


def test_the_counters_see_probes_branches_and_big_classes():
    source = ("class Big:\n" + "    x = 1\n" * 500 + "def cancel(channel, session):\n"
              "    if channel.transport.name == 'stdio' and hasattr(session.transport, 'abort'):\n"
              "        return getattr(channel, 'junk', ())\n")
    assert transport_probes(source) == [(503, "transport.name"), (503, "probe"), (504, "probe")]
    assert big_classes(source) == {"Big": 501}


def test_the_sections_are_in_order_and_complete():
    _, sections = load()
    keys = [key for _, key, _ in sections]
    assert keys == sorted(keys), keys
    numbers = sorted(set(number for number, _ in keys))
    for number in (1, 2, 3, 4, 6, 7, 8, 10):
        assert number in numbers, "section %d has no banner" % number
    for sub in [(1, letter) for letter in "abcdefg"] + [(2, letter) for letter in "abcd"] + [
            (3, letter) for letter in "abcdefghi"] + [(5, "a"), (5, "b"), (5, "c")] + [
            (6, letter) for letter in "abcd"] + [(8, letter) for letter in "abcd"]:
        assert sub in keys, "sub-section %d%s has no banner" % sub


def test_only_the_session_and_the_task_adapters_know_the_era():
    tree, sections = load()
    found = era_decisions(tree, sections)
    assert not found, "%d era/form decisions outside sections 2 and 3e:\n%s" % (
        len(found), "\n".join("mcp_tui.py:%d %s" % item for item in found))


def test_no_section_uses_a_later_one():
    tree, sections = load()
    found = forward_references(tree, sections)
    assert not found, "\n".join("mcp_tui.py:%d uses %s from section %s" % item for item in found)


def test_the_guard_sees_an_era_decision(tmp_path):
    """The checks above would catch what they promise to (so they cannot pass vacuously)."""
    source = ("# ====\n# 2. session\n# ====\ndef allowed(s):\n    return s.era\n"
              "# ====\n# 7. CLI\n# ====\ndef leaked(s, e):\n    return s.era == 'modern' or e.code == -32021 "
              "or s.protocol_version == '2025-11-25'\n")
    tree, sections = ast.parse(source), read_sections(source)
    assert [what for _, what in era_decisions(tree, sections)] == [
        "compares with '2025-11-25'", "reads .era", "reads .protocol_version", "tests error code -32021"]
    forward = "# ====\n# 1. wire\n# ====\ndef early():\n    return late()\n# ====\n# 2. session\n# ====\ndef late():\n" \
              "    return 1\n"
    assert forward_references(ast.parse(forward), read_sections(forward)) == [(5, "late", (2, ""))]
    # the views never use the connections part below them; the connections use the views
    parts = (banner(6, "Views: text") + "def server_text(s):\n    return connect(s)\n"
             + "# -- 6a. Connections: connect --\ndef connect(s):\n    return server_text(s)\n")
    assert forward_references(ast.parse(parts), read_sections(parts)) == [(5, "connect", (6, "a"))]


SENDERS = {"request", "call", "notify"}  # Session.request/notify, RpcChannel.call/notify: the method comes first


def sends_of(tree, method):
    """Lines of the code that sends ``method``: a sender called with its name as the first
    argument, or a message built by hand ({"method": name, ...})."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SENDERS
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == method):
            found.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value == "method" and isinstance(v, ast.Constant) and v.value == method
                for k, v in zip(node.keys, node.values)):
            found.append(node.lineno)
    return sorted(found)


def test_one_place_sends_tasks_get():
    """Polling a task is the task adapters' job (3e): a second sender would poll its own way."""
    tree, sections = load()
    lines = sends_of(tree, "tasks/get")
    assert len(lines) == 1, "tasks/get is sent at mcp_tui.py lines %s" % lines
    assert section_of(lines[0], sections) == TASKS_SECTION


def test_the_sender_search_sees_every_spelling():
    source = ('def a(s, i):\n    return s.request("tasks/get", {"taskId": i})\n'
              'def b(s, i):\n    return s.channel.call(\n        "tasks/get", dict(taskId=i))\n'
              'def c(t, i):\n    t.send({"jsonrpc": "2.0", "id": 1, "method": "tasks/get"})\n'
              'def d(s):\n    return s.request("tasks/list", {}), ("tasks/get",)\n')
    assert sends_of(ast.parse(source), "tasks/get") == [2, 4, 7]


# Issue 33 item 4: no stretch between banners longer than this. Where a part's classes refer to
# each other both ways (Cli and its command families through the table; a screen opening screens
# defined after it), a new part would break the rule that a part uses only earlier parts: there a
# signpost repeats the part's key and name (`# -- 8b. Screens: the tool form ...`).
STRETCH_LIMIT = 800


def test_no_stretch_between_banners_is_longer_than_the_limit():
    text = SOURCE.read_text(encoding="utf-8")
    sections = read_sections(text)
    ends = [first for first, _, _ in sections[1:]] + [text.count("\n") + 1]
    too_long = ["section %s: %d lines from line %d" % (key_text(key), end - first, first)
                for (first, key, _), end in zip(sections, ends)
                if end - first > STRETCH_LIMIT]
    assert not too_long, "\n".join(too_long)
