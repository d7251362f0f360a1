"""The bot API's analysis calls: the read, the same as the replay page's, and the request, through
the same service with the same refusals (in play, called off, the limits), both refused in play."""

import pytest

from games import services
from games.computer import analysis_runs
from games.models import Analysis, Match
from games.rules import get_game
from tests.botapi.support import call, token_for
from tests.support.analysis import blunder_line, live_and_its_uploaded_copy, move_on, play_line, store_analysis
from tests.support.players import make_accounts, make_players, play_first_moves, start_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def analysis_settings(settings):
    settings.ANALYSIS_WORKERS = "off"
    settings.ANALYSIS_ROUNDS = 100
    settings.ANALYSIS_QUEUE_MAX = 20
    return settings


def test_a_bot_reads_a_finished_matchs_analysis():
    players = make_players(2)
    moves, blunder = blunder_line()
    match = play_line(start_match("nine-board-tictactoe", players), players, moves)
    reader, = make_accounts(1, "reader")
    token = token_for(reader, scopes=("read",))
    assert call(token, f"/matches/{match.pk}/analysis", method="get").json() == {"status": "none"}
    services.analysis_request(match_id=match.pk, user=players[0])
    assert call(token, f"/matches/{match.pk}/analysis", method="get").json()["status"] == "queued"
    analysis_runs.run_here()
    answer = call(token, f"/matches/{match.pk}/analysis", method="get")
    assert answer.status_code == 200
    data = answer.json()
    assert data["status"] == "done" and len(data["positions"]) == len(moves) + 1
    assert data["moves"][blunder - 1]["mark"] == "blunder" and data["moves"][blunder - 1]["better"]
    # Each position's line, from its best move on (the blunder's better move won at once: the line ends there).
    assert all(p["line"][0] == p["best"] for p in data["positions"][:-1]) and data["positions"][-1]["line"] == []
    assert data["positions"][blunder - 1]["line"] == [data["moves"][blunder - 1]["better"]]
    assert [row["role"] for row in data["summary"]] == ["xPlayer", "oPlayer"]


def test_in_play_the_analysis_is_refused_and_a_private_or_missing_match_is_404():
    x, o = make_accounts(2, "duel")
    match = play_first_moves(start_match("nine-board-tictactoe", [x, o]), [x, o])
    refused = call(token_for(x), f"/matches/{match.pk}/analysis", method="get")
    assert refused.status_code == 409 and refused.json()["code"] == "analysis_in_play"
    assert "fair play" in refused.json()["message"]
    hidden = start_match("nine-board-tictactoe", make_players(2, "hidden"), is_private=True)
    assert call(token_for(x), f"/matches/{hidden.pk}/analysis", method="get").status_code == 404
    assert call(token_for(x), "/matches/999999/analysis", method="get").status_code == 404
    assert call(None, f"/matches/{match.pk}/analysis", method="get").status_code == 401


def test_an_imports_stored_analysis_is_refused_to_a_bot_while_a_live_match_stands_at_one_of_its_positions():
    players, live, copy = live_and_its_uploaded_copy()
    store_analysis(copy, {})  # done before the live match stood there
    token = token_for(make_accounts(1, "reader")[0], scopes=("read",))
    for method in ("get", "post"):  # the read, and the request that hands back the stored one
        refused = call(token, f"/matches/{copy.pk}/analysis", method=method)
        assert refused.status_code == 409 and refused.json()["code"] == "analysis_live_position"
        assert "fair play" in refused.json()["message"] and "positions" not in refused.json()
    move_on(live, players)
    answer = call(token, f"/matches/{copy.pk}/analysis", method="get")
    assert answer.status_code == 200 and answer.json()["status"] == "done"


def finished_rows(count: int) -> list[Match]:
    """Finished match rows with no moves: enough for the limits."""
    game = get_game("nine-board-tictactoe")
    return [Match.objects.create(game=game.slug, status=Match.Status.FINISHED,
                                 state=game.state_to_json(game.initial_state())) for _ in range(count)]


