"""The account page and the API's documentation page (botapi/views.py)."""

import re
from html import unescape

import pytest
from django.test import Client

from botapi.models import ApiToken
from tests.botapi.support import bearer, call
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
