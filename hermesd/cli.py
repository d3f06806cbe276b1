"""Entry points ``hermesd`` (the daemon) and ``hermesctl`` (the operator's client); the only ``sys.exit``.

Exit statuses follow sysexits.h: 0 ok, 1 the daemon answered with an error,
2 usage, 69 (EX_UNAVAILABLE) daemon not running, 70 (EX_SOFTWARE) a subsystem
failed to start, 73 (EX_CANTCREAT) the socket
path cannot be used, 75 (EX_TEMPFAIL) another hermesd already serves the path,
77 (EX_NOPERM) ``hermesctl mcp --allow-confirm-tools`` by a caller who is not an admin,
78 (EX_CONFIG) bad configuration.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from . import __version__

__all__ = ["ctl_main", "main"]

EX_OK, EX_ERROR, EX_USAGE = 0, 1, 2
EX_UNAVAILABLE, EX_SOFTWARE, EX_CANTCREAT, EX_TEMPFAIL, EX_NOPERM, EX_CONFIG = 69, 70, 73, 75, 77, 78


# ---------------------------------------------------------------------------
# hermesd


def _load_config(config_file: Path | None, overrides: dict[str, Any]) -> Any:
    from .config import load

    return load(config_file, overrides=overrides)


def _print_config_errors(exc: Any) -> None:
    print(f"hermesd: configuration has {len(exc.problems)} error(s):", file=sys.stderr)
    for p in exc.problems:
        print(f"  {p}", file=sys.stderr)


def _cmd_run(args: argparse.Namespace) -> int:
    from . import openssl

    openssl.refuse()  # before the config's hashlib and asyncio: back below when the config uses TLS
    from .config import ConfigError

    overrides: dict[str, Any] = {}
    if args.socket:
        overrides["paths.socket_path"] = args.socket
    if args.state_dir:
        overrides["paths.state_dir"] = args.state_dir
    config_file = Path(args.config) if args.config else None
    try:
        cfg = _load_config(config_file, overrides)
    except ConfigError as exc:
        _print_config_errors(exc)
        return EX_CONFIG
    if openssl.needed(cfg):
        openssl.allow()

    from .daemon import Daemon
    from .server import AlreadyRunning, SocketPathError

    daemon = Daemon(cfg, reload_config=lambda: _load_config(config_file, overrides))
    try:
        return _run_loop(cfg.server.event_loop, daemon.run())
    except AlreadyRunning as exc:
        print(f"hermesd: {exc}; leaving it alone", file=sys.stderr)
        return EX_TEMPFAIL
    except SocketPathError as exc:
        print(f"hermesd: {exc}", file=sys.stderr)
        return EX_CANTCREAT
    except KeyboardInterrupt:
        return EX_OK
    except Exception as exc:  # a subsystem could not start; its log line has the details
        print(f"hermesd: start-up failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EX_SOFTWARE


def _run_loop(kind: str, main: Any) -> Any:
    """Run coroutine ``main`` to completion on the event loop ``kind`` (``server.event_loop``):
    ``"uvloop"`` imports uvloop only then; ``"asyncio"`` is :func:`asyncio.run`."""
    if kind == "uvloop":
        import uvloop

        return uvloop.run(main)
    import asyncio

    return asyncio.run(main)


def _pack_problems(prog: str, exc: Any) -> int:
    """Print every violation of a refused intent pack (one per line) and return ``EX_CONFIG``."""
    problems = (exc.data or {}).get("violations") or [str(exc)]
    print(f"{prog}: intent packs have {len(problems)} error(s):", file=sys.stderr)
    for p in problems:
        print(f"  {p}", file=sys.stderr)
    return EX_CONFIG


def _pack_vocabulary(cfg: Any) -> tuple[set[str] | None, set[str] | None, dict[str, Any] | None, list[str]]:
    """The intents and tools the daemon would check the rule packs against (as ``session`` does
    at start): intent names of ``nlu.intent_dirs`` (else the shipped packs), tool names and reply
    templates of the tools folder, and every problem of the intent packs (the intents that did load
    are still named). Intents are None when the packs define none (the check is then skipped, as in
    the daemon)."""
    from .config import shipped_path
    from .nlu.packs import read_packs
    from .tools.registry import Registry
    from .tools.settings import resolve_tools_dir

    dirs = [Path(d) for d in cfg.nlu.intent_dirs] or [shipped_path("config", "intents")]
    packs, problems = read_packs(dirs)
    intents = {spec.name for spec in packs.intents} or None
    registry = Registry.load(resolve_tools_dir(cfg.tools), cfg.tools.breaker)
    return intents, set(registry.tools), registry.reply_templates(), problems


def _cmd_check_config(args: argparse.Namespace) -> int:
    """Every error of every file in one run, in order — the config's layers, the rule packs, the
    intent packs — each part checked even when one before it has errors (a config in error is
    read with its bad values at their defaults: :attr:`~hermesd.config.ConfigError.partial`)."""
    from .config import ConfigError, digest, shipped_path
    from .rules.loader import RulePackError, load_rules
    from .session.settings import resolve_rules_dir

    failed = False
    try:
        cfg = _load_config(Path(args.file) if args.file else None, {})
    except ConfigError as exc:
        _print_config_errors(exc)
        failed, cfg = True, exc.partial
        if cfg is None:
            return EX_CONFIG
    known_intents, known_tools, tool_replies, intent_problems = _pack_vocabulary(cfg)
    rules_dir = resolve_rules_dir(cfg.session)
    loaded = None
    try:
        loaded = load_rules(rules_dir, known_intents=known_intents, known_tools=known_tools,
                            tool_replies=tool_replies)
    except RulePackError as exc:
        failed = True
        print(f"hermesd: rule packs in {rules_dir} have {len(exc.problems)} error(s):", file=sys.stderr)
        for p in exc.problems:
            print(f"  {p}", file=sys.stderr)
    if intent_problems:
        failed = True
        print(f"hermesd: intent packs have {len(intent_problems)} error(s):", file=sys.stderr)
        for p in intent_problems:
            print(f"  {p}", file=sys.stderr)
    if failed or loaded is None:
        return EX_CONFIG
    dirs = [Path(d) for d in cfg.nlu.intent_dirs] or [shipped_path("config", "intents")]
    state, artifact_path = _artifact_state(dirs, cfg.nlu.train_epochs)
    if state != "fresh":
        why = {"stale": "is stale (its sources, hermesd or nlu.train_epochs changed since it was built)",
               "missing": "is missing", "unreadable": "is not a compiled pack"}[state]
        print(f"hermesd: warning: the intent pack artifact {artifact_path} {why}; the daemon trains once at "
              f"start instead. Build it with: hermesd build-pack {' '.join(map(str, dirs))}", file=sys.stderr)
    if args.print:
        import yaml

        print(yaml.safe_dump(cfg.model_dump(mode="json"), sort_keys=False, allow_unicode=True), end="")
    else:
        print(f"config ok (digest {digest(cfg)}); {len(loaded.engine)} rules in {rules_dir}; "
              f"intent pack artifact {state}")
    return EX_OK


def _artifact_state(dirs: list[Path], epochs: int) -> tuple[str, Path]:
    """(``fresh`` | ``stale`` | ``missing`` | ``unreadable``, artifact path) of the intent folders."""
    from .nlu import artifact

    path = dirs[0] / artifact.ARTIFACT_NAME
    try:
        key = artifact.artifact_key(dirs, artifact.train_params(epochs=epochs))
        return ("fresh" if artifact.read(path, key) is not None else "stale"), path
    except FileNotFoundError:
        return "missing", path
    except (OSError, artifact.ArtifactError):
        return "unreadable", path


def _cmd_build_pack(args: argparse.Namespace) -> int:
    from .errors import InputInvalid
    from .nlu import artifact

    dirs = [Path(d) for d in args.dirs]
    missing = [str(d) for d in dirs if not d.is_dir()]
    if missing:
        print(f"hermesd build-pack: not a folder: {', '.join(missing)}", file=sys.stderr)
        return EX_USAGE
    if args.if_stale and not args.out:
        state, path = _artifact_state(dirs, args.epochs)
        if state == "fresh":
            print(f"{path} is fresh")
            return EX_OK
    t0 = time.perf_counter()
    try:
        path, compiled = artifact.build(dirs, epochs=args.epochs, out=Path(args.out) if args.out else None)
    except InputInvalid as exc:
        return _pack_problems("hermesd build-pack", exc)
    except OSError as exc:
        print(f"hermesd build-pack: cannot write the artifact: {exc}", file=sys.stderr)
        return EX_CANTCREAT
    print(f"built {path}: {len(compiled.packs.intents)} intents, {compiled.examples} examples, "
          f"{path.stat().st_size / 1000:.0f} kB, key {compiled.key[:16]} in {time.perf_counter() - t0:.1f} s")
    return EX_OK


def main(argv: list[str] | None = None) -> None:
    """``hermesd run | check-config | build-pack | version``."""
    parser = argparse.ArgumentParser(prog="hermesd", description="LLM-free conversational session engine daemon.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run the daemon in the foreground (systemd Type=notify)")
    run.add_argument("--config", help="config file layered over the shipped defaults and /etc/hermesd/hermesd.yaml")
    run.add_argument("--socket", help="socket path (default: $RUNTIME_DIRECTORY/hermesd.sock or ./var/hermesd.sock)")
    run.add_argument("--state-dir", help="state folder (default: $STATE_DIRECTORY or ./var/state)")
    run.set_defaults(fn=_cmd_run)
    chk = sub.add_parser("check-config", help="validate the layered config, the rule packs and the intent packs; "
                                              "exit 78 listing every error of every file")
    chk.add_argument("file", nargs="?", help="config file to check on top of the defaults")
    chk.add_argument("--print", action="store_true", help="print the effective config as YAML")
    chk.set_defaults(fn=_cmd_check_config)
    bp = sub.add_parser("build-pack", help="compile intent pack folders (trained scorer, templates, gazetteers) "
                                           "into the content-hashed artifact the daemon loads in milliseconds")
    bp.add_argument("dirs", nargs="+", metavar="DIR", help="intent folders, as nlu.intent_dirs lists them")
    bp.add_argument("--epochs", type=int, default=10, help="nlu.train_epochs the daemon runs with (default 10)")
    bp.add_argument("--out", help="write here instead of DIR/pack.compiled")
    bp.add_argument("--if-stale", action="store_true", help="do nothing when DIR's artifact is fresh")
    bp.set_defaults(fn=_cmd_build_pack)
    ver = sub.add_parser("version", help="print the version")
    ver.set_defaults(fn=lambda a: print(f"hermesd {__version__}") or EX_OK)
    args = parser.parse_args(argv)
    sys.exit(args.fn(args))


# ---------------------------------------------------------------------------
# hermesctl


def _mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def _print_json(obj: Any) -> None:
    import orjson

    sys.stdout.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode() + "\n")


def _show_status(st: dict[str, Any]) -> None:
    print(f"hermesd {st['version']}  status={st['status']}  pid={st['pid']}  uptime={st['uptime_s']:.1f}s  "
          f"rss={_mb(st['rss_bytes'])}  connections={st['connections']}")
    print(f"socket {st['socket']}  state {st['state_dir']}  config {st['config_digest']}")
    if st.get("last_reload") and not st["last_reload"].get("ok", True):
        print("last reload FAILED:")
        for p in st["last_reload"].get("problems", []):
            print(f"  {p}")
    for name, sub in st.get("subsystems", {}).items():
        details = " ".join(f"{k}={v}" for k, v in sub.items() if k != "status" and not isinstance(v, (dict, list)))
        print(f"  {name:<10} {sub.get('status', '?'):<9} {details}")


def _ctl_status(c: Any, a: argparse.Namespace) -> Any:
    st = c.call("admin.status")
    if a.memory:
        st["memory"] = c.call("admin.memory")
    if not a.json:
        _show_status(st)
        if a.memory:
            _show_memory(st["memory"])
    return st


def _show_memory(m: dict[str, Any]) -> None:
    """The technician's view of ``admin.memory``: RSS by mapping, then the heap by part."""
    maps = m["mappings"]
    libs = sorted(maps["libraries"].items(), key=lambda kv: -kv[1])
    print(f"memory  rss={_mb(m['rss_bytes'])}")
    print(f"  {'interpreter (python, libpython)':<34} {_mb(maps['interpreter']):>9}")
    print(f"  {'libraries (' + str(len(libs)) + ' .so files)':<34} {_mb(sum(v for _, v in libs)):>9}   "
          + ", ".join(f"{k.split('.')[0]} {v / 1e6:.1f}" for k, v in libs[:5]))
    print(f"  {'Python heap':<34} {_mb(maps['heap']):>9}")
    for name, n in m["parts"].items():
        print(f"    {name:<32} {_mb(n):>9}")
    print(f"    {'interpreter heap (modules, code, free)':<32} {_mb(m['heap_unattributed_bytes']):>9}")
    print(f"  {'other (stacks, data files)':<34} {_mb(maps['other']):>9}")
    if m.get("packages"):
        print(f"  {'packages imported':<34} {', '.join(m['packages'])}")
    for t in m.get("tracemalloc") or []:
        print(f"    tracemalloc {t['file']:<60} {_mb(t['bytes']):>9}")


