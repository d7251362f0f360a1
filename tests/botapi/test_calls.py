"""The API's calls: the same services and refusal codes as the match socket; hostile input is a
clear 4xx, never a 500."""

import pytest
from django.contrib.auth import get_user_model

from games.ggp.manager import ACCOUNT_PREFIX
from games.models import Challenge, ChatMessage, Match
from games.rules import get_game
from tests.botapi.support import call, token_for
from tests.support.players import make_accounts, play_first_moves, start_match

pytestmark = pytest.mark.django_db
GAME = "tictactoe-x9"


@pytest.fixture
def duel():
    x, o = make_accounts(2, "duel")
    match = start_match(GAME, [x, o])
    return match, (x, token_for(x)), (o, token_for(o))


def legal(match):
    game = get_game(match.game)
    return game.legal_actions(game.state_from_json(match.state))


def test_a_move_is_played_and_answers_the_new_version(duel):
    match, (_, x), _ = duel
    answer = call(x, f"/matches/{match.pk}/move", {"action": legal(match)[0], "version": match.version})
    assert answer.status_code == 200 and answer.json() == {"ok": True, "version": match.version + 1}
    match.refresh_from_db()
    assert match.plies == 1


def test_an_illegal_a_stale_and_an_out_of_turn_move_get_the_sockets_codes(duel):
    match, (_, x), (_, o) = duel
    illegal = call(x, f"/matches/{match.pk}/move", {"action": "(mark 9 9 9 9)", "version": match.version})
    assert illegal.status_code == 400 and illegal.json()["code"] == "illegal_action"
    turn = call(o, f"/matches/{match.pk}/move", {"action": legal(match)[0], "version": match.version})
    assert turn.json()["code"] == "not_your_turn"
    call(x, f"/matches/{match.pk}/move", {"action": legal(match)[0], "version": match.version})
    stale = call(o, f"/matches/{match.pk}/move", {"action": "(mark 1 1 1 2)", "version": match.version})
    assert stale.status_code == 400 and stale.json()["code"] == "stale_version"
    state = stale.json()["state"]
    assert state["type"] == "gameState" and state["version"] == match.version + 1 and state["you"]["legal"]


def test_the_state_call_answers_a_game_state_line(duel):
    match, (_, x), _ = duel
    state = call(x, f"/matches/{match.pk}", method="get").json()
    assert state["type"] == "gameState" and state["version"] == match.version and state["you"]["legal"]


def test_a_spectator_cannot_move_and_a_missing_match_is_404(duel):
    match, _, _ = duel
    (watcher,) = make_accounts(1, "watch")
    answer = call(token_for(watcher), f"/matches/{match.pk}/move", {"action": legal(match)[0], "version": 0})
    assert answer.status_code == 400 and answer.json()["code"] == "not_seated"
    assert call(token_for(watcher), "/matches/999999/move", {"action": "x", "version": 0}).status_code == 404


def test_resign_abort_draws_and_chat(duel):
    match, (x_user, x), (_, o) = duel
    assert call(x, f"/matches/{match.pk}/chat", {"text": "good luck"}).json() == {"ok": True}
    assert ChatMessage.objects.get(match=match).text == "good luck"
    early = call(x, f"/matches/{match.pk}/draw/offer")
    assert early.json()["code"] == "draw_too_early"
    play_first_moves(match, [x_user, duel[2][0]])
    assert call(x, f"/matches/{match.pk}/draw/offer").json() == {"ok": True}
    assert call(o, f"/matches/{match.pk}/draw/decline").json() == {"ok": True}
    assert call(o, f"/matches/{match.pk}/abort").json()["code"] == "match_under_way"
    assert call(o, f"/matches/{match.pk}/resign").json() == {"ok": True}
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


