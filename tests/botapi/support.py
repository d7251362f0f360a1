"""Tokens and calls for the bot API tests."""

from __future__ import annotations

from django.test import Client

from botapi import services
from tests.support.players import make_accounts


def token_for(user, scopes=("play", "read")) -> str:
    return services.token_create(user=user, name="test bot", scopes=set(scopes))[1]


def bearer(secret: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def call(secret: str | None, path: str, body: dict | str | None = None, method: str = "post"):
    """One call to the API (``body`` as JSON, or text sent as it is); the response."""
    client = Client()
    headers = bearer(secret) if secret else {}
    if method == "get":
        return client.get(f"/api{path}", **headers)
    data = body if isinstance(body, str) else __import__("json").dumps(body or {})
    return client.post(f"/api{path}", data=data, content_type="application/json", **headers)


def bot_and_person(prefix: str = "api"):
    bot, person = make_accounts(2, prefix)
    return bot, person