def _ctl_ping(c: Any, a: argparse.Namespace) -> Any:
    t0 = time.perf_counter()
    res = c.call("admin.ping")
    dt = (time.perf_counter() - t0) * 1000
    res["round_trip_ms"] = round(dt, 3)
    if not a.json:
        print(f"pong from {c.socket_path} in {dt:.2f} ms")
    return res


def _ctl_metrics(c: Any, a: argparse.Namespace) -> Any:
    res = c.call("admin.metrics")
    if not a.json:
        sys.stdout.write(res["text"])
    return res


def _ctl_reload(c: Any, a: argparse.Namespace) -> Any:
    res = c.call("admin.reload")
    if a.json:
        _print_json(res)
    else:
        print(f"reload {'ok' if res['ok'] else 'REJECTED'} (config {res['config']})")
        for p in res["problems"]:
            print(f"  {p}")
    if not res["ok"]:
        sys.exit(EX_ERROR)  # the running config was kept; scripts must see the failure
    return None


def _ctl_sessions(c: Any, a: argparse.Namespace) -> Any:
    res = c.call("session.list")
    if not a.json:
        for s in res.get("sessions", []):
            print(f"{s.get('session_id')}  {s.get('state', '?'):<14} user={s.get('user', '-')}")
    return res


def _ctl_tools(c: Any, a: argparse.Namespace) -> Any:
    res = c.call("tools.list")
    if not a.json:
        for t in res.get("tools", []):
            meta = t.get("_meta") or {}
            line = f"{t['name']:<18} {meta.get('hermesd/health', '?'):<10} breaker={meta.get('hermesd/breaker', '?')}"
            print(line + (f"  failing: {meta['hermesd/failing_case']}" if meta.get("hermesd/failing_case") else ""))
            grants = _grants_line(meta.get("hermesd/grants"))
            if grants:
                print(f"{'':<18} {grants}")
    return res


