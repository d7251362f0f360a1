"""The analysis on the replay page, its JSON, through the test client; the graph's drawing data (pure)."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from games.computer import analysis_runs
from games.history.charts import GRAPH_AXIS, GRAPH_HEIGHT, GRAPH_PAD, evaluation_chart
from games.match.labels import label_beside_role, role_label
from games.models import Analysis, Match
from games.rules import get_game
from games.services import ServiceError, analysis_request
from tests.botapi.support import call, token_for
from tests.support.analysis import (
    another_move,
    blunder_line,
    live_and_its_uploaded_copy,
    move_on,
    play_line,
    store_analysis,
)
from tests.support.players import make_accounts, make_players, play_first_moves, play_out, start_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def analysis_settings(settings):
    settings.ANALYSIS_WORKERS = "off"
    settings.ANALYSIS_ROUNDS = 100


def client_for(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def blunder_match():
    players = make_players(2)
    moves, blunder = blunder_line()
    return play_line(start_match("nine-board-tictactoe", players), players, moves), players, blunder


def test_the_replay_offers_the_analysis_and_shows_its_thresholds():
    match, _, _ = blunder_match()
    page = client_for().get(reverse("history:replay", args=[match.pk])).content.decode()
    assert 'data-testid="analysis-ask"' in page and "analysis-graph" not in page
    assert "inaccuracy from 10, mistake from 20, blunder from 30 points" in page


def test_a_visitor_without_a_name_is_told_to_choose_one_and_nothing_is_queued():
    match, _, _ = blunder_match()
    page = client_for().post(reverse("history:analysis", args=[match.pk]), follow=True).content.decode()
    assert "Choose a name" in page and Analysis.objects.count() == 0


def test_asked_then_progress_then_graph_marks_and_summary():
    match, (alice, bob), blunder = blunder_match()
    client = client_for(bob)
    response = client.post(reverse("history:analysis", args=[match.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("history:replay", args=[match.pk])
    page = client.get(response["Location"]).content.decode()
    assert 'id="analysis-progress"' in page and f"0 of {match.plies + 1}" in page
    progress = client.get(reverse("history:analysis_json", args=[match.pk])).json()
    assert progress["status"] == "queued" and progress["done"] == 0 and progress["total"] == match.plies + 1

    analysis_runs.run_here()
    data = client.get(reverse("history:analysis_json", args=[match.pk])).json()
    assert data["status"] == "done" and len(data["positions"]) == match.plies + 1
    assert data["moves"][blunder - 1]["mark"] == "blunder"
    page = client_for().get(reverse("history:replay", args=[match.pk])).content.decode()
    assert 'data-testid="analysis-graph"' in page and "analysis-ask" not in page
    assert len(re.findall(r"<polyline class=\"analysis-graph__line", page)) == 2
    assert re.search(r"<title>Move 1 \(X x [A-C][1-3] [a-c][1-3]\): X \d+, O \d+</title>", page)
    assert re.findall(r'class="analysis-graph__label" x="20" y="[\d.]+">(\d+)</text>', page) == ["100", "50", "0"]
    assert f'data-testid="mark-{blunder}">blunder<' in page
    blunderer = data["moves"][blunder - 1]["role"]
    summary = re.search(rf'data-testid="blunders-{blunderer}">(\d+)<', page)
    assert summary and int(summary[1]) >= 1
    # The board after the better move travels with the page's data, for the note under the board.
    replay_data = client_for().get(reverse("history:replay", args=[match.pk])).context["replay_data"]
    marked = replay_data["analysis"]["moves"][blunder - 1]
    assert marked["better"] and marked["better_view"]["ply"] == blunder
    # So does the line the search expected from there: the better move won at once, so it ends there.
    assert data["positions"][blunder - 1]["line"] == [marked["better"]]
    assert marked["better_line"] == [{"ply": blunder, "role_label": data["moves"][blunder - 1]["role_label"],
                                      "label": label_beside_role(marked["role"], marked["better_label"])}]
    assert all(p["line"][0] == p["best"] for p in data["positions"][:-1]) and data["positions"][-1]["line"] == []


def test_one_at_a_time_the_refusal_links_to_the_analysis_under_way():
    first, players, _ = blunder_match()
    second = play_out(start_match("nine-board-tictactoe", players), players, seed=1)
    client = client_for(players[0])
    client.post(reverse("history:analysis", args=[first.pk]))
    page = client.post(reverse("history:analysis", args=[second.pk]), follow=True).content.decode()
    replay = reverse("history:replay", args=[first.pk])
    assert f'Your analysis of match #{first.pk} is still under way' in page
    assert f'(one at a time per player). <a href="{replay}">See it</a></li>' in page


def test_the_three_player_game_has_a_line_per_seat():
    players = make_players(3)
    match = play_out(start_match("tictactoe-3player", players), players, seed=3)
    client_for(players[2]).post(reverse("history:analysis", args=[match.pk]))
    analysis_runs.run_here()
    page = client_for().get(reverse("history:replay", args=[match.pk])).content.decode()
    assert len(re.findall(r"<polyline class=\"analysis-graph__line", page)) == 3
    assert page.count("<tr data-role=") == 3
    # The legend's keys are read apart ("X, O, Z"), not as one word.
    separator = '<span class="visually-hidden">, </span>'
    assert re.search(rf">X</span>{separator}<span [^>]*>O</span>{separator}<span [^>]*>Z</span>\n", page)


def test_the_line_from_a_better_move_names_each_mover_in_turn_for_three_seats():
    players = make_players(3)
    match = play_out(start_match("tictactoe-3player", players), players, seed=3)
    moves = list(match.moves.values_list("role", "action"))
    game = get_game(match.game)
    state = game.replay([action for _, action in moves[:3]])
    line = []
    for _ in range(4):  # four moves from the position before move 4: x, o, z, x
        action = next(a for a in game.legal_actions(state) if not game.is_terminal(game.play(state, game.to_move(state), a)))
        line.append(action)
        state = game.play(state, game.to_move(state), action)
    store_analysis(match, {4: line})
    data = client_for().get(reverse("history:replay", args=[match.pk])).context["replay_data"]["analysis"]
    marked = data["moves"][3]
    assert marked["mark"] == "blunder" and marked["role"] == moves[3][0] and marked["better"] == line[0]
    assert marked["better_line"] == [{"ply": 4 + n, "role_label": label, "label": game.action_label(action)}
                                     for n, (label, action) in enumerate(zip(["X", "O", "Z", "X"], line))]
    page = client_for().get(reverse("history:replay", args=[match.pk])).content.decode()
    # The marked-move controls offer each seat by its label and name, and anyone.
    select = re.search(r'<select id="analysis-jump-who"[^>]*>(.*?)</select>', page, re.S)[1]
    options = re.findall(r'<option value="(\w*)">([^<]+)</option>', select)
    assert options == [("", "every player")] + [(s.role, f"{role_label(s.role)} {s.player}") for s in
                                                match.seats.order_by("order")]
    export = client_for().get(reverse("history:export", args=[match.pk])).json()["analysis"]
    assert export["bestLines"][3] == line and export["bestLines"][-1] == []


def test_an_analysis_stored_before_lines_shows_no_line():
    match, _, blunder = blunder_match()
    better = another_move(match, blunder)
    store_analysis(match, {blunder: [better]}, lines=False)
    data = client_for().get(reverse("history:analysis_json", args=[match.pk])).json()
    assert all(p["line"] is None for p in data["positions"]) and data["moves"][blunder - 1]["mark"] == "blunder"
    marked = client_for().get(reverse("history:replay", args=[match.pk])).context["replay_data"]["analysis"]["moves"]
    assert marked[blunder - 1]["better"] == better and marked[blunder - 1]["better_line"] == []
    export = client_for().get(reverse("history:export", args=[match.pk])).json()["analysis"]
    assert "bestLines" not in export  # rather than nulls, which a GGP spectator server refuses


def test_a_stored_line_ends_at_a_move_the_rules_refuse_there():
    match, _, blunder = blunder_match()
    better = another_move(match, blunder)
    store_analysis(match, {blunder: [better, better]})  # the same cell twice
    marked = client_for().get(reverse("history:replay", args=[match.pk])).context["replay_data"]["analysis"]["moves"]
    assert [m["label"] for m in marked[blunder - 1]["better_line"]] == [
        label_beside_role(marked[blunder - 1]["role"], get_game(match.game).action_label(better))]


def test_the_in_play_refusal_is_one_the_same_words_on_every_page_and_call():
    """The replay's note, the page's JSON, the button and the bot API's read and request say the
    service's refusal, word for word: before, it was written three times, in two wordings."""
    x, o = make_accounts(2, "inplay")
    match = play_first_moves(start_match("nine-board-tictactoe", [x, o]), [x, o])
    with pytest.raises(ServiceError) as asked:
        analysis_request(match_id=match.pk, user=x)
    said = {"code": asked.value.code, "message": asked.value.message}
    assert said["code"] == "analysis_in_play"
    client, secret = client_for(x), token_for(x)
    assert client.get(reverse("history:analysis_json", args=[match.pk])).json() == said
    assert call(secret, f"/matches/{match.pk}/analysis", method="get").json() == said
    assert call(secret, f"/matches/{match.pk}/analysis").json() == said
    escaped = escape(said["message"])
    assert escaped in client.get(reverse("history:replay", args=[match.pk])).content.decode()
    assert escaped in client.post(reverse("history:analysis", args=[match.pk]), follow=True).content.decode()


