"""The bot API speaks the caller's language: Django's LocaleMiddleware reads ``Accept-Language``
for /api/ as for the pages (no cookie, no account choice for a token). A refusal's ``code``
stays English and stable; its ``message`` is translated."""

import pytest
from django.test import Client

from tests.botapi.support import bearer, token_for
from tests.support.players import make_accounts

pytestmark = pytest.mark.django_db


def _get(path: str, language: str, **headers):
    return Client().get(f"/api{path}", HTTP_ACCEPT_LANGUAGE=language, **headers)


@pytest.mark.parametrize(("secret", "code"), [(None, "no_token"), ("not-a-token", "bad_token")])
def test_the_same_refusal_reads_in_german_and_english_with_the_same_code(secret, code):
    headers = bearer(secret) if secret else {}
    english, german = _get("/account", "en", **headers), _get("/account", "de-DE,de;q=0.9", **headers)
    assert english.status_code == german.status_code == 401
    assert english.json()["code"] == german.json()["code"] == code
    assert english["Content-Language"] == "en" and german["Content-Language"] == "de"
    assert english.json()["message"] != german.json()["message"]
    assert "Token" in german.json()["message"]


def test_a_missing_match_reads_in_french():
    (bot,) = make_accounts(1, "polyglot")
    secret = token_for(bot)
    answer = _get("/matches/987654", "fr", **bearer(secret))
    assert answer.status_code == 404 and answer.json()["code"] == "not_found"
    assert answer.json()["message"] == "Cette partie n’existe pas, ou elle est privée."
