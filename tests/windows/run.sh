#!/usr/bin/env bash
# Run mcp_tui.py with the Windows CPython 3.11 that install.sh put under Wine.
#   run.sh ARGS...              C:\python311\python.exe $MCP_TUI ARGS   (MCP_TUI defaults to ./mcp_tui.py)
#   run.sh --python ARGS...     C:\python311\python.exe ARGS
#   run.sh --stop               stop this prefix's wineserver and every Wine process in it
# Run it from the project's root, e.g.  tests/windows/run.sh "python.exe tests/testserver.py" tool list
# C:\python311 is on the Windows PATH, so a stdio server written "python tests/testserver.py" or
# "python.exe tests/testserver.py" starts (there is no python3.exe, as on a python.org install).
# Linux paths work as arguments (Wine maps / to Z:\); the state dir is %LOCALAPPDATA%\mcp-tui in the prefix.
#
# Wine 8.0 quirks handled here (see README.md):
#  - a Windows program whose stdin/stdout/stderr is a regular Linux *file* fails at start
#    ("init_sys_streams ... [WinError 6] Invalid handle"): such streams go through cat;
#  - Wine gives every process it starts (session keepers, services) our stderr for its own debug
#    output, so a detached keeper would hold a stderr pipe open and a reader waiting for its end
#    would hang: stderr goes through a forwarder that is stopped once python.exe has exited;
#  - the first Wine process of a prefix starts services that inherit its stdio: a persistent
#    wineserver (5 min after the last use) and its services are started here with /dev/null.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
home=${MCP_WINE_HOME:-$HOME/.cache/mcp-tui-wine}   # writable: the prefix (~700 MB) and downloads live here
export WINEPREFIX="$home/prefix" WINEDEBUG=${WINEDEBUG:--all} WINEDLLOVERRIDES="mscoree,mshtml="
export WINEPATH="C:\\python311${WINEPATH:+;$WINEPATH}"  # extra Windows PATH entries: WINEPATH='Z:\dir;...'
py="$WINEPREFIX/drive_c/python311/python.exe"
[ -f "$py" ] || { echo "run.sh: no Windows Python at $py; run $here/install.sh" >&2; exit 2; }

if [ "${1:-}" = "--stop" ]; then
  wineserver -k 2>/dev/null
  exit 0
fi
if [ "${1:-}" = "--python" ]; then
  shift
  args=("$@")
else
  script=${MCP_TUI:-mcp_tui.py}
  [ -f "$script" ] || { echo "run.sh: $script not found (cd into the project, or set MCP_TUI)" >&2; exit 2; }
  args=("$script" "$@")
fi

# A persistent wineserver, its services started with no terminal and no pipe of ours.
if wineserver -p 300 </dev/null >/dev/null 2>&1; then
  wine wineboot </dev/null >/dev/null 2>&1
fi

[ -t 0 ] && export MCP_WINE_PRIME_CONSOLE=1  # see sitecustomize.py: keys for the curses TUI

invoke() { wine "$py" "${args[@]}"; }
with_stdin() {  # a regular file on stdin goes through a pipe
  if [ -f /dev/stdin ]; then cat | invoke; return "${PIPESTATUS[1]}"; fi
  invoke
}
with_stdout() {  # a regular file on stdout goes through a pipe
  if [ -f /dev/stdout ]; then with_stdin | cat; return "${PIPESTATUS[0]}"; fi
  with_stdin
}

if [ -t 2 ]; then
  with_stdout
  exit $?
fi
with_stdout 2> >(exec cat >&2)
rc=$?
forwarder=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do  # up to 0.5 s to pass on what python.exe wrote last
  kill -0 "$forwarder" 2>/dev/null || break
  sleep 0.05
done
kill "$forwarder" 2>/dev/null  # still there: a detached Wine process (a session keeper) holds its pipe
exit "$rc"