def _grants_line(g: Any) -> str:
    """One line of what a tool may reach beyond the bare sandbox, e.g.
    ``read {documents}  write {outbox}  net isolated  (not enforced: …)``."""
    if not isinstance(g, dict):
        return ""
    parts = []
    fs = g.get("fs") or {}
    if fs.get("read"):
        parts.append("read " + ", ".join(fs["read"]))
    if fs.get("write"):
        parts.append("write " + ", ".join(fs["write"]))
    if g.get("data"):
        parts.append("data " + g["data"])
    if g.get("groups"):
        parts.append("groups " + ", ".join(g["groups"]))
    connect = (g.get("network") or {}).get("connect") or []
    parts.append("net " + (("connect " + ", ".join(connect)) if connect else g.get("network_class", "isolated")))
    line = "  ".join(parts)
    if g.get("not_enforced"):
        line += "  (not enforced: " + "; ".join(g["not_enforced"]) + ")"
    return line


def _ctl_call(c: Any, a: argparse.Namespace) -> Any:
    import orjson

    try:
        params = orjson.loads(a.params) if a.params else None
    except orjson.JSONDecodeError as exc:
        raise SystemExit(f"hermesctl: params are not JSON: {exc}") from None
    res = c.call(a.method, params)
    if not a.json:
        _print_json(res)
    return res


