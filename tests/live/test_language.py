"""A socket speaks its page's language (live/language.py): the same refusal, with the same
code, in German and in English."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings

from config.asgi import application
from live.language import scope_language
from tests.support.players import make_accounts, session_cookie
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN, HOST = (b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")


async def first_error(path: str, *, cookies: dict[str, str] | None = None, accept: str | None = None,
                      frame: str | None = None) -> dict:
    headers = [ORIGIN, HOST]
    if cookies:
        headers.append((b"cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()).encode()))
    if accept:
        headers.append((b"accept-language", accept.encode()))
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect(timeout=EVENT_SECONDS)
    assert connected
    try:
        if frame is not None:
            await comm.send_to(text_data=frame)
        while (message := await comm.receive_json_from(timeout=EVENT_SECONDS))["type"] != "error":
            pass
        return message
    finally:
        await comm.disconnect()


async def test_the_same_refusal_reads_in_german_and_english_with_the_same_code():
    (member,) = await database_sync_to_async(make_accounts)(1)
    session = await database_sync_to_async(session_cookie)(member)
    german = await first_error("/ws/site/", cookies={"sessionid": session, settings.LANGUAGE_COOKIE_NAME: "de"},
                               frame="{not json")
    english = await first_error("/ws/site/", cookies={"sessionid": session}, frame="{not json")
    assert german["code"] == english["code"] == "malformed"
    assert english["message"] == "That message is not valid JSON (or repeats a field)."
    assert german["message"] == "Diese Nachricht ist kein gültiges JSON (oder wiederholt ein Feld)."


async def test_a_refusal_made_on_the_database_threads_reads_in_the_language_too():
    """The match socket's not_found is raised inside its database call: the language travels
    with the call to the database thread."""
    french = await first_error("/ws/matches/987654/", accept="fr-FR,fr;q=0.9")
    english = await first_error("/ws/matches/987654/", accept="en")
    assert french["code"] == english["code"] == "not_found"
    assert french["message"] == "Cette partie n’existe pas, ou elle est privée et vous n’avez pas d’invitation."
    assert english["message"].startswith("There is no such match")


async def test_the_accounts_language_comes_before_the_cookie():
    (member,) = await database_sync_to_async(make_accounts)(1)
    member.language = "es"
    await database_sync_to_async(member.save)(update_fields=["language"])
    session = await database_sync_to_async(session_cookie)(member)
    spanish = await first_error("/ws/site/", cookies={"sessionid": session, settings.LANGUAGE_COOKIE_NAME: "de"},
                                frame='{"type": "fly"}')
    assert spanish["code"] == "malformed" and spanish["message"].startswith("Se esperaba un objeto JSON")


class _Member:
    is_authenticated = True

    def __init__(self, language: str) -> None:
        self.language = language


@pytest.mark.parametrize(("scope", "language"), [
    ({}, "en"),
    ({"cookies": {"django_language": "fr"}}, "fr"),
    ({"cookies": {"django_language": "de-at"}}, "de"),
    ({"cookies": {"django_language": "klingon"}, "headers": [(b"accept-language", b"es-MX,es;q=0.9")]}, "es"),
    ({"headers": [(b"accept-language", b"ja, *;q=0.1")]}, "en"),
    ({"headers": [(b"accept-language", b";;;,\xff")]}, "en"),
    ({"user": _Member("de"), "cookies": {"django_language": "fr"}}, "de"),
    ({"user": _Member(""), "cookies": {"django_language": "fr"}}, "fr"),
])
def test_the_scopes_language(scope, language):
    assert scope_language(scope) == language