def test_during_play_the_page_and_the_json_show_nothing_of_an_analysis():
    players = make_players(2)
    match = play_first_moves(start_match("nine-board-tictactoe", players), players)
    Analysis.objects.create(match=match, rounds=10, positions=match.plies + 1, status=Analysis.Status.DONE,
                            evaluations=[{"scores": {"xPlayer": 0.5, "oPlayer": 0.5}, "best": None}] * (match.plies + 1))
    for user in (players[0], None):
        client = client_for(user)
        page = client.get(reverse("history:replay", args=[match.pk])).content.decode()
        assert 'data-testid="analysis-closed"' in page and "analysis-graph" not in page and "analysis-ask" not in page
        refused = client.get(reverse("history:analysis_json", args=[match.pk]))
        assert refused.status_code == 409 and refused.json()["code"] == "analysis_in_play"
        assert "fair play" in refused.json()["message"]
    page = client_for(players[0]).post(reverse("history:analysis", args=[match.pk]), follow=True).content.decode()
    assert "still being played" in page
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE


def test_an_imports_stored_analysis_is_withheld_on_the_page_the_json_and_the_export_while_a_live_match_stands_there():
    players, live, copy = live_and_its_uploaded_copy()
    store_analysis(copy, {})  # done before the live match stood there
    export = reverse("history:export", args=[copy.pk])
    for user in (players[0], None):
        client = client_for(user)
        response = client.get(reverse("history:replay", args=[copy.pk]))
        page = response.content.decode()
        assert response.status_code == 200 and 'data-testid="analysis-withheld"' in page
        assert "being played now" in page and "analysis-graph" not in page and "analysis-ask" not in page
        withheld = response.context["replay_data"]["analysis"]
        assert withheld["status"] == "withheld" and withheld["moves"] == withheld["positions"] == []
        refused = client.get(reverse("history:analysis_json", args=[copy.pk]))
        assert refused.status_code == 409 and refused.json()["code"] == "analysis_live_position"
        assert "fair play" in refused.json()["message"] and "positions" not in refused.json()
        data = client.get(export).json()
        assert "analysis" not in data and len(data["moves"]) == copy.plies  # the moves are the file's own
    move_on(live, players)
    assert client_for().get(reverse("history:analysis_json", args=[copy.pk])).json()["status"] == "done"
    assert 'data-testid="analysis-graph"' in client_for().get(reverse("history:replay", args=[copy.pk])).content.decode()
    assert "analysis" in client_for().get(export).json()