def _ctl_parse(c: Any, a: argparse.Namespace) -> Any:
    params: dict[str, Any] = {"text": a.text}
    if a.at:
        params["reference_time"] = a.at
    res = c.call("nlu.parse", params)
    if not a.json:
        intents = ", ".join(f"{m['intent']} {m['score']:.2f}" for m in res.get("intents", [])[:3])
        print(f"intent={res.get('intent')}  kind={res.get('kind')}  lang={res.get('lang')}  [{intents}]")
        for e in res.get("entities", []):
            value = e.get("value")
            if isinstance(value, dict):
                value = " ".join(f"{k}={v}" for k, v in value.items() if v is not None and k not in ("text", "span"))
            print(f"  {e['type']:<10} {e['text']!r:<14} {value}")
    return res


def trace_lines(t: dict[str, Any]) -> list[str]:
    """The lines ``hermesctl trace`` prints for one turn's trace (a ``session.trace`` item): said,
    intent, rule, each step (a plan's step by its index; a turn's own action, such as an offer of an
    unfinished task, has none), failure, reply and timings. Pure; a missing field reads as ``?``."""
    out: list[str] = []
    plan = t.get("plan") or {}
    out.append(f"— trace {t.get('trace_id')}  path={t.get('path')}  {t.get('state_before')} → {t.get('state_after')}"
               f"  v{t.get('version')}")
    out.append(f"  said     {t.get('text')!r}")
    out.append(f"  intent   {t.get('intent')}  kind={t.get('kind')}"
               + (f"  degraded={t['degraded']}" if t.get("degraded") else ""))
    if t.get("entities"):
        out.append(f"  entities {t['entities']}")
    if plan:
        out.append(f"  rule     {plan.get('rule_id') or '(fallback)'}  pack={plan.get('pack')}"
                   f"  actions={','.join(plan.get('actions') or [])}")
        for skip in plan.get("skipped") or []:
            out.append(f"    skipped {skip['rule_id']}: {skip['reason']}")
    for act in t.get("actions") or []:  # a step of the plan, or a turn's own action (an offer) without an index
        extra = f" {act['tool']} {act.get('duration_ms', 0):.1f} ms" if act.get("tool") else ""
        step = f"step {act['index']}" if "index" in act else "turn"
        out.append(f"  {step}   {act.get('kind', '?')}{extra} → {act.get('outcome', '?')}"
                   + (f" ({act['error']})" if act.get("error") else ""))
    if t.get("failure"):
        out.append(f"  failure  {t['failure']['code']}: {t['failure']['message']}")
    out.append(f"  reply    {t.get('reply')!r}")
    out.append("  timings  " + " ".join(f"{k}={v:.2f}ms" for k, v in (t.get("timings_ms") or {}).items()))
    return out


def _ctl_trace(c: Any, a: argparse.Namespace) -> Any:
    res = c.call("session.trace", {"session_id": a.session_id})
    if a.json:
        return res
    ended = res.get("ended")
    if ended:  # an ended session, read back from the L3 archive
        from datetime import datetime

        at = datetime.fromtimestamp(int(ended.get("closed_ms") or 0) / 1000).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")
        why = f" ({ended['reason']})" if ended.get("reason") else ""
        where = f"archived in {ended.get('path')}" if ended.get("on_device") else \
            f"archived ({ended.get('state')}); its volume is no longer on this device"
        print(f"session {a.session_id} ended at {at}{why}; {where}")
    for t in res.get("traces", [])[-a.last:]:
        print("\n".join(trace_lines(t)))
    return None


def _ctl_events(c: Any, a: argparse.Namespace) -> Any:
    """Follow events; when hermesd goes away (a restart), say so in one line, reconnect with backoff
    (:mod:`.redial`) and subscribe again — events of the gap wait in the daemon's outbox."""
    from .redial import GONE, gone_text

    kinds = [k for k in (a.kinds or "").split(",") if k]
    locale = os.environ.get("LC_ALL") or os.environ.get("LANG") or ""
    res = c.call("events.subscribe", {"kinds": kinds})
    print(f"following {', '.join(res['subscribed'])} ({res['backlog']} waiting) — Ctrl-C to stop", file=sys.stderr)
    seen = 0
    while a.count is None or seen < a.count:
        try:
            note = c.read_notification(timeout_s=None)
        except GONE:
            print(gone_text(locale.startswith("zh")), file=sys.stderr, flush=True)
            res = _redial_or_exit(c, a, locale.startswith("zh"), lambda: c.call("events.subscribe", {"kinds": kinds}))
            print(f"reconnected; following {', '.join(res['subscribed'])} ({res['backlog']} waiting)",
                  file=sys.stderr, flush=True)
            continue
        ev = note.get("params") or {}
        if a.json:
            _print_json(ev)
        else:
            print(_event_row(ev), flush=True)
        seen += 1
    return None


def _redial_or_exit(c: Any, a: argparse.Namespace, zh: bool, first: Callable[[], Any]) -> Any:
    """Reconnect (backoff, at most ``--reconnect-s``) and make the ``first`` call; the daemon going
    away again meanwhile is waited for again within the same budget. Exits ``EX_UNAVAILABLE`` with a
    sentence when it does not come back."""
    from .redial import GONE, redial

    deadline = time.monotonic() + a.reconnect_s
    while True:
        left = deadline - time.monotonic()
        if left > 0 and redial(c, budget_s=left):
            try:
                return first()
            except GONE:
                continue
        print(f"hermesd 在 {a.reconnect_s:g} 秒内没有回来，已退出；请启动它（systemctl start hermesd）后再试。" if zh else
              f"hermesd did not come back within {a.reconnect_s:g} s; giving up. Start it "
              "(systemctl start hermesd) and run the command again.", file=sys.stderr)
        raise SystemExit(EX_UNAVAILABLE)