@pytest.mark.django_db(transaction=True)  # the call is async: its writes run on another thread
def test_a_challenge_made_and_accepted_over_the_api_starts_a_match():
    a, b = make_accounts(2, "chal")
    made = call(token_for(a), "/challenges", {"to": b.pk, "game": GAME, "clock": "untimed"})
    assert made.status_code == 200 and made.json()["status"] == "pending"
    accepted = call(token_for(b), f"/challenges/{made.json()['id']}/accept")
    assert accepted.json()["status"] == "accepted" and accepted.json()["match"]
    assert Match.objects.get(pk=accepted.json()["match"]).status == Match.Status.ACTIVE
    again = call(token_for(b), f"/challenges/{made.json()['id']}/decline")
    assert again.status_code == 400 and again.json()["code"] == "challenge_closed"
    other = call(token_for(a), "/challenges", {"to": b.pk, "game": GAME})
    assert call(token_for(b), f"/challenges/{other.json()['id']}/decline").json()["status"] == "declined"
    assert Challenge.objects.filter(status="declined").count() == 1
    assert call(token_for(a), "/challenges", {"to": b.pk, "game": "chess"}).json()["code"] == "unknown_game"


@pytest.mark.django_db(transaction=True)  # the call is async: its writes run on another thread
def test_a_challenge_to_a_ggp_player_is_refused_with_its_code():
    (person,) = make_accounts(1, "asker")
    program = get_user_model().objects.create(username=f"{ACCOUNT_PREFIX}egghead", is_bot=True)
    refused = call(token_for(person), "/challenges", {"to": program.pk, "game": GAME})
    assert refused.status_code == 400 and refused.json()["code"] == "ggp_player"


@pytest.mark.django_db(transaction=True)  # the call is async: its writes run on another thread
def test_a_three_player_challenge_accepted_waits_for_a_third_player():
    a, b = make_accounts(2, "trio")
    made = call(token_for(a), "/challenges", {"to": b.pk, "game": "tictactoe-3player"})
    accepted = call(token_for(b), f"/challenges/{made.json()['id']}/accept").json()
    match = Match.objects.get(pk=accepted["match"])
    assert accepted["status"] == "accepted" and match.status == Match.Status.WAITING
    players = [seat.player_id for seat in match.seats.all()]
    assert sorted(players, key=str) == sorted([a.pk, b.pk, None], key=str)


@pytest.mark.parametrize("body", [
    "{not json", "[]", "null", '"text"', '{"action": 5, "version": 0}', '{"action": "x", "version": "0"}',
    '{"action": "x", "version": true}', '{"action": "x", "version": -1}', '{"action": "x"}',
    '{"action": "' + "x" * 5000 + '", "version": 0}', '{"action": "x", "version": 99999999999999999999}',
    '{"action": [[[[[[[[]]]]]]]], "version": 0}',
])
def test_hostile_bodies_are_a_clear_400(duel, body):
    match, (_, x), _ = duel
    answer = call(x, f"/matches/{match.pk}/move", body)
    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "malformed" and answer.json()["message"]


ONCE_EACH = [  # (call, body, what the message names): each would be played, posted or sent if taken
    ("move", '{{"action": "{action}", "version": {version}, "extra": 1}}', "extra"),
    ("move", '{{"action": "{action}", "version": 1, "version": {version}}}', "'version' is given twice"),
    ("chat", '{{"text": "hi", "colour": "red"}}', "colour"),
    ("chat", '{{"text": "hi", "text": "hello"}}', "'text' is given twice"),
    ("challenges", '{{"to": {to}, "game": "' + GAME + '", "seat": "x"}}', "seat"),
    ("challenges", '{{"to": {to}, "game": "chess", "game": "' + GAME + '"}}', "'game' is given twice"),
]


@pytest.mark.parametrize("path,body,named", ONCE_EACH, ids=[f"{c[0]} {c[2]}" for c in ONCE_EACH])
def test_unknown_and_repeated_fields_are_malformed_and_change_nothing(duel, path, body, named):
    match, (_, x), (o, _) = duel
    path = "/challenges" if path == "challenges" else f"/matches/{match.pk}/{path}"
    before = (Match.objects.get(pk=match.pk).version, ChatMessage.objects.count(), Challenge.objects.count())
    answer = call(x, path, body.format(action=legal(match)[0], version=match.version, to=o.pk))
    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "malformed" and named in answer.json()["message"]
    assert (Match.objects.get(pk=match.pk).version, ChatMessage.objects.count(), Challenge.objects.count()) == before