def test_a_private_matchs_analysis_is_hidden_from_others():
    players = make_players(2)
    match = play_out(start_match("nine-board-tictactoe", players, is_private=True), players, seed=1)
    outsider, = make_players(1, prefix="outsider")
    assert client_for(outsider).get(reverse("history:analysis_json", args=[match.pk])).status_code == 404
    assert client_for(outsider).post(reverse("history:analysis", args=[match.pk])).status_code == 404
    assert client_for(players[0]).get(reverse("history:analysis_json", args=[match.pk])).json() == {"status": "none"}


def graph_data():
    positions = [{"ply": 0, "scores": {"xPlayer": 0.5, "oPlayer": 0.5}}, {"ply": 1, "scores": {"xPlayer": 1.0, "oPlayer": 0.0}},
                 {"ply": 2, "scores": {"xPlayer": 0.0, "oPlayer": 1.0}}]
    moves = [{"ply": 1, "role": "xPlayer", "role_label": "X", "label": "a1", "mark": "blunder"},
             {"ply": 2, "role": "oPlayer", "role_label": "O", "label": "b3", "mark": None}]
    return evaluation_chart(["xPlayer", "oPlayer"], positions, moves)


def test_the_graph_puts_each_roles_score_on_its_line_and_the_marks_on_the_movers():
    chart = graph_data()
    top, bottom, middle = GRAPH_PAD, GRAPH_HEIGHT - GRAPH_PAD, GRAPH_HEIGHT / 2
    left, right = GRAPH_AXIS + GRAPH_PAD, chart["width"] - GRAPH_PAD
    xs = [left, (left + right) / 2, right]
    assert chart["lines"][0]["points"] == f"{xs[0]:.1f},{middle:.1f} {xs[1]:.1f},{top:.1f} {xs[2]:.1f},{bottom:.1f}"
    assert chart["lines"][1]["points"].split()[1] == f"{xs[1]:.1f},{bottom:.1f}"
    assert chart["dots"] == [{"ply": 1, "mark": "blunder", "x": xs[1], "y": top}]
    assert [c["ply"] for c in chart["columns"]] == [0, 1, 2]


