"""The bot API's read of a match's analysis: the same as the replay page's, refused in play."""

import pytest

from games import services
from games.computer import analysis_runs
from tests.botapi.support import call, token_for
from tests.support.analysis import blunder_line, play_line
from tests.support.players import make_accounts, make_players, play_first_moves, start_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def analysis_settings(settings):
    settings.ANALYSIS_WORKERS = "off"
    settings.ANALYSIS_ROUNDS = 100


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