def test_a_huge_body_is_refused_not_a_500(duel, settings):
    match, (_, x), _ = duel
    answer = call(x, f"/matches/{match.pk}/chat", '{"text": "' + "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10) + '"}')
    assert answer.status_code == 413 and answer["Content-Type"] == "application/json"
    assert answer.json() == {"code": "too_large", "message": "A request may carry at most 2.5 MB."}


@pytest.mark.parametrize("path", ["/matches/99999999999999999999/move", "/matches/-1/resign",
                                  "/matches/abc/chat", "/challenges/99999999999999999999/accept",
                                  "/matches/1.5/abort"])
def test_hostile_ids_in_the_address_are_a_4xx(duel, path):
    _, (_, x), _ = duel
    answer = call(x, path, {"action": "x", "version": 0, "text": "hi"})
    assert 400 <= answer.status_code < 500, answer.content


@pytest.mark.parametrize("path, body", [
    ("move", {"action": "(mark 1 1 1 1)", "version": 0}), ("chat", {"text": "hello"}), ("resign", None),
    ("abort", None), ("draw/offer", None), ("draw/accept", None), ("draw/decline", None),
])
@pytest.mark.parametrize("status", ["waiting", "active", "finished"])
def test_a_private_match_is_a_404_to_an_outsider_as_a_missing_one_is(path, body, status):
    """No existence oracle: an outsider's call on a private match (waiting, in play or over) is
    answered word for word as one on a match that does not exist."""
    from games import services
    from games.match.settings import MatchSettings

    alice, bob, frank = make_accounts(3, "secret")
    if status == "waiting":
        match = services.match_create(user=alice, settings=MatchSettings(GAME), role="xplayer", is_private=True)
    else:
        match = start_match(GAME, [alice, bob], is_private=True)
        if status == "finished":
            services.match_resign(match_id=play_first_moves(match, [alice, bob]).pk, user=alice)
    frank_token = token_for(frank)
    hidden = call(frank_token, f"/matches/{match.pk}/{path}", body)
    missing = call(frank_token, f"/matches/{match.pk + 1000}/{path}", body)
    assert (hidden.status_code, hidden.json()) == (missing.status_code, missing.json()) == (
        404, {"code": "not_found", "message": "There is no such match, or it is private."})
    assert not ChatMessage.objects.exists()
    match.refresh_from_db()
    assert match.status == status


def test_a_public_match_still_tells_a_spectator_why(duel):
    match, _, _ = duel
    (watcher,) = make_accounts(1, "watch")
    answer = call(token_for(watcher), f"/matches/{match.pk}/chat", {"text": "hi"})
    assert answer.status_code == 400 and answer.json()["code"] == "not_seated"


def test_a_match_of_rules_the_site_no_longer_has_is_a_404_that_says_why(duel):
    """Its state and its analysis, read or asked for: before, a 500 (or a 400 that blamed the caller)."""
    match, (_, x), _ = duel
    Match.objects.filter(pk=match.pk).update(game="no-such-game", status=Match.Status.FINISHED)
    for path, method in ((f"/matches/{match.pk}", "get"), (f"/matches/{match.pk}/analysis", "get"),
                         (f"/matches/{match.pk}/analysis", "post")):
        answer = call(x, path, method=method)
        assert answer.status_code == 404 and answer.json()["code"] == "unknown_rules", (path, method)
        assert "rules this site no longer has (no-such-game)" in answer.json()["message"]


def test_playing_on_a_match_of_rules_the_site_no_longer_has_is_a_404_that_says_why(duel):
    """A move, a resignation or a draw offer on an active match whose rule set was removed since
    (or whose row is damaged): refused with ``unknown_rules``, nothing changed. Before, a 500."""
    match, (_, x), _ = duel
    action = legal(match)[0]
    Match.objects.filter(pk=match.pk).update(game="gone-rules")
    for path, body in (("move", {"action": action, "version": match.version}), ("resign", None), ("draw/offer", None)):
        answer = call(x, f"/matches/{match.pk}/{path}", body)
        assert answer.status_code == 404 and answer.json()["code"] == "unknown_rules", (path, answer.content)
    assert Match.objects.filter(pk=match.pk, status=Match.Status.ACTIVE, version=match.version).exists()