def test_the_graph_has_its_y_axis_and_each_positions_scores_on_hover():
    chart = graph_data()
    assert chart["ticks"] == [{"label": 100, "y": GRAPH_PAD}, {"label": 50, "y": GRAPH_HEIGHT / 2},
                              {"label": 0, "y": GRAPH_HEIGHT - GRAPH_PAD}]
    assert [c["title"] for c in chart["columns"]] == ["Start: X 50, O 50", "Move 1 (X a1): X 100, O 0",
                                                      "Move 2 (O b3): X 0, O 100"]
    assert all(c["x"] >= chart["axis"] for c in chart["columns"])  # the labels' margin is not clickable


def test_the_export_carries_the_analysis_once_done_and_the_import_ignores_it():
    match, (alice, _), blunder = blunder_match()
    export = reverse("history:export", args=[match.pk])
    assert "analysis" not in client_for().get(export).json()
    client_for(alice).post(reverse("history:analysis", args=[match.pk]))
    assert "analysis" not in client_for().get(export).json()  # queued: nothing yet
    analysis_runs.run_here()
    data = client_for().get(export).json()
    extra = data["analysis"]
    assert extra["rounds"] == 100 and extra["thresholds"] == {"inaccuracy": 10, "mistake": 20, "blunder": 30}
    assert len(extra["stateScores"]) == len(data["states"]) and len(extra["bestMoves"]) == len(data["states"])
    assert len(extra["moveMarks"]) == len(data["moves"]) == len(extra["moveLosses"])
    assert extra["moveMarks"][blunder - 1] == "blunder" and extra["moveLosses"][blunder - 1] >= 30
    winner = data["goalValues"].index(100)
    assert extra["stateScores"][-1][winner] == 100 and extra["bestMoves"][-1] == ""
    from games.history.ggp import ggp_load

    record, _ = ggp_load(data=data)
    assert record.steps == tuple((m.role, m.action) for m in match.moves.all())


@pytest.mark.parametrize("match_id", ["0", "999999", "99999999999999999999"])
def test_a_missing_or_impossible_match_is_404_on_both_addresses(match_id):
    guest, = make_players(1)
    client = client_for(guest)
    assert client.get(f"/matches/{match_id}/analysis.json").status_code == 404
    assert client.post(f"/matches/{match_id}/analysis/").status_code == 404
    assert client.get(f"/matches/{match_id}/analysis/").status_code == 405
    assert Analysis.objects.count() == 0


def test_head_is_answered_as_get_on_the_analysis_json():
    """HEAD (link checkers, monitors, curl -I) gets GET's status and headers with no body, as on
    every other page of the site; require_GET answered it 405 "Allow: GET"."""
    match, _, _ = blunder_match()
    players = make_players(2, "watched")
    in_play = play_first_moves(start_match("nine-board-tictactoe", players), players)
    client = client_for()
    for url, status in [(reverse("history:analysis_json", args=[match.pk]), 200),
                        (reverse("history:analysis_json", args=[in_play.pk]), 409),
                        (reverse("history:analysis_json", args=[999999]), 404)]:
        got, head = client.get(url), client.head(url)
        assert (got.status_code, head.status_code) == (status, status), url
        assert head["Content-Type"] == got["Content-Type"] and head.content == b""
    assert client.post(reverse("history:analysis_json", args=[match.pk])).status_code == 405
