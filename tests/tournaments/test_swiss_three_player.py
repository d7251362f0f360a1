"""A Swiss of the three-player game through the real services: tables of three seated in the
table's order, points by place, the bye worth a table's average, no trio twice, a player who
lets a game be aborted before their first turn forfeiting it, late joining, the creation rules
and the page."""

from __future__ import annotations

from collections import Counter

import pytest

from games import services as games
from games.match.errors import ServiceError
from games.models import Match, Seat
from games.rules import get_game
from tests.support.players import make_accounts, play_out
from tests.tournaments import test_swiss as swiss_tests
from tests.tournaments.test_swiss import refreshed, round_games
from tournaments import formats, state
from tournaments.forms import SWISS, TournamentCreateForm
from tournaments.models import Bye, Entry, Tournament, TournamentGame
from tournaments.trios import place_points

pytestmark = pytest.mark.django_db(transaction=True)
GAME = "tictactoe-3player"


def create(user, **overrides):
    return swiss_tests.create(user, **{"game": GAME, "min_players": 3, **overrides})


def running(players, **overrides) -> Tournament:
    return swiss_tests.running(players, **{"game": GAME, "min_players": 3, **overrides})


def seated(game: TournamentGame) -> list:
    return [game.first, game.second, game.third]


def test_rounds_of_tables_of_three_score_by_place_with_a_bye_worth_a_tables_average():
    players = make_accounts(7)
    tournament = running(players)
    met, byes, expected = Counter(), Counter(), Counter()
    for number in (1, 2, 3):
        tables = round_games(tournament, number)
        assert len(tables) == 2
        (bye,) = Bye.objects.filter(tournament=tournament, round=number)
        assert bye.points == 0.5
        byes[bye.player_id] += 1
        expected[bye.player_id] += 0.5
        for game in tables:
            roles = get_game(GAME).roles
            seats = dict(Seat.objects.filter(match=game.match).values_list("role", "player_id"))
            assert [seats[r] for r in roles] == [game.first_id, game.second_id, game.third_id]
            met[frozenset(seats.values())] += 1
            play_out(game.match, seated(game), seed=number)
            goals = dict(Seat.objects.filter(match=game.match).values_list("player_id", "score"))
            for player, points in place_points(goals).items():
                expected[player] += points
        assert refreshed(tournament).current_round == min(number + 1, 3)
    assert refreshed(tournament).status == "finished"
    assert set(met.values()) == {1} and set(byes.values()) == {1}
    scores = dict(Entry.objects.filter(tournament=tournament).values_list("player_id", "score"))
    assert scores == pytest.approx(dict(expected))
    assert sum(scores.values()) == pytest.approx(3 * (2 * 1.5 + 0.5))


def test_seats_rotate_over_the_rounds():
    players = make_accounts(3)
    tournament = running(players, rounds=3)
    seats = {p.pk: Counter() for p in players}
    for number in (1, 2, 3):
        (game,) = round_games(tournament, number)
        for seat, player in enumerate(seated(game)):
            seats[player.pk][seat] += 1
        play_out(game.match, seated(game), seed=number)
    assert all(counts == Counter({0: 1, 1: 1, 2: 1}) for counts in seats.values())
    tournament = refreshed(tournament)  # three players: no other grouping, so the one trio meets again
    assert (tournament.status, tournament.current_round, tournament.status_reason) == ("finished", 3, "")


def test_a_player_who_never_takes_their_first_turn_forfeits_and_the_others_score_the_bye():
    players = make_accounts(6)
    tournament = running(players, rounds=2)
    late, on_time = round_games(tournament, 1)
    rules = get_game(GAME)
    state = rules.state_from_json(late.match.state)  # the first seat moves; the second never does
    games.move_submit(match_id=late.match_id, user=late.first, action=rules.legal_actions(state)[0],
                      version=late.match.version)
    games.match_abort(match_id=late.match_id, user=late.second)
    assert Match.objects.get(pk=late.match_id).status == "aborted"
    play_out(on_time.match, seated(on_time))
    entries = {e.player_id: e for e in Entry.objects.filter(tournament=tournament)}
    assert entries[late.second_id].withdrawn and entries[late.second_id].score == 0.0
    assert (entries[late.first_id].score, entries[late.third_id].score) == (0.5, 0.5)
    assert not entries[late.first_id].withdrawn and not entries[late.third_id].withdrawn
    paired = {p.pk for g in round_games(tournament, 2) for p in seated(g)}
    sitting_out = set(Bye.objects.filter(tournament=tournament, round=2).values_list("player_id", flat=True))
    assert late.second_id not in paired | sitting_out and len(paired) == 3 and len(sitting_out) == 2


def test_a_late_joiner_gets_half_a_point_and_is_seated_next_round():
    players = make_accounts(4)
    tournament = running(players[:3], rounds=2)
    formats.tournament_join(tournament_id=tournament.pk, user=players[3])
    assert Entry.objects.get(tournament=tournament, player=players[3]).score == 0.5
    (game,) = round_games(tournament, 1)
    play_out(game.match, seated(game))
    paired = {p.pk for g in round_games(tournament, 2) for p in seated(g)}
    (bye,) = Bye.objects.filter(tournament=tournament, round=2)
    assert players[3].pk in paired and bye.player_id != players[3].pk  # the late joiner has had a bye


@pytest.mark.parametrize("overrides, code", [
    ({"tournament_format": Tournament.Format.ROUND_ROBIN}, "two_players_only"),
    ({"min_players": 2}, "bad_player_counts"),
])
def test_what_a_three_player_tournament_cannot_run_is_refused(overrides, code):
    (owner,) = make_accounts(1)
    with pytest.raises(ServiceError) as refused:
        create(owner, **overrides)
    assert refused.value.code == code
    assert not Tournament.objects.exists()


def test_the_form_offers_the_three_player_game():
    form = TournamentCreateForm(data={"name": "Trios", "game": GAME, "cycles": SWISS, "rounds": 4, "clock": "d1",
                                      "starts_in": 10, "min_players": 3, "max_players": 9})
    assert form.is_valid(), form.errors
    assert form.service_arguments()["game"] == GAME


def test_the_page_shows_the_third_seat_and_quarter_points(client):
    players = make_accounts(3)
    tournament = running(players, rounds=2)
    (game,) = round_games(tournament, 1)
    play_out(game.match, seated(game))
    page = client.get(f"/tournaments/{tournament.pk}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Moves third" in text and game.third.display_name in text
    assert " · " in text  # the finished table's points in seat order
    download = client.get(f"/tournaments/{tournament.pk}/download.json").json()
    assert all(g["third"] for g in download["games"])


def test_the_live_state_counts_the_third_seat_as_playing():
    players = make_accounts(3)
    tournament = running(players)
    (game,) = round_games(tournament, 1)
    live = state.tournament_state(tournament_id=tournament.pk)
    (playing,) = live["playing"]
    assert playing["third"]["id"] == game.third_id
    assert state.viewer_part(live, game.third_id)["game"] == playing["match"]
    assert all(row["playing"] for row in live["standings"])
