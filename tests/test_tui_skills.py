"""The TUI's Skills tab, driven as a user would, against tests/testserver.py serving a sound
skill (--skills) and one whose manifest two files break (--tampered-skill): the tab, its list,
the manifest in the detail pane, v's check (✓ per file, ✗ naming the file that disagrees),
and a file of the manifest read."""
import types

from tui_helpers import needs_pty, quit_from_main, server_command, tui  # noqa: F401 (tui: a fixture)

import mcp_tui


def skills_tab(tui, *flags):
    """The TUI on the test server with ``flags``, on its Skills tab (5)."""
    screen = tui(server_command(*flags), columns=140, rows=40)  # a manifest line on one line
    screen.wait_for("5 Skills (")
    screen.send("5")
    screen.wait_for("Frontmatter:")
    return screen


@needs_pty
def test_the_skills_tab_lists_the_skills_and_shows_the_manifest(tui):
    screen = skills_tab(tui, "--skills", "--tampered-skill")
    screen.wait_all("5 Skills (2)", "docs/greeting · 3 files, 106 bytes · Greets a", "tampered · 3 files, 113 bytes",
                    "Skill: docs/greeting", "URI: skill://docs/greeting/SKILL.md",
                    '  description: "Greets a reader by name (€)."', "Manifest (3 files, 106 bytes):",
                    "skill://docs/greeting/templates/hello.md", "sha256:")
    screen.send("j")
    screen.wait_all("Skill: tampered", "skill://tampered/seal.bin")
    quit_from_main(screen)


@needs_pty
def test_verify_marks_every_file_and_names_the_ones_that_disagree(tui):
    screen = skills_tab(tui, "--skills", "--tampered-skill")
    screen.wait_for("Skill: docs/greeting")
    screen.send("v")
    screen.wait_all("Verification:", "✓ docs/greeting: 3 of 3 files verified",
                    "✓ verified                 skill://docs/greeting/stamp.bin")
    assert "✗" not in screen.text()
    screen.send("j")
    screen.wait_for("Skill: tampered")
    screen.send("v")
    screen.wait_all("✗ tampered: 1 of 3 files verified", "✓ verified                 skill://tampered/SKILL.md",
                    "✗ size-mismatch            skill://tampered/notes.md",
                    "the manifest says 10 bytes, the server sent 12",
                    "✗ digest-mismatch          skill://tampered/seal.bin")
    screen.wait_for(lambda t: "✗ tampered: 1 of 3 files verified" in screen.status_line(),  # the last row drawn
                    what="the verdict on the status line too")


@needs_pty
def test_enter_lists_the_files_and_reads_one_text_or_binary(tui):
    screen = skills_tab(tui, "--skills")
    screen.send("v")
    screen.wait_for("3 of 3 files verified")
    screen.send("enter")
    screen.wait_all("Skill: docs/greeting", "Its files (size, digest, URI): Enter reads one",
                    "✓       15  sha256:1e86d5b60d7d  skill://docs/greeting/templates/hello.md")
    screen.send("j", "enter")  # templates/hello.md
    screen.wait_all("Resource: skill://docs/greeting/templates/hello.md", "Hello, {name}!")
    screen.send("q")
    screen.wait_for("5 Skills (1)")
    screen.send("enter", "j", "j", "enter")  # stamp.bin
    screen.wait_all("Resource: skill://docs/greeting/stamp.bin",
                    "[binary: application/octet-stream, 12 bytes]")


@needs_pty
def test_a_server_without_skills_has_no_skills_tab(tui):
    screen = tui(server_command(), columns=120, rows=40)
    screen.wait_all("4 Server info", "Tools (")
    assert "Skills" not in screen.text()
    screen.send("5")  # chooses nothing: no fifth tab
    screen.send("4")
    screen.wait_for("Capabilities:")
    assert "Skills" not in screen.text()



class Bench:
    """Just enough of the app for a main screen without a terminal: lists are never loaded."""

    def __init__(self, capabilities):
        self.session = types.SimpleNamespace(capabilities=capabilities)

    def spawn(self, work, done=None, failed=None):
        pass

    def say(self, text, error=False):
        pass


def test_the_skills_tab_comes_and_goes_with_the_servers_extension_and_a_reconnect_keeps_a_tab_that_is_there():
    app = Bench({"tools": {}, "extensions": {mcp_tui.SKILLS_EXTENSION: {}}})
    home = mcp_tui.MainScreen(app)
    assert home.tabs() == ["tools", "resources", "prompts", "server"]  # before the first load: not yet known
    home.reload()
    assert home.tabs()[-1] == "skills"
    home.switch_tab("5")
    assert home.tab_name() == "skills"
    app.session.capabilities = {"tools": {}}  # reconnected (Ctrl+R) to a server that no longer serves skills
    home.reload()
    assert home.tabs() == ["tools", "resources", "prompts", "server"] and home.tab_name() == "server"
    home.switch_tab("5")  # no fifth tab: nothing chosen
    assert home.tab_name() == "server"
    home.switch_tab("1")
    app.session.capabilities = {"tools": {}, "extensions": {mcp_tui.SKILLS_EXTENSION: {}}}
    home.reload()
    assert home.tab_name() == "tools"  # a tab that comes does not move the user off theirs


APP_VIEW_HTML = "<!doctype html><p>Weather for €uro cities</p>"
APP_VIEW_HANDLERS = r"""
    elif method == "resources/read":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"contents": [{
              "uri": message["params"]["uri"], "mimeType": "text/html;profile=mcp-app", "text": %r,
              "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]},
                               "permissions": {"geolocation": {}}}}}]}})
""" % APP_VIEW_HTML


@needs_pty
def test_the_detail_of_an_app_tool_shows_its_view_as_tool_describe_does(tui, tmp_path):
    """The App part of the detail pane was empty (MIME type None, 0 bytes): the view is read
    when the tool is shown."""
    import hashlib

    from tui_helpers import one_tool_server

    server = one_tool_server(tmp_path, {"name": "forecast", "description": "A forecast with a view.",
                                        "inputSchema": {"type": "object", "properties": {}},
                                        "_meta": {"ui": {"resourceUri": "ui://weather/view.html",
                                                         "visibility": ["app"]}}}, APP_VIEW_HANDLERS)
    screen = tui(server, columns=140, rows=40)
    digest = "sha256:" + hashlib.sha256(APP_VIEW_HTML.encode("utf-8")).hexdigest()
    screen.wait_all("App view: ui://weather/view.html", "Visibility: app (app only: never offered to a model)",
                    "MIME type: text/html;profile=mcp-app", "HTML: %d bytes, %s" % (
                        len(APP_VIEW_HTML.encode("utf-8")), digest),
                    "CSP: connectDomains https://api.example.com", "Permissions: geolocation")
    assert "MIME type: None" not in screen.text()
    quit_from_main(screen)
