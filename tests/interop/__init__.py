"""Interop tests: mcp-tui against real MCP servers (peers). A package, so this
directory's conftest never shadows tests/conftest.py as the module `conftest`."""
