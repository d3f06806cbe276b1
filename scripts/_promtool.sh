# shellcheck shell=bash
# Sourced by scripts/test: make `promtool` (from Debian's `prometheus` package) available for
# tests/test_prometheus.py, which checks the metrics exposition and config/prometheus/ with it.
# Skipped when promtool is already on PATH. Then REQUIRE_PROMTOOL=1 is exported, so a test that
# needs promtool FAILS instead of skipping (a plain `pytest` run without it skips, with the reason).
if ! command -v promtool >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        PROMTOOL_LOG="${TMPDIR:-/tmp}/hermesd-apt-prometheus.log"
        echo "installing promtool (Debian package prometheus; log: $PROMTOOL_LOG)…" >&2
        # the package lists may be missing on a fresh machine: update once and try again
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus >"$PROMTOOL_LOG" 2>&1 || {
            apt-get update >>"$PROMTOOL_LOG" 2>&1 &&
                DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus \
                    >>"$PROMTOOL_LOG" 2>&1
        } || echo "could not install the prometheus package (see $PROMTOOL_LOG); the promtool tests will fail" >&2
    else
        echo "promtool not found and apt-get is not usable here (needs root); install Debian's prometheus" \
             "package (or put promtool on PATH): the promtool tests will fail" >&2
    fi
fi
export REQUIRE_PROMTOOL=1
