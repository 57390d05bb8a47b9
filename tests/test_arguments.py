"""Section 3 (features): k=v arguments coerced by the tool's inputSchema."""
import io

import pytest

from mcp_tui import UsageError, validate_required, parse_arguments

SCHEMA = {"type": "object", "required": ["message"], "properties": {
    "message": {"type": "string"}, "n": {"type": "integer"}, "x": {"type": "number"},
    "flag": {"type": "boolean"}, "tags": {"type": "array"}, "code": {"type": "string"},
    "maybe": {"type": ["integer", "null"]}}}


def test_values_follow_the_schema_types():
    got = parse_arguments(["message=hi", "n=5", "x=2.5", "flag=true", "tags=a,b", "code=012", "maybe=null"], SCHEMA)
    assert got == {"message": "hi", "n": 5, "x": 2.5, "flag": True, "tags": ["a", "b"], "code": "012",
                   "maybe": None}


def test_raw_json_files_and_stdin(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("from a file")
    got = parse_arguments(["message=@%s" % path, "n:=7", "tags:=[1,2]", "-"], SCHEMA,
                          stdin=io.StringIO('{"extra": {"k": 1}}'))
    assert got == {"message": "from a file", "n": 7, "tags": [1, 2], "extra": {"k": 1}}


def test_args_json_is_the_whole_object_and_words_add_to_it():
    assert parse_arguments(["n=1"], SCHEMA, args_json='{"message": "m"}') == {"message": "m", "n": 1}


def test_unknown_properties_stay_strings():
    assert parse_arguments(["other=5"], SCHEMA) == {"other": "5"}


@pytest.mark.parametrize("word", ["n=five", "noequals", "tags:=[1,", "=v"])
def test_bad_words_are_usage_errors(word):
    with pytest.raises(UsageError):
        parse_arguments([word], SCHEMA)


@pytest.mark.parametrize("schema, word, message", [
    ({"type": "integer"}, "n=five", "argument 'n' must be an integer, got 'five'"),
    ({"type": ["number", "null"]}, "n=x", "argument 'n' must be a number or null, got 'x'"),
    ({"type": "boolean"}, "n=maybe", "argument 'n' must be a boolean, got 'maybe'"),
])
def test_a_value_of_the_wrong_type_is_named_in_a_sentence(schema, word, message):
    with pytest.raises(UsageError) as info:
        parse_arguments([word], {"type": "object", "properties": {"n": schema}})
    assert info.value.message == message


def test_missing_required_argument_is_caught_before_sending():
    with pytest.raises(UsageError) as info:
        validate_required({}, SCHEMA, "tool 'echo'")
    assert "message" in info.value.message


def test_stdio_command_lines_split_like_the_platform_shell():
    from mcp_tui import split_command_line

    assert split_command_line("python3 'my server.py' --name \"a b\"", windows=False) == [
        "python3", "my server.py", "--name", "a b"]
    assert split_command_line(r'"C:\Program Files\Python\python.exe" C:\srv\server.py --x "a b"', windows=True) == [
        r"C:\Program Files\Python\python.exe", r"C:\srv\server.py", "--x", "a b"]