def test_a_read_token_asks_for_an_analysis_and_a_second_ask_reuses_it():
    players = make_players(2)
    moves, _ = blunder_line()
    match = play_line(start_match("nine-board-tictactoe", players), players, moves)
    asker, other = make_accounts(2, "asker")
    answer = call(token_for(asker, scopes=("read",)), f"/matches/{match.pk}/analysis")
    assert answer.status_code == 202
    assert answer.json()["status"] == "queued" and answer.json()["total"] == len(moves) + 1
    stored = Analysis.objects.get(match=match)
    assert stored.requested_by == asker and stored.rounds == 100
    again = call(token_for(other, scopes=("read",)), f"/matches/{match.pk}/analysis")
    assert again.status_code == 202 and Analysis.objects.get().pk == stored.pk  # anyone's request is reused
    analysis_runs.run_here()
    done = call(token_for(other, scopes=("read",)), f"/matches/{match.pk}/analysis")
    assert done.status_code == 200 and done.json()["status"] == "done"
    assert done.json() == call(token_for(other), f"/matches/{match.pk}/analysis", method="get").json()
    assert Analysis.objects.count() == 1


def test_asking_is_refused_in_play_for_a_called_off_match_and_where_the_match_cannot_be_seen():
    x, o = make_accounts(2, "duel")
    match = play_first_moves(start_match("nine-board-tictactoe", [x, o]), [x, o])
    refused = call(token_for(x), f"/matches/{match.pk}/analysis")
    assert refused.status_code == 409 and refused.json()["code"] == "analysis_in_play"
    assert "fair play" in refused.json()["message"]
    called_off = start_match("nine-board-tictactoe", [x, o])
    services.match_abort(match_id=called_off.pk, user=x)
    refused = call(token_for(x), f"/matches/{called_off.pk}/analysis")
    assert refused.status_code == 409 and refused.json()["code"] == "analysis_not_finished"
    players = make_players(2, "hidden")
    hidden = play_line(start_match("nine-board-tictactoe", players, is_private=True), players, blunder_line()[0])
    assert call(token_for(x), f"/matches/{hidden.pk}/analysis").status_code == 404
    assert call(token_for(x), "/matches/999999/analysis").status_code == 404
    assert call(None, f"/matches/{hidden.pk}/analysis").status_code == 401
    assert Analysis.objects.count() == 0


def test_the_limits_refuse_with_their_codes_and_messages(analysis_settings):
    alice, bob, carol = make_accounts(3, "limit")
    first, second, third = finished_rows(3)
    assert call(token_for(alice), f"/matches/{first.pk}/analysis").status_code == 202
    busy = call(token_for(alice), f"/matches/{second.pk}/analysis")
    assert busy.status_code == 429 and busy.json()["code"] == "analysis_busy"
    assert busy.json()["match_id"] == first.pk and f"#{first.pk}" in busy.json()["message"]
    analysis_settings.ANALYSIS_QUEUE_MAX = 2
    assert call(token_for(bob), f"/matches/{second.pk}/analysis").status_code == 202
    full = call(token_for(carol), f"/matches/{third.pk}/analysis")
    assert full.status_code == 429 and full.json()["code"] == "analysis_queue_full"
    assert "(0 running, 2 waiting; 2 at most)" in full.json()["message"]
    assert Analysis.objects.count() == 2


def test_the_description_has_both_analysis_calls():
    from django.test import Client

    calls = Client().get("/api/openapi.json").json()["paths"]["/api/matches/{match_id}/analysis"]
    assert set(calls) == {"get", "post"}
    assert "the line the search expects" in calls["get"]["description"]
    assert {"200", "202", "409", "429"} <= set(calls["post"]["responses"])
    assert "analysis_busy" in calls["post"]["description"]
