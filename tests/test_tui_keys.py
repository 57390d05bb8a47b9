"""The README's TUI key table says what the code's key tables (Binding) say: every key a
screen binds is in that screen's row with the footer's words for it, and every key the row
names in backticks is one the screen (or the app, on every screen without a text field) binds.
No terminal needed: the tables are data."""
import re
from pathlib import Path

import mcp_tui

README = Path(__file__).resolve().parent.parent / "README.md"

# The README row ("Where") of each screen whose keys are a table, and the rows of shared keys.
ROWS = {
    "MainScreen": "Main screen",
    "HistoryScreen": "History screen (`H`)",
    "TokensScreen": "Tokens screen (`A`, Ctrl+G on the connection screen)",
    "ResourceScreen": "Resource screen",
    "TasksScreen": "Tasks screen (`T`)",
    "TaskDetailScreen": "Task detail (Enter on a task)",
    "RootsScreen": "Roots (`R`)",
    "PickScreen": "Log level (`L`)",
    "DebugScreen": "Debug screen",
    "TapsScreen": "Taps screen (`W`)",
    "TapConversationScreen": "A tap's conversation (Enter on a tap)",
    "TextScreen": "Text screens (help, an entry, a call)",
    "ToolScreen": "Tool screen",
    "TextAreaScreen": "Text area (Ctrl+E in a field)",
    "ObjectListScreen": "List of objects (Ctrl+E on an array of objects)",
    "AuthorizeScreen": "Authorize screen",
    "PromptScreen": "Prompt and template screens",
    "TemplateScreen": "Prompt and template screens",
    "ConnectScreen": "Connection screen",
    "FieldScreen": "Any form (tool, prompt, template, connection, input requests)",
    "LineScreen": "Any form (tool, prompt, template, connection, input requests)",
    "ElicitationScreen": "Input request (elicitation)",
    "UrlElicitationScreen": "URL request (URL elicitation)",
    "SamplingScreen": "Sampling review",
}
SHARED = ("Any screen", "Screens without a text field")
FORMS = "Any form (tool, prompt, template, connection, input requests)"  # shared by every FieldScreen
BROWSE_ROW = "Screens without a text field"


def readme_rows(text):
    """Where -> Keys, from the table under "## The TUI"."""
    section = text.split("\n## The TUI\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| ") and " | " in line:
            where, keys = line[2:].split(" | ", 1)
            rows[where.strip()] = keys.rstrip(" |")
    return rows


def plain(text):
    """The README's words as the footer writes them: no markup, Ctrl+X as ^X."""
    return text.replace("**", "").replace("`", "").replace("Ctrl+", "^")


def key_tokens(key):
    """The keys a binding's key names: "j/k PgUp/PgDn" -> j/k, PgUp/PgDn; "T / D (or F12) / q" -> T, D, F12, q."""
    words = key.split()
    return [word.strip("()") for word in words if len(words) == 1 or word not in ("/", "(or")]


def mentions(text, token):
    return re.search(r"(?<![\w/-])%s(?![\w/-])" % re.escape(token), text) is not None


def backticked_keys(keys_cell):
    """The keys a README row writes in backticks: `r`, `j`/`k` (j/k), `1`-`4` (1-4), `/`, `?`;
    marks such as `*` and words such as `stdio` are not keys."""
    found = []
    for match in re.finditer(r"(?<![\w`])`([\w/?])`(?:([/-])`([\w])`)?(?![\w`])", keys_cell):
        first, joint, second = match.groups()
        if len(first) == 1:
            found.append(first + joint + second if joint else first)
    return found


def screens():
    return [(getattr(mcp_tui, name), where) for name, where in ROWS.items()]


def problems(text):
    rows = readme_rows(text)
    found = []
    for where in list(ROWS.values()) + list(SHARED) + [FORMS]:
        if where not in rows:
            found.append("the README has no TUI key row %r" % where)
    if found:
        return found
    shared = " ".join(plain(rows[where]) for where in SHARED)
    browse = plain(rows[BROWSE_ROW])
    for key in backticked_keys(rows[BROWSE_ROW]):
        if key not in set(code for binding in mcp_tui.BROWSE_KEYS for code in binding.codes):
            found.append("the README's row %r names `%s`, which the app does not bind" % (BROWSE_ROW, key))
    browse_keys = set(token for binding in mcp_tui.BROWSE_KEYS for token in key_tokens(binding.key))
    for table, where in ((mcp_tui.GLOBAL_KEYS, "Any screen"), (mcp_tui.BROWSE_KEYS, BROWSE_ROW)):
        for binding in table:
            words = "%s %s" % (binding.key, binding.hint) if binding.hint else binding.key
            if words and words not in plain(rows[where]):
                found.append("%r: the README does not say %r" % (where, words))
    for screen, where in screens():
        row = plain(rows[where]) + (" " + plain(rows[FORMS]) if issubclass(screen, mcp_tui.FieldScreen) else "")
        bound_keys = set()
        for binding in screen.BINDINGS:
            tokens = key_tokens(binding.key)
            bound_keys.update(tokens + [code for code in binding.codes if len(code) == 1])
            shown_by_app = binding.action is None and all(token in browse_keys for token in tokens)
            place = shared if shown_by_app else row + " " + shared if binding.action is None else row
            for token in tokens:
                if not mentions(place, token):
                    found.append("%s: key %r (%s) is not in the README's row %r" % (
                        screen.__name__, token, binding.key, where))
            if isinstance(binding.hint, str) and binding.hint and binding.key:
                words = "%s %s" % (binding.key, binding.hint)
                if words not in (browse if shown_by_app else place):
                    found.append("%s: the footer says %r; the README's row %r does not" % (
                        screen.__name__, words, where))
        for key in backticked_keys(rows[where]):
            if key not in bound_keys and key not in browse_keys:
                found.append("%s: the README's row %r names `%s`, which the screen does not bind" % (
                    screen.__name__, where, key))
    return found


def test_the_readme_key_tables_match_the_bindings():
    assert problems(README.read_text(encoding="utf-8")) == []


def test_the_check_sees_a_key_the_readme_leaves_out_or_words_otherwise():
    text = README.read_text(encoding="utf-8").replace("**`w` save**", "**save**").replace("`r` read again", "`r` reload")
    found = problems(text)
    assert any("key 'w'" in problem and "ResourceScreen" in problem for problem in found), found
    assert any("footer says 'r read again'" in problem for problem in found), found


def test_the_check_sees_a_readme_key_that_is_not_bound():
    text = README.read_text(encoding="utf-8").replace("`r` refresh", "`r` refresh; `z` zoom", 1)
    assert any("names `z`" in problem for problem in problems(text)), problems(text)


def test_no_screen_with_a_table_writes_its_keys_again():
    """The table is the only statement: no hand-written help, and a key a binding answers
    has what it does next to it."""
    for screen, _ in screens():
        assert "help_lines" not in screen.__dict__, "%s writes its help by hand" % screen.__name__
        for binding in screen.BINDINGS:
            assert binding.codes == () or binding.action is not None, (screen.__name__, binding.key)


def test_every_screen_with_a_key_table_has_a_readme_row():
    tables = set(name for name, value in vars(mcp_tui).items() if isinstance(value, type)
                 and issubclass(value, mcp_tui.Screen) and value is not mcp_tui.Screen and "BINDINGS" in vars(value))
    assert tables - set(ROWS) == set()


def test_the_check_sees_an_app_key_the_readme_leaves_out():
    text = README.read_text(encoding="utf-8").replace("Ctrl+L redraw", "Ctrl+L repaints")
    assert any("'^L redraw'" in problem for problem in problems(text)), problems(text)
