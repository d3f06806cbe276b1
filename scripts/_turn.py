"""Print one turn of the demo from ``hermesctl --json say`` output; exit 1 if an expected tool did not run.

Usage: hermesctl --json say TEXT ... | python scripts/_turn.py "TEXT" [EXPECTED_TOOL]
"""

import json
import sys

said = sys.argv[1]
expect = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
raw = sys.stdin.read()
try:
    r = json.loads(raw)
except ValueError:
    print(f"  !! no reply: {raw.strip() or 'hermesctl failed'}")
    sys.exit(1)
if "error" in r:
    print(f"  !! {r['error']['code']}: {r['error']['message']}")
    sys.exit(1)
tools = [f"{a['tool']}({a['outcome']})" for a in r.get("actions", []) if a.get("tool")]
recalls = [f"recall({a['outcome']})" for a in r.get("actions", []) if a["kind"] == "recall"]
print(f"  you   {said}")
for line in (r["reply"]["text"] or "").splitlines():
    print(f"  bot   {line}")
rule = f"  rule={r['rule_id']}" if r.get("rule_id") else ""
print(f"        intent={r.get('intent')}  path={r.get('path')}{rule}  state={r.get('state')}  "
      f"steps={', '.join(recalls + tools) or '-'}  {r['timings_ms'].get('total', 0):.1f} ms")
if expect and not any(a.get("tool") == expect and a["outcome"] == "ok" for a in r.get("actions", [])):
    print(f"  !! expected a successful {expect} call")
    sys.exit(1)
