"""A blocking websocket client for tests against a live Daphne (restart and scale tests).

Its timeouts bound waits for real events (a server answering on a loaded machine): they are
generous, and cost nothing when the test passes."""

from __future__ import annotations

import json

from websockets.sync.client import connect

from tests.support.players import session_cookie

TIMEOUT = 30


class Socket:
    def __init__(self, server, path: str, user=None, cookie: str | None = None) -> None:
        """As ``user`` (a new session), or with the session ``cookie`` made before."""
        cookie = cookie or (session_cookie(user) if user is not None else None)
        headers = {"Cookie": f"sessionid={cookie}"} if cookie is not None else None
        self._connection = connect(f"{server.ws_url}{path}", origin=server.url, additional_headers=headers,
                                   open_timeout=TIMEOUT)
        self.ws = self._connection.__enter__()

    def send(self, message: dict) -> None:
        self.ws.send(json.dumps(message))

    def receive(self, kind: str, timeout: float = TIMEOUT) -> dict:
        """The next message of ``kind``, skipping presence updates, pongs and chat."""
        while True:
            message = json.loads(self.ws.recv(timeout=timeout))
            if message["type"] == kind:
                return message
            assert message["type"] in {"presence", "pong", "chat"}, message

    def close(self) -> None:
        self._connection.__exit__(None, None, None)