def _event_row(event: dict[str, Any]) -> str:
    """One followed event as a technician reads it: local wall time, the event's id, and the line
    ``say``/``chat`` show for it, in Chinese when its words are Chinese or the terminal's locale
    (``LC_ALL``/``LANG``) is ``zh``; the structured fields are ``--json``'s."""
    data = event.get("data") or {}
    words = f"{data.get('text', '')}{(data.get('slots') or {}).get('_utterance', '')}"
    locale = os.environ.get("LC_ALL") or os.environ.get("LANG") or ""
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in words) or locale.startswith("zh")
    created = event.get("created_ms")
    when = (datetime.fromtimestamp(created / 1000).astimezone().strftime("%Y-%m-%d %H:%M:%S")
            if isinstance(created, (int, float)) else "-")
    return f"{when}  #{event.get('id')}  {_event_line(event, zh)}"


def terminal_text(text: str) -> str:
    """A line as the person typed it, from argv or stdin, which Python decodes with
    ``surrogateescape`` (PEP 383): bytes that are not UTF-8 are read as GB18030 (a GBK terminal,
    common in China) when the whole line decodes so, else replaced by U+FFFD. Never raises."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogateescape")
    try:
        return raw.decode("gb18030")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


def _waiting(res: dict[str, Any]) -> bool:
    """The turn left a question open: a card (a confirmation or a choice), a slot asked for, or an
    offer of unfinished work said after the answer. A clarification that asks nothing ("现在没有需要
    你确认的事") leaves nothing to answer."""
    return (bool((res.get("reply") or {}).get("card")) or res.get("state") == "CONFIRMING"
            or any(a.get("kind") in ("ask", "offer") and a.get("outcome") == "waiting" for a in res.get("actions") or ()))


def _turn(c: Any, session: str | None, text: str, at: str | None,
          message_id: str | None = None) -> tuple[str, dict[str, Any]]:
    """One turn, in a new session when ``session`` is None. An offer of unfinished work the new
    session makes is not shown here: the daemon says it after the turn's answer, in its language.
    ``message_id``: the same id sent again (after a reconnect) returns the stored reply, never runs
    the turn twice."""
    text = terminal_text(text)
    if session is None:
        session = c.call("session.open", {})["session_id"]
    params: dict[str, Any] = {"session_id": session, "text": text}
    if at:
        params["reference_time"] = at
    if message_id:
        params["message_id"] = message_id
    return session, c.call("session.turn", params)


def _show_turn(res: dict[str, Any]) -> None:
    """What a person reads: the reply's sentences (a card's question and choices are in them) and
    each event as a line of words, never the structured fields."""
    reply = res.get("reply") or {}
    text = reply.get("text", "")
    print(text)
    card = reply.get("card") or {}
    for i, choice in enumerate(card.get("choices") or [], 1):
        if choice.get("display") and choice["display"] not in text:
            print(f"  {i}) {choice['display']}")
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in text)
    seen: set[str] = set()
    # work kept for later that the reply offers already ("另外，上次…"): not told twice
    offered = {a.get("task_id") for a in res.get("actions") or () if a.get("kind") == "offer"}
    for event in res.get("events") or []:
        if event.get("kind") in _SAID_IN_REPLY:
            continue
        if event.get("kind") == "pending_task" and (event.get("data") or {}).get("task_id") in offered:
            continue
        line = _event_line(event, zh)
        if line not in seen:  # the same news twice (two sessions parked alike) is one line
            seen.add(line)
            print(f"  {line}")


_EVENT_WORDS = {
    "handoff": ("已请同事接手", "a colleague was asked to take over"),
    "session_expired": ("一个会话已过期", "a session expired"),
    "pending_task": ("没做完的事已留到下次", "unfinished work was kept for later"),
    "confirmation_cancelled": ("没回答的确认已取消", "an unanswered confirmation was cancelled"),
    "memory.updated": ("记忆已更新", "a memory was updated"),
}
#: events a reply already tells the person of ("记住了：…"), not shown again under it — and the end of another
#: session of theirs (a ``say`` left waiting that timed out, a chat closed by the terminal): nothing the person
#: can act on, said under the first reply of a new chat as [一个会话已过期]; what it left has its own line
#: (unfinished work kept, an unanswered card cancelled), and ``hermesctl events`` still shows it
_SAID_IN_REPLY = ("memory.updated", "session_expired")


def _event_line(event: dict[str, Any], zh: bool) -> str:
    """One event as a line a person reads (a reminder is its task)."""
    data = event.get("data") or {}
    kind = str(event.get("kind"))
    if kind == "reminder":
        return f"⏰ {data.get('text', '')}"
    words = _EVENT_WORDS.get(kind)
    said = str(data.get("slots", {}).get("_utterance") or "").strip() if kind == "pending_task" else ""
    if said:  # which work was kept: the words the user said for it
        return f"[{words[0]}：{said}]" if zh else f'[{words[1]}: "{said}"]'
    return f"[{(words[0] if zh else words[1]) if words else kind}]"


