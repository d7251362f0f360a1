"""The embed route's middleware (config/embedsockets.py): which sockets skip the origin check,
and that those arrive without cookies, session or user."""

import asyncio

import pytest

from config.embedsockets import OpenToAnyOrigin


def route(path: str, headers: list) -> tuple[str, dict | None, list]:
    """Which app took a websocket on ``path`` with ``headers``, the scope it got, what was sent."""
    taken: list = []
    sent: list = []

    def app(name):
        async def handle(scope, receive, send):
            taken.append((name, scope))
        return handle

    inbox = iter([{"type": "websocket.connect"}, {"type": "websocket.disconnect", "code": 1000}])

    async def receive():
        return next(inbox)

    async def send(message):
        sent.append(message)

    router = OpenToAnyOrigin(embedded=app("embedded"), guarded=app("guarded"))
    asyncio.run(router({"type": "websocket", "path": path, "headers": headers}, receive, send))
    name, scope = taken[0] if taken else (None, None)
    return name, scope, sent


@pytest.mark.pure
def test_the_embed_route_gets_no_cookie_session_or_user():
    name, scope, _ = route("/ws/embed/7/", [(b"host", b"127.0.0.1"), (b"origin", b"https://blog.example"),
                                            (b"cookie", b"sessionid=abc; csrftoken=def")])
    assert name == "embedded"
    assert all(header != b"cookie" for header, _ in scope["headers"])
    assert scope["cookies"] == {} and scope["session"] is None and not scope["user"].is_authenticated


@pytest.mark.pure
def test_every_other_route_goes_through_the_guarded_stack_untouched():
    headers = [(b"host", b"127.0.0.1"), (b"cookie", b"sessionid=abc")]
    for path in ("/ws/matches/7/", "/ws/lobby/", "/ws/embedded/", "/embed/7/"):
        name, scope, _ = route(path, headers)
        assert name == "guarded" and scope["headers"] == headers


@pytest.mark.django_db  # Channels' denier closes stale database connections as it handles the socket
def test_the_embed_route_still_needs_a_host_the_site_answers_to():
    name, _, sent = route("/ws/embed/7/", [(b"host", b"evil.example")])
    assert name is None and sent[0]["type"] == "websocket.close"
