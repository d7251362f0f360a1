"""A small HTTP server in a thread of the test, standing in for a GGP player or any host:
it records what it was sent and answers with ``answer(body) -> (status, headers, text)``.

``with PlayerServer(answer) as server:`` listens on 127.0.0.1 (or ``host``) on a port of its
own; ``server.url`` is its address, ``server.requests`` what it received (method, path,
headers, body), in order.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

Reply = tuple[int, dict[str, str], str]


class PlayerServer:
    def __init__(self, answer: Callable[[str], Reply | str], host: str = "127.0.0.1") -> None:
        self.answer = answer
        self.requests: list[dict] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_POST(self) -> None:  # http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                owner.requests.append({"method": "POST", "path": self.path, "headers": dict(self.headers),
                                       "body": body})
                reply = owner.answer(body)
                status, headers, text = (200, {}, reply) if isinstance(reply, str) else reply
                data = text.encode()
                self.send_response(status)
                for name, value in {"Content-Type": "text/acl", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except OSError:
                    pass  # the manager gave up waiting: nothing to answer

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/"

    def bodies(self) -> list[str]:
        return [r["body"] for r in self.requests]

    def __enter__(self) -> PlayerServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


FUMBLING = {"INFO": "available", "START": "ready", "PLAY": "(not a move)", "STOP": "done", "ABORT": "aborted"}


def fumbling(body: str) -> str:
    """A GGP player's answers that follow the protocol but for the moves: online at its check,
    ready at START, and no move to any PLAY, so each of its turns is played at random at once."""
    return FUMBLING[body.strip("()").split()[0].upper()]