def test_chat_through_the_api_takes_from_the_same_budget_as_the_players_sockets(duel, settings):
    """One budget per player for chat, whether the line comes from a page's socket or the API:
    the API is no way around the socket's limit. A line over it changes nothing."""
    from asgiref.sync import async_to_sync

    from games.runtime import throttle

    settings.WS_RATE_BURST, settings.WS_RATE_PER_SECOND = 3, 0.001
    match, (x_user, x), _ = duel
    taken = [async_to_sync(throttle.limits().take)(throttle.client_key({"user": x_user})) for _ in range(2)]
    assert taken == [True, True]  # two messages of its pages' sockets
    assert call(x, f"/matches/{match.pk}/chat", {"text": "one"}).json() == {"ok": True}
    refused = call(x, f"/matches/{match.pk}/chat", {"text": "two"})
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert int(refused["Retry-After"]) >= 1
    assert list(ChatMessage.objects.filter(match=match).values_list("text", flat=True)) == ["one"]
    assert not async_to_sync(throttle.limits().take)(throttle.client_key({"user": x_user})), "nor a socket's"


def test_a_program_takes_the_third_seat_of_a_three_player_match_and_it_starts():
    from games.match.settings import MatchSettings
    from games.services import match_create, seat_join

    a, b, bot = make_accounts(3, "third")
    match = match_create(user=a, settings=MatchSettings("tictactoe-3player"), role="xplayer")
    seat_join(match_id=match.pk, user=b, role="oplayer")
    secret = token_for(bot)
    taken = call(secret, f"/matches/{match.pk}/join", {})
    match.refresh_from_db()
    assert taken.status_code == 200 and taken.json() == {"ok": True, "version": match.version}
    assert match.status == Match.Status.ACTIVE
    assert match.seats.get(role="zplayer").player == bot
    again = call(secret, f"/matches/{match.pk}/join", {"role": "zplayer"})
    assert again.status_code == 400 and again.json()["code"] == "match_started"


def test_joining_is_refused_with_the_pages_codes_and_a_private_match_stays_hidden():
    from games.match.settings import MatchSettings
    from games.services import match_create

    a, bot = make_accounts(2, "joinref")
    secret = token_for(bot)
    public = match_create(user=a, settings=MatchSettings("tictactoe-3player"), role="xplayer")
    taken = call(secret, f"/matches/{public.pk}/join", {"role": "xplayer"})
    assert taken.status_code == 400 and taken.json()["code"] == "seat_taken"
    odd = call(secret, f"/matches/{public.pk}/join", {"role": "xplayer", "seat": 2})
    assert odd.status_code == 400 and odd.json()["code"] == "malformed"
    private = match_create(user=a, settings=MatchSettings("tictactoe-3player"), role="xplayer", is_private=True)
    hidden = call(secret, f"/matches/{private.pk}/join", {})
    assert hidden.status_code == 404 and hidden.json()["code"] == "not_found"
    assert not Match.objects.get(pk=private.pk).seats.filter(player=bot).exists()


def test_a_program_creates_a_match_and_another_joins_it_through_the_api(settings):
    maker, joiner = make_accounts(2, "maker")
    made = call(token_for(maker), "/matches", {"game": "quarto-misere", "clock": "5+3", "role": "white"})
    assert made.status_code == 200 and made.json()["status"] == "waiting"
    match = Match.objects.get(pk=made.json()["id"])
    assert match.seats.get(role="white").player == maker and match.game == "quarto-misere"
    assert call(token_for(joiner), f"/matches/{match.pk}/join", {}).status_code == 200
    assert Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE
    unknown = call(token_for(maker), "/matches", {"game": "chess"})
    assert unknown.status_code == 400 and unknown.json()["code"] == "unknown_game"
    assert call(token_for(maker), "/matches", {"game": "quarto-misere", "clock": "forever"}).json()["code"] == \
        "unknown_clock"
    settings.CREATE_PER_MINUTE = 1
    third, = make_accounts(1, "toofast")
    secret = token_for(third)
    assert call(secret, "/matches", {"game": "tictactoe-x9"}).status_code == 200
    refused = call(secret, "/matches", {"game": "tictactoe-x9"})
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited" and refused["Retry-After"]
