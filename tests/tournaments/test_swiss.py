"""A Swiss through the real services: created and started, rounds paired one after another as
games end (the ENDED hand-off), the bye, late joining with a half-point bye, withdrawing, a
player who misses a round withdrawn, and the sweep."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as games
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.models import Match
from games.rules import get_game
from tests.support.players import make_accounts, play_first_moves
from tournaments import formats, services, swiss
from tournaments.models import Bye, Entry, Tournament, TournamentGame
from tournaments.swiss_selectors import swiss_page

pytestmark = pytest.mark.django_db(transaction=True)
GAME = "nine-board-tictactoe"
CORRESPONDENCE = TimeControl(days=1)


def create(user, **overrides):
    arguments = {"name": "Sunday Swiss", "game": GAME, "time_control": CORRESPONDENCE,
                 "starts_at": timezone.now() + timedelta(minutes=10), "min_players": 2, "max_players": 30,
                 "tournament_format": Tournament.Format.SWISS, "rounds": 3}
    return services.tournament_create(user=user, **{**arguments, **overrides})


def running(players, **overrides) -> Tournament:
    tournament = create(players[0], **overrides)
    for player in players[1:]:
        formats.tournament_join(tournament_id=tournament.pk, user=player)
    return formats.tournament_start(tournament_id=tournament.pk, user=players[0])


def round_games(tournament, number) -> list[TournamentGame]:
    return list(TournamentGame.objects.filter(tournament=tournament, round=number)
                .select_related("match", "first", "second").order_by("pk"))


def win_first(game: TournamentGame) -> None:
    match = play_first_moves(game.match, [game.first, game.second])
    games.match_resign(match_id=match.pk, user=game.second)


def refreshed(tournament) -> Tournament:
    return Tournament.objects.get(pk=tournament.pk)


def test_a_swiss_pairs_each_round_when_the_last_game_of_the_previous_one_ends():
    players = make_accounts(5)
    tournament = running(players)
    assert (tournament.status, tournament.current_round, tournament.rounds) == ("running", 1, 3)
    met, byes = Counter(), Counter()
    for number in (1, 2, 3):
        pairs = round_games(tournament, number)
        assert len(pairs) == 2 and all(g.match is not None for g in pairs)
        (bye,) = Bye.objects.filter(tournament=tournament, round=number)
        byes[bye.player_id] += 1
        met.update(frozenset((g.first_id, g.second_id)) for g in pairs)
        win_first(pairs[0])
        assert refreshed(tournament).current_round == number  # one game of the round still in play
        win_first(pairs[1])
    tournament = refreshed(tournament)
    assert tournament.status == "finished" and tournament.current_round == 3
    assert set(met.values()) == {1} and set(byes.values()) == {1}
    scores = dict(Entry.objects.filter(tournament=tournament).values_list("player_id", "score"))
    assert sum(scores.values()) == 3 * (2 + 1)  # two decided games and one bye a round


def test_a_player_who_does_not_move_loses_by_forfeit_and_is_withdrawn():
    players = make_accounts(4)
    tournament = running(players)
    late, on_time = round_games(tournament, 1)
    rules = get_game(GAME)
    state = rules.state_from_json(late.match.state)  # the first mover moves; the second never does
    games.move_submit(match_id=late.match_id, user=late.first, action=rules.legal_actions(state)[0],
                      version=late.match.version)
    games.match_abort(match_id=late.match_id, user=late.second)
    assert Match.objects.get(pk=late.match_id).status == "aborted"
    win_first(on_time)
    entries = {e.player_id: e for e in Entry.objects.filter(tournament=tournament)}
    assert entries[late.second_id].withdrawn and not entries[late.first_id].withdrawn
    assert (entries[late.first_id].score, entries[late.second_id].score) == (1.0, 0.0)
    seated = {p for g in round_games(tournament, 2) for p in (g.first_id, g.second_id)}
    byes = set(Bye.objects.filter(tournament=tournament, round=2).values_list("player_id", flat=True))
    assert late.second_id not in seated | byes and len(seated | byes) == 3


def test_a_late_joiner_gets_one_half_point_bye_until_half_the_rounds_have_begun():
    players = make_accounts(5)
    tournament = running(players[:4], rounds=4)
    formats.tournament_join(tournament_id=tournament.pk, user=players[4])
    entry = Entry.objects.get(tournament=tournament, player=players[4])
    assert (entry.score, entry.joined_round) == (0.5, 1)
    assert Bye.objects.get(tournament=tournament, player=players[4]).points == 0.5
    with pytest.raises(ServiceError) as refused:
        formats.tournament_join(tournament_id=tournament.pk, user=players[4])
    assert refused.value.code == "already_joined"
    for game in round_games(tournament, 1):
        win_first(game)
    seated = {p for g in round_games(tournament, 2) for p in (g.first_id, g.second_id)}
    assert players[4].pk in seated | set(Bye.objects.filter(tournament=tournament, round=2)
                                         .values_list("player_id", flat=True))
    for game in round_games(tournament, 2):
        win_first(game)
    assert refreshed(tournament).current_round == 3
    (newcomer,) = make_accounts(1, prefix="newcomer")
    with pytest.raises(ServiceError) as refused:
        formats.tournament_join(tournament_id=tournament.pk, user=newcomer)
    assert refused.value.code == "too_late"
    assert not Entry.objects.filter(tournament=tournament, player=newcomer).exists()


def test_a_player_who_withdraws_mid_way_is_not_paired_again_and_keeps_their_results():
    players = make_accounts(4)
    tournament = running(players)
    games_1 = round_games(tournament, 1)
    quitter = games_1[0].first
    formats.tournament_withdraw(tournament_id=tournament.pk, user=quitter)
    for game in games_1:
        win_first(game)
    seated = {p for g in round_games(tournament, 2) for p in (g.first_id, g.second_id)}
    assert quitter.pk not in seated
    assert Entry.objects.get(tournament=tournament, player=quitter).score == 1.0
    with pytest.raises(ServiceError) as refused:
        formats.tournament_withdraw(tournament_id=tournament.pk, user=quitter)
    assert refused.value.code == "not_joined"


def test_a_swiss_ends_early_when_no_round_can_be_paired():
    players = make_accounts(2)
    tournament = running(players, rounds=3)
    (game,) = round_games(tournament, 1)
    win_first(game)
    tournament = refreshed(tournament)
    assert tournament.status == "finished" and "Finished after round 1" in tournament.status_reason


@pytest.mark.parametrize("overrides, code", [
    ({"rounds": 1}, "bad_rounds"),
    ({"time_control": TimeControl()}, "swiss_untimed"),
    ({"rounds": 16}, "bad_rounds"),
    ({"max_players": 101}, "bad_player_counts"),
    ({"password": "secret"}, "bad_password"),
    ({"tournament_format": "arena-ish"}, "bad_format"),
])
def test_what_a_swiss_cannot_run_is_refused(overrides, code):
    (owner,) = make_accounts(1)
    with pytest.raises(ServiceError) as refused:
        create(owner, **overrides)
    assert refused.value.code == code
    assert not Tournament.objects.exists()


def test_a_private_tournament_with_a_password_lets_in_those_who_give_it():
    owner, friend, stranger = make_accounts(3)
    tournament = create(owner, is_private=True, password="open sesame")
    assert tournament.password != "open sesame"  # stored hashed
    for wrong in (None, "sesame"):
        with pytest.raises(ServiceError) as refused:
            formats.tournament_join(tournament_id=tournament.pk, user=stranger, password=wrong)
        assert refused.value.code == "wrong_password"
    formats.tournament_join(tournament_id=tournament.pk, user=friend, password="open sesame")
    formats.tournament_join(tournament_id=tournament.pk, user=stranger, invite=tournament.invite_secret)
    assert Entry.objects.filter(tournament=tournament).count() == 3


def test_the_sweep_starts_a_due_swiss_and_moves_it_on():
    players = make_accounts(3)
    tournament = create(players[0])
    for player in players[1:]:
        formats.tournament_join(tournament_id=tournament.pk, user=player)
    assert formats.tournaments_sweep(now=tournament.starts_at) == 1
    tournament = refreshed(tournament)
    assert tournament.status == "running" and len(round_games(tournament, 1)) == 1
    (game,) = round_games(tournament, 1)
    win_first(game)
    TournamentGame.objects.filter(tournament=tournament, round=2).delete()  # as if the hand-off were lost
    Bye.objects.filter(tournament=tournament, round=2).delete()
    Tournament.objects.filter(pk=tournament.pk).update(current_round=1)
    formats.tournaments_sweep(now=timezone.now())
    assert refreshed(tournament).current_round == 2 and round_games(tournament, 2)


def test_a_match_end_reaches_the_format_of_its_tournament():
    assert swiss.is_swiss(Tournament(format="swiss")) and not swiss.is_swiss(Tournament(format="round_robin"))


def test_a_swiss_page_hears_of_each_result_of_each_round_and_of_the_end():
    """Every change its page shows raises the version its socket is sent: a game's result, the
    next round, a withdrawal, a late join, the end."""
    from tournaments.state import tournament_state

    def version() -> int:
        return tournament_state(tournament_id=tournament.pk)["version"]

    players = make_accounts(6)
    tournament = running(players[:5], rounds=2)
    seen = [version()]
    first, second = round_games(tournament, 1)
    win_first(first)  # the round goes on: only a result changes
    seen.append(version())
    formats.tournament_join(tournament_id=tournament.pk, user=players[5])
    seen.append(version())
    formats.tournament_withdraw(tournament_id=tournament.pk, user=players[5])
    seen.append(version())
    win_first(second)  # the round's last result, and round 2 paired
    seen.append(version())
    for game in round_games(tournament, 2):
        win_first(game)
    assert refreshed(tournament).status == "finished"
    seen.append(version())
    assert seen == sorted(set(seen)), seen
    state = tournament_state(tournament_id=tournament.pk)
    page = {row.player.pk: row.score for row in swiss_page(refreshed(tournament))["standings"]}
    assert {row["id"]: row["score"] for row in state["standings"]} == page  # byes counted, as on the page