def _ctl_say(c: Any, a: argparse.Namespace) -> Any:
    """One turn. A session ``say`` opened itself is closed again unless the turn left a question
    open (a card, a choice, a slot to fill: answer it with ``--session ID``), so repeated ``say``
    never piles up sessions against ``session.max_sessions_per_user``."""
    session, res = _turn(c, a.session, a.text, a.at)
    res.setdefault("session_id", session)
    waiting = _waiting(res)
    closed = False
    if a.session is None and not waiting:
        from .errors import HermesError

        try:
            c.call("session.close", {"session_id": session})
            closed = True
        except HermesError:
            pass  # already ended by the turn (a handoff) or expired: nothing left to close
    if not a.json:
        _show_turn(res)
        tail = "closed" if closed else f"answer with: hermesctl say --session {session} …"
        print(f"[session {session} state={res.get('state')} intent={res.get('intent')}; {tail}]", file=sys.stderr)
    return res


def _ctl_chat(c: Any, a: argparse.Namespace) -> Any:
    """The interactive conversation. A session chat opened itself is closed when the person quits
    (work left open is kept for a later session, as at any close), so quitting and starting again
    never runs into ``session.max_sessions_per_user``."""
    from .errors import HermesError

    try:
        import readline  # noqa: F401 - line editing and history for input()
    except ImportError:
        pass
    session = a.session
    print("hermesctl chat — Ctrl-D to quit", file=sys.stderr)
    if session is None:
        # an offer of unfinished work the session makes is not shown before anything is typed: the
        # daemon says it after the first answer, in the language of that turn
        try:
            opened = c.call("session.open", {})
        except HermesError as exc:
            print(_chat_error(exc, ""), file=sys.stderr)
            return None
        session = opened["session_id"]
        print(f"[session {session} — hermesctl trace {session}]", file=sys.stderr)
    current = [session]  # the session the chat is in: a new one when the daemon came back without it
    try:
        _chat_loop(c, a, current)
    finally:
        if a.session is None or current[0] != a.session:
            try:
                c.call("session.close", {"session_id": current[0]})
            except (HermesError, OSError):
                pass  # already ended (a handoff, expiry) or the daemon went away: nothing to close
    return None


PROMPT = "you> "


def _read_line(tty: bool) -> str | None:
    """The next line said, None at the end of input. From a terminal, after the prompt (readline
    edits it); from a pipe or a here-doc, which echoes nothing, the prompt is printed with the line
    read, so the transcript shows what was said before each reply."""
    if tty:
        try:
            return input(PROMPT)
        except EOFError:
            print()
            return None
    line = sys.stdin.readline()
    if not line:
        return None
    line = line.rstrip("\r\n")
    if line.strip():
        print(f"{PROMPT}{terminal_text(line)}", flush=True)
    return line


def _chat_loop(c: Any, a: argparse.Namespace, current: list[str]) -> None:
    """Lines until the end of input (Ctrl-D); a blank line is skipped, never the end of the chat.
    When hermesd goes away, it is said in one line and reconnected (:func:`_rejoin`); ``current[0]``
    is kept the session the chat is in (a new one when the daemon came back without the old one)."""
    from .errors import HermesError
    from .redial import GONE, gone_text

    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is not None:  # a line that is not UTF-8 reaches terminal_text, not a UnicodeDecodeError
        reconfigure(errors="surrogateescape")
    tty = sys.stdin.isatty()
    while True:
        line = _read_line(tty)
        if line is None:
            return
        text = line.strip()
        if not text:
            continue
        message_id = f"chat-{os.urandom(8).hex()}"  # what secrets.token_hex(8) is
        try:
            while True:
                try:
                    _, res = _turn(c, current[0], text, a.at, message_id)
                    break
                except GONE:  # a restart: one sentence, reconnect, the same line again (same message_id)
                    zh = any("\u4e00" <= ch <= "\u9fff" for ch in text)
                    print(gone_text(zh), file=sys.stderr, flush=True)
                    current[0] = _redial_or_exit(c, a, zh, lambda: _rejoin(c, current[0], zh))
        except HermesError as exc:  # a sentence, and the chat goes on (the code is for --json)
            print(_chat_error(exc, text), file=sys.stderr)
            continue
        if a.json:
            _print_json(res)
        else:
            _show_turn(res)


def _rejoin(c: Any, session: str, zh: bool) -> str:
    """After a reconnect: ``session`` when the daemon still knows it (restored from its state), else a
    new session, each said in one line. :raises ConnectionError: the daemon went away again."""
    from .errors import SessionExpired, SessionNotFound

    try:
        c.call("session.get", {"session_id": session})
        print("已重新连接，接着刚才的对话。" if zh else "reconnected; the conversation goes on.", file=sys.stderr)
        return session
    except (SessionNotFound, SessionExpired):
        new = c.call("session.open", {})["session_id"]
        print(f"已重新连接，但 hermesd 不记得刚才的对话了，开始了新的对话（会话 {new}）。" if zh else
              f"reconnected, but hermesd no longer knows that conversation; a new conversation started "
              f"(session {new}).", file=sys.stderr)
        return new


