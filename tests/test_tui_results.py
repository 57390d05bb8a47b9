"""Results as the Inspector shows them: structuredContent checked against the tool's
outputSchema, with the failing path; PNG images drawn inline with half-block characters."""
from tui_helpers import needs_pty, one_tool_server, tui  # noqa: F401 (tui: a fixture)

WEATHER = {"name": "weather", "inputSchema": {"type": "object", "properties": {"good": {"type": "boolean"}}},
           "outputSchema": {
    "type": "object", "required": ["temp", "unit"], "properties": {
        "temp": {"type": "number", "maximum": 60},
        "where": {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}}}}}
STRUCTURED_HANDLERS = r"""
    elif method == "tools/call":
        structured = {"temp": 150, "where": {"zip": "abc"}}
        structured = {"temp": 21, "unit": "C"} if message["params"].get("arguments", {}).get("good") else structured
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text",
              "text": json.dumps(structured)}], "structuredContent": structured}})
"""


@needs_pty
def test_structured_content_is_checked_against_the_output_schema_with_the_failing_path(tui, tmp_path):
    screen = tui(one_tool_server(tmp_path, WEATHER, STRUCTURED_HANDLERS), columns=120, rows=40)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for(lambda t: "Tool: weather" in screen.title_line(), what="the form")
    screen.send("ctrl-x")
    screen.wait_all("The result breaks the tool's outputSchema:",
                    "$: missing required property 'unit'", "$.temp: at most 60",
                    "$.where.zip: does not match the pattern ^[0-9]{5}$")
    screen.wait_for(lambda t: "The result breaks the tool's outputSchema: $: missing required property 'unit'" in
                    screen.status_line(), what="the status line")  # drawn in a frame of its own, maybe after
    screen.send("right")  # good: true
    screen.wait_for("< true >")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="a result that matches")
    assert "does not match" not in screen.text()


def png(width, height, pixel):
    """A PNG (RGB, 8 bits) whose pixel at (x, y) is ``pixel(x, y)``; rows use filters 0-4 in turn."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(v for x in range(width) for v in pixel(x, y)) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


IMAGE_HANDLERS = r"""
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": "A flag:"},
              {"type": "image", "mimeType": "image/png", "data": %r}]}})
"""


def picture_colours(screen):
    """(row, foreground, background) of every upper half block on screen, in reading order."""
    with screen.lock:
        found = [(y, x, char.fg, char.bg) for y, line in screen.screen.buffer.items() for x, char in line.items()
                 if char.data == "\u2580"]
    return [(y, fg, bg) for y, _, fg, bg in sorted(found)]


@needs_pty
def test_a_png_is_drawn_inline_with_half_blocks(tui, tmp_path):
    import base64

    flag = png(200, 200, lambda x, y: (230, 0, 0) if x < 100 else (0, 0, 240))  # red | blue
    server = one_tool_server(tmp_path, {"name": "flag", "inputSchema": {"type": "object"}},
                             IMAGE_HANDLERS % base64.b64encode(flag).decode("ascii"))
    screen = tui(server, columns=120, rows=40)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for(lambda t: "Tool: flag" in screen.title_line(), what="the form")
    screen.send("ctrl-x")
    screen.wait_all("A flag:", "[image: image/png, %d bytes]" % len(flag), "\u2580")
    cells = screen.wait_for(lambda t: len(picture_colours(screen)) > 100, what="the picture") and picture_colours(
        screen)
    colours = set((fg, bg) for _, fg, bg in cells)
    assert colours == {("red", "red"), ("blue", "blue")}, colours
    first_row = min(y for y, _, _ in cells)
    row = [fg for y, fg, _ in cells if y == first_row]
    assert row[:len(row) // 2] == ["red"] * (len(row) // 2) and row[-(len(row) // 2):] == ["blue"] * (len(row) // 2)


@needs_pty
def test_the_test_servers_tiny_png_is_drawn(tui):
    from tui_helpers import open_tool, server_command

    screen = tui(server_command(), columns=120, rows=40)
    open_tool(screen, "get_image")
    screen.send("ctrl-x")
    screen.wait_for("[image: image/png, 70 bytes]")
    screen.wait_for(lambda t: len(picture_colours(screen)) >= 16, what="the orange pixel, drawn large enough to see")
    assert set((fg, bg) for _, fg, bg in picture_colours(screen)) == {("red", "red")}  # orange, in 8 colours


def test_png_rows_with_every_filter_type_decode_to_their_pixels():
    import struct
    import zlib

    import mcp_tui

    width, height, step = 7, 10, 4  # RGBA: 4 bytes a pixel
    pixels = [[((x * 37 + y * 11) % 256, (x * y * 5) % 256, (200 - x * 9) % 256, 255) for x in range(width)]
              for y in range(height)]
    previous, raw = bytearray(width * step), b""
    for y, row in enumerate(pixels):
        line, kind, out = bytearray(v for pixel in row for v in pixel), y % 5, bytearray()
        for i, value in enumerate(line):
            left, up = line[i - step] if i >= step else 0, previous[i]
            corner = previous[i - step] if i >= step else 0
            guess = left + up - corner
            paeth = min((abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner))[2]
            out.append((value - [0, left, up, (left + up) // 2, paeth][kind]) & 255)
        raw += bytes([kind]) + bytes(out)
        previous = line

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    assert mcp_tui.decode_png(data) == [[pixel[:3] for pixel in row] for row in pixels]
    assert mcp_tui.decode_png(data[:40]) is None and mcp_tui.decode_png(b"GIF89a") is None


@needs_pty
def test_a_sampling_reply_is_edited_as_a_whole_result(tui, tmp_path):
    import json

    from tui_helpers import open_tool, server_command, wait_for_form

    record = tmp_path / "record.jsonl"
    screen = tui(server_command("--record", record), "--protocol-version", "2025-11-25", columns=120, rows=40)
    open_tool(screen, "ask_model")  # 2025-11-25: the reply goes back as the response to sampling/createMessage
    screen.send("ctrl-x")
    wait_for_form(screen, "Sampling request", "Max tokens: 100")
    screen.type("Paris")
    screen.send("tab", "ctrl-u")
    screen.type("atlas-1")  # the model
    screen.send("tab", "right")  # stopReason: stopSequence
    screen.wait_for("< stopSequence >")
    screen.send("ctrl-x")
    screen.wait_for("The model said: Paris")
    answers = [json.loads(line)["message"] for line in record.read_text().splitlines()]
    sent = [m["result"] for m in answers if isinstance(m.get("result"), dict) and "stopReason" in m["result"]]
    assert sent[-1] == {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "atlas-1",
                        "stopReason": "stopSequence"}
    screen.send("ctrl-x")  # again, now with the whole result as JSON
    wait_for_form(screen, "Sampling request", "Max tokens: 100")
    screen.send("tab", "tab", "tab")
    screen.paste('{"content": [{"type": "text", "text": "Lyon"}], "stopReason": "maxTokens"}')
    screen.send("ctrl-x")
    screen.wait_for("The model said: Lyon")
    answers = [json.loads(line)["message"] for line in record.read_text().splitlines()]
    sent = [m["result"] for m in answers if isinstance(m.get("result"), dict) and "stopReason" in m["result"]]
    assert sent[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Lyon"}], "model": "human",
                        "stopReason": "maxTokens"}
