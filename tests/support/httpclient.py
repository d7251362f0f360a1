"""A small HTTP client for tests against a live Daphne: one player's session, its CSRF token,
no redirects followed."""

from __future__ import annotations

import http.client
import re
from urllib.parse import urlencode

from tests.support.players import session_cookie


class Visitor:
    """``source``: the loopback address the visitor connects from; ``headers``: sent with every
    request (a forged X-Forwarded-For)."""

    def __init__(self, server, user=None, cookie: str | None = None, *, source: str = "127.0.0.1",
                 headers: dict[str, str] | None = None) -> None:
        self.server, self.source, self.headers = server, source, headers or {}
        cookie = cookie or (session_cookie(user) if user is not None else None)
        self.cookies = {"sessionid": cookie} if cookie is not None else {}

    def request(self, method: str, path: str, body: dict | None = None) -> http.client.HTTPResponse:
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30,
                                                source_address=(self.source, 0))
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()), "Origin": self.server.url,
                   "Referer": f"{self.server.url}/", **self.headers}
        data = None
        if body is not None:
            data = urlencode({**body, "csrfmiddlewaretoken": self.cookies.get("csrftoken", "")})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        response.text = response.read().decode()
        for header in response.headers.get_all("Set-Cookie") or ():
            found = re.match(r"([^=]+)=([^;]*)", header)
            if found:
                self.cookies[found[1]] = found[2]
        connection.close()
        return response

    def get(self, path: str) -> http.client.HTTPResponse:
        return self.request("GET", path)

    def post(self, path: str, body: dict) -> http.client.HTTPResponse:
        if "csrftoken" not in self.cookies:
            self.get("/")
        return self.request("POST", path, body)