def _instant_arg(value: str) -> str:
    """``--at``: an ISO 8601 time with its offset, checked here so a mistyped one is told as such."""
    try:
        datetime.fromisoformat(value[:-1] + "+00:00" if value[-1:] in "zZ" else value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an ISO 8601 time (e.g. 2024-06-12T10:00:00+08:00)") from None
    return value


#: JSON-RPC 2.0 §5.1 names of its reserved error codes
_RPC_NAMES = {-32700: "parse error", -32600: "invalid request", -32601: "method not found",
              -32602: "invalid params", -32603: "internal error"}


def _codes(exc: Any) -> str:
    """The codes a technician looks up, after the sentence: ``INVALID_REQUEST, JSON-RPC -32601 method
    not found``."""
    rpc = getattr(exc, "rpc_code", None)
    name = _RPC_NAMES.get(rpc) if isinstance(rpc, int) else None
    return f"{exc.code}, JSON-RPC {rpc}{f' {name}' if name else ''}" if isinstance(rpc, int) else str(exc.code)


def _sentence(message: str) -> str:
    """A daemon's message as a sentence: a capital first letter and a final full stop."""
    text = message.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?。！？" else f"{text}."


def _chat_error(exc: Any, text: str) -> str:
    """What a person reads when the daemon refused a chat line: a sentence in the language of the line
    (of ``LANG`` / ``LC_ALL`` for an empty one), never the daemon's message for a developer when the
    fault is one a person can fix (an empty line, a mistyped session id)."""
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in text) or \
        (not text.strip() and (os.environ.get("LC_ALL") or os.environ.get("LANG") or "").lower().startswith("zh"))
    if exc.code == "FRAME_TOO_LARGE" or (exc.code == "INPUT_INVALID" and len(text) > 1000):
        return "这句话太长了，请分几句说。" if zh else "That was too long for one message; please split it up."
    bad = {v.get("pointer") for v in (exc.data or {}).get("violations") or () if isinstance(v, dict)} \
        if exc.code == "INPUT_INVALID" else set()
    if "/text" in bad and not text.strip():
        return "这句话是空的，请说点什么。" if zh else "That message was empty; please say something."
    if "/session_id" in bad:  # a mistyped id: no such conversation, whatever its shape
        return ("没有这个会话，请检查会话号，或者不带 --session 开始一个新的。" if zh else
                "There is no conversation with that id; check it, or leave out --session to start a new one.")
    if exc.code in ("SESSION_NOT_FOUND", "SESSION_EXPIRED"):
        return "这个会话已经结束了，请重新开始。" if zh else "This conversation has ended; please start a new one."
    if exc.code == "SESSION_LIMIT":  # why, and what to do: wait a moment, or close one
        n = (exc.data or {}).get("open")
        many = f"{n}个" if zh and n else f"{n} " if n else ("好几个" if zh else "too many ")
        return (f"你已经开着{many}会话，每个都刚刚用过或正在处理，所以开不了新的。请先回答或结束其中一个"
                "（hermesctl say --session 会话号 …），或稍后再试。" if zh else
                f"You already have {many}conversations open and none is idle (each was used just now or is "
                "still working), so a new one cannot start. Answer or close one of them "
                "(hermesctl say --session ID …), or try again in a moment.")
    if exc.code in ("SESSION_BUSY", "RATE_LIMITED"):
        return "我正忙，请稍后再说一次。" if zh else "I am busy right now; please say that again in a moment."
    return (f"没能处理这句话（{exc.message}）。" if zh else f"I could not take that ({exc.message}).")


def _ctl_archive(c: Any, a: argparse.Namespace) -> Any:
    res = c.call("admin.archive", {"action": a.action})
    if not a.json:
        _print_json(res)
    return res


def _ctl_replay(c: Any, a: argparse.Namespace) -> Any:
    from .replay import run_replay, run_xsid
    from .replay_crosswoz import is_crosswoz, run_crosswoz

    socket_path = a.socket  # run_* open their own connection (same lookup as this one)
    as_json = a.json or a.replay_json
    if a.xsid:
        run_xsid(socket_path, a.file, json_out=as_json, limit=a.limit)
    elif is_crosswoz(a.file):
        run_crosswoz(socket_path, a.file, json_out=as_json, limit=a.limit)
    else:
        run_replay(socket_path, a.file, json_out=as_json, limit=a.limit, results_file=a.results)
    return None


def _ctl_mcp(args: argparse.Namespace) -> int:
    """``hermesctl mcp``: a Model Context Protocol server on stdio until stdin closes."""
    import asyncio
    import logging

    from .modelcontext.server import ConfirmNotAllowed, DaemonUnreachable, serve_stdio

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="hermesctl mcp: %(message)s")
    if args.page_size < 1 or args.poll_interval <= 0:
        print("hermesctl mcp: --page-size and --poll-interval must be positive", file=sys.stderr)
        return EX_USAGE
    try:
        asyncio.run(serve_stdio(args.socket, timeout_s=args.timeout, allow_confirm=args.allow_confirm_tools,
                                poll_s=args.poll_interval, page_size=args.page_size))
    except ConfirmNotAllowed as exc:
        print(f"hermesctl mcp: {exc}", file=sys.stderr)
        return EX_NOPERM
    except DaemonUnreachable as exc:
        print(f"hermesctl mcp: cannot check the caller's role: {exc}", file=sys.stderr)
        return EX_UNAVAILABLE
    except KeyboardInterrupt:
        return 130
    return EX_OK


