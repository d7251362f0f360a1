"""The account page and the API's documentation page (botapi/views.py)."""

import re
from html import unescape

import pytest
from django.test import Client

from botapi.models import ApiToken
from tests.botapi.support import call
from tests.support.players import make_accounts

pytestmark = pytest.mark.django_db

LISTED_CALL = re.compile(r"<dt><code>(GET|POST|PUT|PATCH|DELETE) (\S+)</code>")


def test_every_call_the_docs_page_lists_answers_at_the_path_it_shows():
    """Each call is requested by the method and path the page prints (a path parameter as 1,
    without a token): it must reach the API's call, which asks for a token, never a 404."""
    page = unescape(Client().get("/api/docs/").content.decode())
    listed = LISTED_CALL.findall(page)
    assert len(listed) >= 10
    for method, path in listed:
        assert path.startswith("/api/") and not path.startswith("/api/api/"), path
        answer = Client().generic(method, re.sub(r"\{\w+\}", "1", path))
        assert answer.status_code == 401, (method, path, answer.status_code)


def test_the_docs_page_shows_code_in_the_descriptions_as_code_not_backticks():
    page = Client().get("/api/docs/").content.decode()
    assert "``" not in page and "<code>stale_version</code>" in page


def test_a_new_token_is_shown_once_after_the_redirect_and_a_reload_makes_no_second():
    (user,) = make_accounts(1, "owner")
    client = Client()
    client.force_login(user)
    made = client.post("/account/", {"name": "my bot", "scopes": ["play", "read"]})
    assert made.status_code == 302 and made["Location"] == "/account/"
    assert ApiToken.objects.filter(user=user).count() == 1
    shown = client.get("/account/")
    secret = shown.context["secret"]
    assert secret.startswith("bh_") and secret in shown.content.decode()
    assert call(secret, "/account", method="get").json()["id"] == user.pk
    reloaded = client.get("/account/")
    assert reloaded.context["secret"] is None and secret not in reloaded.content.decode()
    assert ApiToken.objects.filter(user=user).count() == 1


def test_a_refused_token_name_redirects_with_the_reason_and_stores_nothing():
    (user,) = make_accounts(1, "owner")
    client = Client()
    client.force_login(user)
    refused = client.post("/account/", {"name": "\x00", "scopes": ["play"]}, follow=True)
    assert refused.redirect_chain == [("/account/", 302)]
    assert "a control character (U+0000)" in refused.content.decode().replace("&#x27;", "'")
    assert refused.context["secret"] is None and not ApiToken.objects.exists()
