"""Section 2 (session): header value encoding and x-mcp-header -> Mcp-Param-*."""
import pytest

from mcp_tui import decode_header_value, encode_header_value, param_header_values, tool_param_headers


@pytest.mark.parametrize("value,wire", [
    ("get_weather", "get_weather"),
    ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
    (" padded ", "=?base64?IHBhZGRlZCA=?="),
    ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
])
def test_header_values_follow_the_base64_sentinel_rule(value, wire):
    assert encode_header_value(value) == wire
    assert decode_header_value(wire) == value


def tool(properties):
    return {"name": "t", "inputSchema": {"type": "object", "properties": properties}}


def test_x_mcp_header_values_are_sent_from_nested_properties():
    t = tool({"region": {"type": "string", "x-mcp-header": "Region"},
              "opts": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry"}}},
              "n": {"type": "integer", "x-mcp-header": "N"}})
    headers = param_header_values(t, {"region": "eu-west", "opts": {"dry": True}, "n": 3})
    assert headers == {"Mcp-Param-Region": "eu-west", "Mcp-Param-Dry": "true", "Mcp-Param-N": "3"}
    assert param_header_values(t, {"region": None}) == {}


@pytest.mark.parametrize("properties", [
    {"a": {"type": "number", "x-mcp-header": "A"}},
    {"a": {"type": "string", "x-mcp-header": "has space"}},
    {"a": {"type": "string", "x-mcp-header": ""}},
    {"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}},
    {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}},
])
def test_invalid_x_mcp_header_annotations_are_refused(properties):
    with pytest.raises(ValueError):
        tool_param_headers(tool(properties))