def ctl_main(argv: list[str] | None = None) -> None:
    """``hermesctl [--socket P] [--json] status|ping|say|chat|sessions|tools|metrics|reload|parse|call|trace|events|test|mcp``."""
    from .client import Client, DaemonNotRunning
    from .errors import HermesError, MethodNotFound
    from .redial import RECONNECT_BUDGET_S

    parser = argparse.ArgumentParser(prog="hermesctl", description="Talk to a running hermesd.")
    parser.add_argument("--socket", help="socket path (default: $HERMESD_SOCKET, /run/hermesd/hermesd.sock, ./var/hermesd.sock)")
    parser.add_argument("--json", action="store_true", help="print the raw JSON result (for scripts)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for a reply")
    sub = parser.add_subparsers(dest="cmd", required=True)
    commands: dict[str, Callable[[Any, argparse.Namespace], Any]] = {
        "status": _ctl_status, "ping": _ctl_ping, "metrics": _ctl_metrics, "reload": _ctl_reload,
        "sessions": _ctl_sessions, "tools": _ctl_tools, "say": _ctl_say, "chat": _ctl_chat,
        "parse": _ctl_parse, "call": _ctl_call, "trace": _ctl_trace,
        "events": _ctl_events, "replay": _ctl_replay, "archive": _ctl_archive,
    }
    helps = {"status": "health of the daemon and each subsystem", "ping": "round trip to the daemon",
             "metrics": "Prometheus metrics", "reload": "re-read the config (like SIGHUP)",
             "sessions": "list sessions", "tools": "list tools with health and breaker state",
             "say": "one turn: say TEXT [--session ID]", "chat": "interactive conversation",
             "parse": "what the NLU understands in TEXT (intent, entities, times)",
             "call": "any JSON-RPC method: call METHOD ['{\"json\": \"params\"}']",
             "trace": "how the last turns of a session were decided: trace SESSION_ID",
             "events": "follow this user's events (reminders, handoffs, …)",
             "replay": "replay recorded dialogues (SGD or CrossWOZ turns, or --xsid) and score intents and API calls",
             "archive": "L3 archive: archive status | sync | verify"}
    from .stories.command import add_arguments as add_test_arguments

    add_test_arguments(sub.add_parser("test", help="play conversation stories (YAML) and report passed/failed "
                                                   "and coverage: test PATH…"))
    mcp = sub.add_parser("mcp", help="Model Context Protocol server on stdio: this user's sandboxed tools and "
                                     "hermesd_turn, for MCP clients")
    mcp.add_argument("--allow-confirm-tools", action="store_true",
                     help="run confirm: true tools and let confirmation cards be answered (admin only)")
    mcp.add_argument("--poll-interval", type=float, default=2.0, metavar="S",
                     help="seconds between tool-list checks for list-changed notifications (default 2)")
    mcp.add_argument("--page-size", type=int, default=100, metavar="N", help="tools per tools/list page")
    for name, fn in commands.items():
        p = sub.add_parser(name, help=helps[name])
        if name in ("say", "parse"):
            p.add_argument("text")
        if name == "parse":
            p.add_argument("--at", type=_instant_arg, help="reference time, ISO 8601 with offset")
        if name == "status":
            p.add_argument("--memory", action="store_true",
                           help="also where the resident memory goes: interpreter, libraries, heap by part")
        if name == "trace":
            p.add_argument("session_id")
            p.add_argument("--last", type=int, default=5, help="how many turns (default 5)")
        if name == "archive":
            p.add_argument("action", choices=["status", "sync", "verify"])
        if name in ("events", "chat"):
            p.add_argument("--reconnect-s", type=float, default=RECONNECT_BUDGET_S, metavar="S",
                           help="when hermesd goes away, how long to keep reconnecting before giving up "
                                f"(default {RECONNECT_BUDGET_S:g})")
        if name == "events":
            p.add_argument("--kinds", help="comma-separated kinds (default: all)")
            p.add_argument("--count", type=int, help="exit after this many events")
        if name == "call":
            p.add_argument("method")
            p.add_argument("params", nargs="?", help="params as a JSON object")
        if name == "replay":
            p.add_argument("file", help="JSON Lines in the format of ../shared/data/sgd/sgd_turns.jsonl "
                                        "or ../shared/data/crosswoz/crosswoz_turns.jsonl (recognised)")
            p.add_argument("--json", dest="replay_json", action="store_true", help="print the scores as JSON")
            p.add_argument("--limit", type=int, help="replay only the first N dialogues (records with --xsid)")
            p.add_argument("--xsid", action="store_true", help="FILE is xSID: single-turn sessions")
            p.add_argument("--results", help="where to write the recorded API results (default: a temp file)")
        if name in ("say", "chat"):
            p.add_argument("--session", help="continue this session (default: open a new one)")
            p.add_argument("--at", type=_instant_arg, help="reference time for the turn, ISO 8601 with offset")
        p.set_defaults(fn=fn)
    args = parser.parse_args(argv)
    if args.cmd == "mcp":  # its own asyncio connection; stdout carries MCP messages only
        sys.exit(_ctl_mcp(args))
    if args.cmd == "test":  # its own asyncio connections; loads and checks the stories before connecting
        from .stories.command import run_command

        sys.exit(run_command(args))
    client = Client(args.socket, timeout_s=args.timeout)
    try:
        with client:
            result = args.fn(client, args)
    except DaemonNotRunning as exc:
        print(f"hermesctl: {exc}", file=sys.stderr)
        sys.exit(EX_UNAVAILABLE)
    except HermesError as exc:
        if args.json:
            _print_json({"error": {"code": exc.code, "rpc_code": exc.rpc_code, "message": exc.message,
                                   "data": exc.data}})
        if args.cmd == "say" and not args.json:  # a person reads this: a sentence, not a code
            print(_chat_error(exc, terminal_text(args.text)), file=sys.stderr)
        elif isinstance(exc, MethodNotFound) and args.cmd != "call":  # a command an older daemon lacks
            print(f"hermesctl: this hermesd does not offer that yet ({exc.message}) [{_codes(exc)}]", file=sys.stderr)
        else:
            print(f"hermesctl: {_sentence(exc.message)} [{_codes(exc)}]", file=sys.stderr)
        sys.exit(EX_ERROR)
    except (ConnectionError, TimeoutError, OSError) as exc:
        print(f"hermesctl: connection to hermesd failed: {exc}", file=sys.stderr)
        sys.exit(EX_UNAVAILABLE)
    except KeyboardInterrupt:
        sys.exit(130)
    if args.json and result is not None:
        _print_json(result)
    sys.exit(EX_OK)
