"""Tokens and the bot upgrade: the services, the account page, and the API's auth."""

import pytest
from django.test import Client

from botapi import services
from botapi.models import ApiToken
from games import services as game_services
from games.match.settings import MatchSettings
from games.services import ServiceError
from tests.botapi.support import call, token_for
from tests.support.players import make_accounts, make_players, start_match

pytestmark = pytest.mark.django_db


def test_a_token_is_stored_hashed_and_shown_once_on_the_account_page():
    (user,) = make_accounts(1, "owner")
    client = Client()
    client.force_login(user)
    page = client.post("/account/", {"name": "my bot", "scopes": ["play", "read"]}, follow=True)
    assert page.status_code == 200
    secret = page.context["secret"]
    assert secret.startswith("bh_") and secret in page.content.decode()
    token = ApiToken.objects.get(user=user)
    assert token.digest == services.digest(secret) and secret not in (token.digest, token.hint)
    again = client.get("/account/").content.decode()
    assert secret not in again and token.hint in again
    assert call(secret, "/account", method="get").json()["id"] == user.pk


@pytest.mark.parametrize("name, says", [
    ("\x00", "a control character (U+0000)"),
    ("\u202e", "an invisible formatting character (U+202E)"),
    ("bot\u202eexe.", "an invisible formatting character (U+202E)"),
    ("\u3164", "Name the token"),
])
def test_a_token_name_the_text_policy_refuses_is_refused_and_nothing_stored(name, says):
    (user,) = make_accounts(1, "owner")
    client = Client()
    client.force_login(user)
    page = client.post("/account/", {"name": name, "scopes": ["play", "read"]}, follow=True)
    assert page.status_code == 200 and page.context["secret"] is None
    assert says in page.content.decode().replace("&#x27;", "'")
    assert not ApiToken.objects.exists()


def test_a_revoked_token_opens_nothing():
    (user,) = make_accounts(1, "owner")
    secret = token_for(user)
    token = ApiToken.objects.get(user=user)
    client = Client()
    client.force_login(user)
    assert client.post(f"/account/tokens/{token.pk}/revoke/").status_code == 302
    answer = call(secret, "/account", method="get")
    assert answer.status_code == 401 and answer.json()["code"] == "bad_token"


def test_calls_need_a_token_with_their_scope():
    (user,) = make_accounts(1, "owner")
    assert call(None, "/account", method="get").json()["code"] == "no_token"
    assert call("bh_nonsense", "/account", method="get").status_code == 401
    reader = token_for(user, scopes=("read",))
    answer = call(reader, "/bot/account/upgrade")
    assert answer.status_code == 403 and answer.json()["code"] == "missing_scope"


def test_guests_get_no_tokens():
    (guest,) = make_players(1, "guest")
    with pytest.raises(ServiceError) as refused:
        services.token_create(user=guest, name="x", scopes={"play"})
    assert refused.value.code == "account_needed"


def test_a_bot_upgrade_is_only_for_an_account_that_never_played():
    fresh, played, other = make_accounts(3, "up")
    start_match("tictactoe-x9", [played, other])
    assert call(token_for(fresh), "/bot/account/upgrade").json() == {"ok": True}
    fresh.refresh_from_db()
    assert fresh.is_bot
    answer = call(token_for(played), "/bot/account/upgrade")
    assert answer.status_code == 400 and answer.json()["code"] == "has_played"
    assert call(token_for(fresh), "/bot/account/upgrade").json()["code"] == "already_bot"


def test_a_bot_is_marked_on_its_page_and_kept_out_of_the_pool():
    (bot,) = make_accounts(1, "robo")
    services.bot_upgrade(user=bot)
    page = Client().get(f"/players/{bot.pk}/").content.decode()
    assert '<span class="tag">bot</span>' in page
    with pytest.raises(ServiceError) as refused:
        game_services.pool_enter(user=bot, settings=MatchSettings("tictactoe-x9"), channel_name="x")
    assert refused.value.code == "bots_not_pooled"


def test_a_bot_is_marked_in_the_state_every_match_page_draws():
    """The match page and the lobby's lists name players from ``player_json``: its ``bot``
    flag is what draws the "bot" tag beside a program's name (static/js/match-seats.js)."""
    from games.selectors import match_snapshot_by_id

    bot, person = make_accounts(2, "mark")
    services.bot_upgrade(user=bot)
    match = start_match("tictactoe-x9", [bot, person])
    players = {seat["player"]["id"]: seat["player"] for seat in match_snapshot_by_id(match_id=match.pk)["seats"]}
    assert players[bot.pk]["bot"] is True and players[person.pk]["bot"] is False


def test_calls_over_the_budget_are_429_with_retry_after(settings):
    settings.BOT_API_BURST, settings.BOT_API_CALLS_PER_SECOND = 3, 0.01
    (user,) = make_accounts(1, "fast")
    secret = token_for(user)
    assert [call(secret, "/account", method="get").status_code for _ in range(3)] == [200] * 3
    over = call(secret, "/account", method="get")
    assert over.status_code == 429 and over.json()["code"] == "rate_limited"
    assert int(over["Retry-After"]) >= 1


def test_the_description_and_its_page():
    schema = Client().get("/api/openapi.json").json()
    assert schema["openapi"].startswith("3.") and "/api/matches/{match_id}/move" in schema["paths"]
    page = Client().get("/api/docs/").content.decode()
    assert "/api/matches/{match_id}/move" in page and "/api/stream/event" in page



def test_a_bot_is_marked_in_the_history_rows():
    """The history's rows, drawn by the server, name a bot as such (the pages drawn by script
    read the ``bot`` flag of the state, above)."""
    from tests.support.players import play_out

    bot, person = make_accounts(2, "list")
    services.bot_upgrade(user=bot)
    play_out(start_match("tictactoe-x9", [bot, person]), [bot, person])
    history = Client().get("/history/").content.decode()
    assert f'{bot}</a> <span class="tag">bot</span>' in history
    assert f'{person}</a> <span class="tag">bot</span>' not in history
