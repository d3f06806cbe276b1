# shellcheck shell=bash
# Sourced by scripts/demo and scripts/test: make ./.venv with hermesd installed.
# Needs only python3 (>= 3.11) with venv; pip comes from ensurepip.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
EXTRA="${1:-}"
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "hermesd needs Python >= 3.11 (found: $("$PY" --version 2>&1))" >&2
    exit 1
fi
if [ ! -x "$ROOT/.venv/bin/python" ]; then
    "$PY" -m venv "$ROOT/.venv" 2>/dev/null || {
        # Debian's python3 without python3-venv: build the venv without pip, then bootstrap it
        "$PY" -m venv --without-pip "$ROOT/.venv"
        "$ROOT/.venv/bin/python" -m ensurepip --upgrade >/dev/null
    }
fi
VPY="$ROOT/.venv/bin/python"
# reinstall only when pyproject.toml changed since the last install
STAMP="$ROOT/.venv/.hermesd-installed${EXTRA:+-$EXTRA}"
if [ ! -f "$STAMP" ] || [ "$ROOT/pyproject.toml" -nt "$STAMP" ]; then
    echo "installing hermesd${EXTRA:+ with [$EXTRA]} into .venv (log: .venv/install.log)…" >&2
    "$VPY" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
    # the build backend's banners go to the log; it is shown only when the install fails
    if ! "$VPY" -m pip install --quiet --disable-pip-version-check -e "$ROOT${EXTRA:+[$EXTRA]}" \
            >"$ROOT/.venv/install.log" 2>&1; then
        cat "$ROOT/.venv/install.log" >&2
        echo "installing hermesd failed (see above)" >&2
        exit 1
    fi
    touch "$STAMP"
fi
export PATH="$ROOT/.venv/bin:$PATH"
