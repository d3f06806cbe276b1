"""A scripted model server on 127.0.0.1 that speaks both chat APIs as their documentation gives them.

- ``POST /v1/chat/completions`` — OpenAI Chat Completions: ``choices[0].message`` with ``content``
  and ``tool_calls: [{id, type: "function", function: {name, arguments: "<JSON string>"}}]``,
  ``finish_reason``, ``usage.{prompt_tokens, completion_tokens, total_tokens}``.
- ``POST /api/chat`` — Ollama (``stream: false``): ``message`` with ``content`` and ``tool_calls:
  [{function: {name, arguments: {object}}}]``, ``done``, ``done_reason``, ``prompt_eval_count``,
  ``eval_count`` and the ``*_duration`` fields (ns).

Each test scripts the answers (:meth:`ModelServer.script`): a :class:`Say` per model call, in
order. The server checks every request the way the real servers would refuse it (unknown
fields of a message, a tool message that answers no call, a wrong argument type) and records
the problems in ``errors``, so a test can assert hermesd spoke the API right.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Say:
    """One scripted model answer.

    :param text: the assistant's content. :param calls: ``(name, arguments)``; ``arguments`` a dict,
        or (OpenAI only) a raw string sent as is (invalid JSON on purpose).
    :param delay_s: wait before answering (model latency, or a slow endpoint).
    :param status: an HTTP status other than 200 (an error body is sent).
    """

    text: str = ""
    calls: list[tuple[str, Any]] = field(default_factory=list)
    delay_s: float = 0.0
    status: int = 200
    tokens_in: int = 40
    tokens_out: int = 12


class ModelServer:
    """The scripted server; ``requests`` holds each request body as parsed JSON with its path."""

    def __init__(self, port: int = 0) -> None:
        self.answers: list[Say] = []
        self.default: Say | None = None
        self.requests: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self._port = port
        self.httpd: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None
        self.start()

    # -- life --------------------------------------------------------------------------

    def start(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n)
                status, payload = server._answer(self.path, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # hermesd gave up (its timeout): a real server sees the same

        self.httpd = ThreadingHTTPServer(("127.0.0.1", self._port), Handler)
        self.httpd.daemon_threads = True
        self._port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Stop listening (the port refuses connections until :meth:`start`)."""
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None
        if self.thread is not None:
            self.thread.join(5)
            self.thread = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    def script(self, *answers: Say, default: Say | None = None) -> None:
        """The answers of the next model calls, in order; then ``default`` (or an error 500)."""
        with self.lock:
            self.answers = list(answers)
            self.default = default

    # -- answering ---------------------------------------------------------------------

    def _answer(self, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
        try:
            req = json.loads(body)
        except ValueError:
            self.errors.append("request body is not JSON")
            return 400, {"error": "invalid JSON"}
        api = {"/v1/chat/completions": "openai", "/api/chat": "ollama"}.get(path)
        with self.lock:
            self.requests.append({"path": path, "body": req})
            say = self.answers.pop(0) if self.answers else self.default
        if api is None:
            return 404, {"error": f"no route {path}"}
        self._check(api, req)
        if say is None:
            return 500, {"error": {"message": "no scripted answer", "type": "server_error"}}
        if say.delay_s:
            time.sleep(say.delay_s)
        if say.status != 200:
            return say.status, {"error": {"message": "scripted failure", "type": "server_error"}}
        return 200, (self._openai(req, say) if api == "openai" else self._ollama(req, say))

    def _openai(self, req: dict[str, Any], say: Say) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": say.text or None}
        if say.calls:
            msg["tool_calls"] = [{"id": f"call_{len(self.requests)}_{i}", "type": "function",
                                  "function": {"name": name,
                                               "arguments": args if isinstance(args, str) else json.dumps(args)}}
                                 for i, (name, args) in enumerate(say.calls)]
        return {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
                "model": req.get("model"), "system_fingerprint": "fp_test",
                "choices": [{"index": 0, "message": msg, "logprobs": None,
                             "finish_reason": "tool_calls" if say.calls else "stop"}],
                "usage": {"prompt_tokens": say.tokens_in, "completion_tokens": say.tokens_out,
                          "total_tokens": say.tokens_in + say.tokens_out}}

    def _ollama(self, req: dict[str, Any], say: Say) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": say.text}
        if say.calls:
            msg["tool_calls"] = [{"function": {"name": name, "arguments": args}} for name, args in say.calls]
        return {"model": req.get("model"), "created_at": "2026-12-01T10:00:00.000000Z", "message": msg,
                "done": True, "done_reason": "stop", "total_duration": 200_000_000, "load_duration": 1_000_000,
                "prompt_eval_count": say.tokens_in, "prompt_eval_duration": 50_000_000,
                "eval_count": say.tokens_out, "eval_duration": 149_000_000}

    # -- what the real servers refuse --------------------------------------------------

    def _check(self, api: str, req: dict[str, Any]) -> None:
        bad = self.errors.append
        if not isinstance(req.get("model"), str) or not isinstance(req.get("messages"), list):
            bad("model and messages are required")
            return
        if req.get("stream") is not False:
            bad("hermesd must ask for a non-streaming answer (stream: false)")
        for t in req.get("tools") or []:
            fn = t.get("function") or {}
            if t.get("type") != "function" or not isinstance(fn.get("name"), str) or \
                    (fn.get("parameters") or {}).get("type") != "object":
                bad(f"bad tool entry {t!r}")
        open_calls: dict[str, str] = {}
        allowed = {"openai": {"system": {"role", "content"}, "user": {"role", "content"},
                              "assistant": {"role", "content", "tool_calls"},
                              "tool": {"role", "content", "tool_call_id"}},
                   "ollama": {"system": {"role", "content"}, "user": {"role", "content"},
                              "assistant": {"role", "content", "tool_calls"},
                              "tool": {"role", "content", "tool_name"}}}[api]
        for m in req["messages"]:
            role = m.get("role")
            if role not in allowed:
                bad(f"unknown role {role!r}")
                continue
            if set(m) - allowed[role]:
                bad(f"{api} {role} message has unknown fields {sorted(set(m) - allowed[role])}")
            if role != "assistant" and not isinstance(m.get("content"), str):
                bad(f"{role} content must be a string")
            for c in m.get("tool_calls") or []:
                fn = c.get("function") or {}
                if api == "openai":
                    if c.get("type") != "function" or not isinstance(c.get("id"), str) or \
                            not isinstance(fn.get("arguments"), str):
                        bad("openai tool_calls need id, type function and string arguments")
                    open_calls[c.get("id")] = fn.get("name")
                elif not isinstance(fn.get("arguments"), dict):
                    bad("ollama tool_calls arguments must be an object")
                else:
                    open_calls[fn.get("name")] = fn.get("name")
            if role == "tool":
                key = m.get("tool_call_id") if api == "openai" else m.get("tool_name")
                if key not in open_calls:
                    bad(f"{api} tool message answers no call: {key!r}")
