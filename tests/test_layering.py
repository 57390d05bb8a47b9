"""The file's architecture, checked: sections in the order data flows, and the era
(and the task form) known only to the session and the task adapters.

mcp_tui.py is read with ``ast``. Sections are its banners (``# N. Title`` under a
``# ====`` rule) and sub-sections (``# -- Na. title``). A name a section uses must be
defined in that section or an earlier one (only ``main`` may reach forward), and no
code outside section 2 (session) and 3c (tasks) may decide by era: read ``.era``,
``.form`` or ``.protocol_version``, compare with a protocol version, or test the
era-specific error codes -32020, -32021 and -32042.
"""
import ast
import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "mcp_tui.py"
ERA_ATTRIBUTES = {"era", "form", "protocol_version"}
ERA_CODES = {-32020, -32021, -32042}
VERSION_NAMES = {"MODERN_VERSION", "LEGACY_VERSIONS"}
VERSION_TEXT = re.compile(r"^\d{4}-\d\d-\d\d$")
ERA_SECTIONS = {(2, ""), (3, "c")}


def read_sections(text):
    """[(first line, (number, letter), title)] in file order."""
    lines = text.split("\n")
    found = []
    for index, line in enumerate(lines):
        main = re.match(r"^# (\d+)\. (.+)$", line)
        if main and index and lines[index - 1].startswith("# ===="):
            found.append((index + 1, (int(main.group(1)), ""), main.group(2)))
            continue
        sub = re.match(r"^# -- (\d+)([a-z])\. (.+?) -*$", line)
        if sub:
            found.append((index + 1, (int(sub.group(1)), sub.group(2)), sub.group(3)))
    return found


def section_of(line, sections):
    current = None
    for first, key, _ in sections:
        if first <= line:
            current = key
    return current


def load():
    text = SOURCE.read_text(encoding="utf-8")
    return ast.parse(text), read_sections(text)


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
        if line is None or section_of(line, sections) in ERA_SECTIONS:
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


def later(owner, user):
    """Sections follow the data; inside section 3 so do its parts (catalog, input requests,
    tasks). The TUI's parts read top-down instead: the app, its screens, their widgets."""
    if owner[0] != user[0]:
        return owner[0] > user[0]
    return owner[0] == 3 and owner[1] > user[1]


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


def test_the_sections_are_in_order_and_complete():
    _, sections = load()
    keys = [key for _, key, _ in sections]
    assert keys == sorted(keys), keys
    numbers = sorted(set(number for number, _ in keys))
    for number in (1, 2, 3, 4, 6, 7, 8, 10):
        assert number in numbers, "section %d has no banner" % number
    for sub in ((3, "a"), (3, "b"), (3, "c"), (8, "a"), (8, "b"), (8, "c"), (8, "d")):
        assert sub in keys, "sub-section %d%s has no banner" % sub


def test_only_the_session_and_the_task_adapters_know_the_era():
    tree, sections = load()
    found = era_decisions(tree, sections)
    assert not found, "%d era/form decisions outside sections 2 and 3c:\n%s" % (
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
    """Polling a task is the task adapters' job (3c): a second sender would poll its own way."""
    tree, sections = load()
    lines = sends_of(tree, "tasks/get")
    assert len(lines) == 1, "tasks/get is sent at mcp_tui.py lines %s" % lines
    assert section_of(lines[0], sections) == (3, "c")


def test_the_sender_search_sees_every_spelling():
    source = ('def a(s, i):\n    return s.request("tasks/get", {"taskId": i})\n'
              'def b(s, i):\n    return s.channel.call(\n        "tasks/get", dict(taskId=i))\n'
              'def c(t, i):\n    t.send({"jsonrpc": "2.0", "id": 1, "method": "tasks/get"})\n'
              'def d(s):\n    return s.request("tasks/list", {}), ("tasks/get",)\n')
    assert sends_of(ast.parse(source), "tasks/get") == [2, 4, 7]
