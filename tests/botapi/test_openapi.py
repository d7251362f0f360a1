"""The bot API's OpenAPI document describes the API whole: every route the app serves under
/api/, typed answers and stream lines, the rule sets' slugs, every refusal (413 and 429 with
Retry-After), ``servers``, a real summary per call; and what the calls answer validates against
the document's own models (``botapi.openapi``)."""

import asyncio
import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from botapi import openapi
from games.rules import SLUGS
from tests.botapi.support import call, token_for
from tests.botapi.test_streams import move, open_stream, setup_duel
from tests.support.players import make_accounts, start_match

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def document():
    return Client().get("/api/openapi.json").json()


def served(resolver=None, prefix=""):
    """Every route the site serves, as OpenAPI writes paths (``{name}`` for a parameter)."""
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from served(entry, route)
        elif isinstance(entry, URLPattern):
            yield "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route).lstrip("^").rstrip("$")


def test_every_route_under_api_is_in_the_document_with_a_real_summary(document):
    routes = {path for path in served() if path.startswith("/api/")}
    # the document itself, its page, and ninja's root (no operation)
    described = set(document["paths"]) | {"/api/openapi.json", "/api/docs/", "/api/"}
    assert routes - described == set()
    operations = [op for path in document["paths"].values() for op in path.values()]
    assert len(operations) >= 18
    assert [op["operationId"] for op in operations if op.get("summary", "Call") in {"Call", ""}] == []
    assert document["servers"] and document["servers"][0]["url"]


def test_the_rule_sets_slugs_are_an_enum(document):
    schemas = document["components"]["schemas"]
    assert schemas["ChallengeIn"]["properties"]["game"]["enum"] == list(SLUGS)
    assert schemas["MatchView"]["properties"]["game"]["enum"] == list(SLUGS)


def test_typed_answers_streams_and_refusals_are_described(document):
    paths, schemas = document["paths"], document["components"]["schemas"]
    ref = "#/components/schemas/"
    for path, name in [("/api/challenges", "Challenge"), ("/api/challenges/{challenge_id}/accept", "Challenge")]:
        assert paths[path]["post"]["responses"]["200"]["content"]["application/json"]["schema"] == {"$ref": ref + name}
    state = paths["/api/matches/{match_id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert state == {"$ref": ref + "GameState"} and "you" in schemas["GameState"]["properties"]
    for path, method, lines in [
            ("/api/matches/{match_id}/stream", "get", {"GameState", "ChatLine", "Notice", "OpponentGone"}),
            ("/api/stream/event", "get", {"ChallengeEvent", "GameStart", "GameFinish"}),
            ("/api/seek", "post", {"GameStart", "SeekCanceled"})]:
        content = paths[path][method]["responses"]["200"]["content"]
        assert list(content) == ["application/x-ndjson"]
        assert {r["$ref"].removeprefix(ref) for r in content["application/x-ndjson"]["schema"]["oneOf"]} == lines
    for path in paths.values():
        for operation in path.values():
            answers = operation["responses"]
            assert "too_large" in answers["413"]["description"]
            assert "Retry-After" in answers["429"]["headers"]
    assert "stale_version" in schemas["Error"]["properties"]["code"]["description"]
    text = str(document)
    for target in set(re.findall(r"#/components/schemas/(\w+)", text)):
        assert target in schemas, f"a $ref to {target} leads nowhere"


def test_what_the_calls_answer_validates_against_the_document():
    x, o = make_accounts(2, "doc")
    x_token, o_token = token_for(x), token_for(o)
    made = call(x_token, "/challenges", {"to": o.pk, "game": "tictactoe-x9"})
    openapi.Challenge.model_validate(made.json())
    accepted = call(o_token, f"/challenges/{made.json()['id']}/accept")
    openapi.Challenge.model_validate(accepted.json())
    state = call(x_token, f"/matches/{accepted.json()['match']}", method="get").json()
    openapi.GameState.model_validate(state)
    match = start_match("tictactoe-3player", make_accounts(3, "three"))
    openapi.GameState.model_validate(call(token_for(match.seats.first().player), f"/matches/{match.pk}",
                                          method="get").json())
    refused = call(x_token, "/challenges", {"to": o.pk, "game": "chess"})
    assert set(refused.json()) >= {"code", "message"}


async def test_the_stream_lines_validate_against_the_document(settings):
    settings.BOT_API_KEEPALIVE_SECONDS = 0.2
    match, x, o, x_secret, _ = await setup_duel()
    _, stream = await open_stream(x_secret, f"/matches/{match.pk}/stream")
    _, events = await open_stream(x_secret, "/stream/event")
    try:
        openapi.GameState.model_validate(await stream.next("gameFull"))
        openapi.GameStart.model_validate(await events.next("gameStart"))
        await move(match.pk, x, match.version)
        openapi.GameState.model_validate(await stream.next("gameState"))
        await database_sync_to_async(__import__("games.services", fromlist=["x"]).match_resign)(match_id=match.pk,
                                                                                                 user=o)
        openapi.GameFinish.model_validate(await events.next("gameFinish"))
    finally:
        await asyncio.gather(stream.close(), events.close())
