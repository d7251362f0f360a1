"""Arenas through the real services: creating (and what is refused), joining, pausing and
withdrawing at any time, pairing waves on start, on join and on a game's end (never the last
opponent again), berserk, scores with fire from games finished through games.services, the end
of the time (no new games, those in play count) and the live version."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as games
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.models import Match
from games.rules import get_game
from tests.support.players import make_accounts, make_players, play_first_moves, play_out, start_match
from tournaments import arena, services
from tournaments.models import Entry, Tournament, TournamentGame
from tournaments.state import tournament_state, viewer_part

pytestmark = pytest.mark.django_db(transaction=True)
GAME = "nine-board-tictactoe"
BLITZ = TimeControl(base=180, increment=2)


def create(user, **overrides) -> Tournament:
    arguments = {"name": "Hourly arena", "game": GAME, "time_control": BLITZ, "minutes": 30,
                 "starts_at": timezone.now() + timedelta(minutes=10)}
    return arena.arena_create(user=user, **{**arguments, **overrides})


def running(players, **overrides) -> Tournament:
    tournament = create(players[0], **overrides)
    for player in players[1:]:
        arena.arena_join(tournament_id=tournament.pk, user=player)
    arena.arena_start(tournament_id=tournament.pk, user=players[0])
    tournament.refresh_from_db()
    return tournament


def games_of(tournament) -> list[TournamentGame]:
    return list(TournamentGame.objects.filter(tournament=tournament).select_related("match", "first", "second")
                .order_by("pk"))


def in_play(tournament) -> list[TournamentGame]:
    return [g for g in games_of(tournament) if g.match.status == Match.Status.ACTIVE]


def win(game: TournamentGame, winner, moves: int = 2) -> None:
    """``moves`` moves are played (at least both first moves), then the loser resigns."""
    match = play_out(game.match, [game.first, game.second], max_moves=moves)
    if match.status == Match.Status.ACTIVE:
        match = play_first_moves(match, [game.first, game.second])
    loser = game.second if winner == game.first else game.first
    games.match_resign(match_id=match.pk, user=loser)


def score(tournament, player) -> int:
    state = tournament_state(tournament_id=tournament.pk)
    return next(row["score"] for row in state["standings"] if row["id"] == player.pk)


def test_an_account_creates_an_arena_and_is_entered():
    (owner,) = make_accounts(1)
    tournament = create(owner)
    assert (tournament.format, tournament.minutes, tournament.status) == ("arena", 30, "upcoming")
    assert list(Entry.objects.filter(tournament=tournament).values_list("player", flat=True)) == [owner.pk]


@pytest.mark.parametrize(("overrides", "code"), [
    ({"game": "tictactoe-3player"}, "two_players_only"),
    ({"time_control": TimeControl(days=1)}, "arena_real_time"),
    ({"time_control": TimeControl()}, "arena_real_time"),
    ({"minutes": 2}, "bad_minutes"),
    ({"minutes": 600}, "bad_minutes"),
    ({"name": " "}, "bad_name"),
    ({"starts_at": timezone.now() - timedelta(minutes=1)}, "starts_in_past"),
])
def test_what_an_arena_cannot_be_is_refused_and_nothing_is_made(overrides, code):
    (owner,) = make_accounts(1)
    with pytest.raises(ServiceError) as refused:
        create(owner, **overrides)
    assert refused.value.code == code and refused.value.message
    assert not Tournament.objects.exists()


def test_guests_cannot_create_or_join():
    (owner,), (guest,) = make_accounts(1), make_players(1)
    with pytest.raises(ServiceError) as refused:
        create(guest)
    assert refused.value.code == "account_needed"
    tournament = create(owner)
    with pytest.raises(ServiceError):
        arena.arena_join(tournament_id=tournament.pk, user=guest)


def test_the_start_pairs_everyone_free_and_the_first_mover_is_seated_first():
    players = make_accounts(4)
    tournament = running(players)
    assert tournament.status == "running" and tournament.ends_at == tournament.started_at + timedelta(minutes=30)
    made = games_of(tournament)
    assert len(made) == 2 and {p for g in made for p in (g.first_id, g.second_id)} == {p.pk for p in players}
    first_role = get_game(GAME).roles[0]
    for game in made:
        assert game.match.status == Match.Status.ACTIVE and game.match.rated is False
        assert game.match.seats.get(role=first_role).player_id == game.first_id


def test_a_game_that_ends_frees_its_players_who_never_meet_the_same_opponent_at_once():
    ann, bob, cat = make_accounts(3)
    tournament = running([ann, bob, cat])
    (game,) = games_of(tournament)
    waiting = ({ann, bob, cat} - {game.first, game.second}).pop()
    win(game, game.first)
    (next_game,) = in_play(tournament)
    assert waiting.pk in (next_game.first_id, next_game.second_id)
    assert {next_game.first_id, next_game.second_id} != {game.first_id, game.second_id}


def test_two_players_who_just_met_wait_for_a_third():
    ann, bob = make_accounts(2)
    tournament = running([ann, bob])
    (game,) = games_of(tournament)
    win(game, ann)
    assert in_play(tournament) == []
    assert arena.arena_pair(tournament_id=tournament.pk) == 0
    (cat,) = make_accounts(1, prefix="late")
    arena.arena_join(tournament_id=tournament.pk, user=cat)  # joins while it runs: paired at once
    (next_game,) = in_play(tournament)
    assert cat.pk in (next_game.first_id, next_game.second_id)


def test_the_standings_are_ordered_by_score_and_each_score_is_its_marks():
    ann, bob, cat = make_accounts(3)
    tournament = running([ann, bob, cat])
    for _ in range(3):
        (game,) = in_play(tournament)
        win(game, game.second)
    rows = tournament_state(tournament_id=tournament.pk)["standings"]
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    assert all(r["score"] == sum(m["points"] for m in r["marks"]) for r in rows)
    assert sum(r["games"] for r in rows) == 6 and rows[0]["rank"] == 1


def test_a_player_on_fire_scores_four():
    ann, bob, cat = make_accounts(3)
    tournament = running([ann, bob, cat])
    wins = 0
    while wins < 3:
        (game,) = in_play(tournament)
        if ann.pk in (game.first_id, game.second_id):
            win(game, ann)
            wins += 1
        else:
            win(game, game.first)
    row = next(r for r in tournament_state(tournament_id=tournament.pk)["standings"] if r["id"] == ann.pk)
    assert [m["points"] for m in row["marks"]] == [2, 2, 4] and row["fire"] and row["marks"][2]["fire"]


def test_berserk_halves_the_clock_before_the_first_move_and_adds_one_to_a_long_enough_win():
    ann, bob = make_accounts(2)
    tournament = running([ann, bob])
    (game,) = games_of(tournament)
    role = game.match.seats.get(player=ann).role
    before = game.match.clock["remaining"][role]
    arena.arena_berserk(tournament_id=tournament.pk, match_id=game.match_id, user=ann)
    match = Match.objects.get(pk=game.match_id)
    assert match.clock["remaining"][role] == before // 2 and match.version == game.match.version + 1
    with pytest.raises(ServiceError) as refused:
        arena.arena_berserk(tournament_id=tournament.pk, match_id=game.match_id, user=ann)
    assert refused.value.code == "already_berserk"
    game.refresh_from_db()
    win(game, ann, moves=10)
    assert score(tournament, ann) == 3
    state = tournament_state(tournament_id=tournament.pk)
    assert next(r for r in state["standings"] if r["id"] == ann.pk)["berserks"] == 1


def test_berserk_after_ones_first_move_or_in_someone_elses_game_is_refused():
    ann, bob, cat = make_accounts(3)
    tournament = running([ann, bob, cat])
    (game,) = games_of(tournament)
    outsider = ({ann, bob, cat} - {game.first, game.second}).pop()
    with pytest.raises(ServiceError) as refused:
        arena.arena_berserk(tournament_id=tournament.pk, match_id=game.match_id, user=outsider)
    assert refused.value.code == "not_seated"
    play_first_moves(game.match, [game.first, game.second])
    with pytest.raises(ServiceError) as refused:
        arena.arena_berserk(tournament_id=tournament.pk, match_id=game.match_id, user=game.first)
    assert refused.value.code == "berserk_too_late"
    game.refresh_from_db()
    assert not game.berserk_first


def test_a_paused_player_is_not_paired_and_resumes_by_joining():
    ann, bob, cat = make_accounts(3)
    tournament = running([ann, bob, cat])
    (game,) = games_of(tournament)
    waiting = ({ann, bob, cat} - {game.first, game.second}).pop()
    arena.arena_pause(tournament_id=tournament.pk, user=waiting)
    win(game, game.first)
    assert in_play(tournament) == []  # the two who met may not meet again; the third rests
    state = tournament_state(tournament_id=tournament.pk)
    assert viewer_part(state, waiting.pk) == {"joined": True, "paused": True, "game": None}
    arena.arena_join(tournament_id=tournament.pk, user=waiting)
    (next_game,) = in_play(tournament)
    assert waiting.pk in (next_game.first_id, next_game.second_id)
    assert viewer_part(tournament_state(tournament_id=tournament.pk), waiting.pk)["game"] == (
        f"/matches/{next_game.match_id}/")


def test_a_withdrawn_player_keeps_their_score_and_is_not_paired():
    ann, bob, cat = make_accounts(3)
    tournament = running([ann, bob, cat])
    (game,) = games_of(tournament)
    win(game, game.first)
    arena.arena_withdraw(tournament_id=tournament.pk, user=game.first)
    arena.arena_pair(tournament_id=tournament.pk)
    assert all(game.first_id not in (g.first_id, g.second_id) for g in in_play(tournament))
    row = next(r for r in tournament_state(tournament_id=tournament.pk)["standings"] if r["id"] == game.first_id)
    assert row["withdrawn"] and row["score"] == 2


def test_a_player_busy_in_another_real_time_match_waits_for_the_next_wave():
    ann, bob, cat = make_accounts(3)
    elsewhere = start_match(GAME, [bob, cat], time_control=BLITZ)
    tournament = create(ann)
    arena.arena_join(tournament_id=tournament.pk, user=bob)
    arena.arena_start(tournament_id=tournament.pk, user=ann)
    assert games_of(tournament) == []
    games.match_abort(match_id=elsewhere.pk, user=bob)
    assert arena.arenas_sweep() == 1


def test_at_the_end_no_new_games_the_games_in_play_count_and_then_it_finishes():
    ann, bob, cat, dan = make_accounts(4)
    tournament = running([ann, bob, cat, dan])
    first, second = games_of(tournament)
    later = tournament.ends_at + timedelta(seconds=1)
    win(first, first.first)  # after the end: its players are not paired again
    assert arena.arena_pair(tournament_id=tournament.pk, now=later) == 0
    tournament.refresh_from_db()
    assert tournament.status == "running"
    Tournament.objects.filter(pk=tournament.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    win(second, second.second)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert len(games_of(tournament)) <= 3
    assert score(tournament, second.second) == 2
    with pytest.raises(ServiceError) as refused:
        arena.arena_join(tournament_id=tournament.pk, user=ann)
    assert refused.value.code == "arena_over"


def test_the_sweep_starts_a_due_arena_and_the_round_robin_sweep_leaves_it_alone():
    ann, bob = make_accounts(2)
    tournament = create(ann)
    arena.arena_join(tournament_id=tournament.pk, user=bob)
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    services.tournaments_sweep()
    tournament.refresh_from_db()
    assert tournament.status == "upcoming"
    arena.arenas_sweep()
    tournament.refresh_from_db()
    assert tournament.status == "running" and tournament.rounds == 0 and len(games_of(tournament)) == 1


def test_every_change_raises_the_version_its_page_is_sent():
    ann, bob = make_accounts(2)
    tournament = create(ann)
    versions = [tournament_state(tournament_id=tournament.pk)["version"]]
    arena.arena_join(tournament_id=tournament.pk, user=bob)
    versions.append(tournament_state(tournament_id=tournament.pk)["version"])
    arena.arena_start(tournament_id=tournament.pk, user=ann)
    versions.append(tournament_state(tournament_id=tournament.pk)["version"])
    win(games_of(tournament)[0], ann)  # the two may not meet again at once: no new game, yet the page changes
    versions.append(tournament_state(tournament_id=tournament.pk)["version"])
    assert versions == sorted(set(versions))
    with pytest.raises(ServiceError):
        arena.arena_join(tournament_id=tournament.pk, user=bob)
    assert tournament_state(tournament_id=tournament.pk)["version"] == versions[-1]


def test_a_private_arena_needs_its_invite():
    ann, bob = make_accounts(2)
    tournament = create(ann, is_private=True)
    with pytest.raises(ServiceError) as refused:
        arena.arena_join(tournament_id=tournament.pk, user=bob)
    assert refused.value.code == "not_found"
    arena.arena_join(tournament_id=tournament.pk, user=bob, invite=tournament.invite_secret)
