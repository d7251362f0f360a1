"""The per-move time control (the GGP way: a start clock, then a play clock for every move):
the codes, the clock's arithmetic, and a turn that runs out in a match (a random legal move,
recorded and marked, and the match goes on)."""

from datetime import datetime, timedelta
from datetime import timezone as tz

import pytest
from django.utils import timezone

from games import selectors, services
from games.match import clocks
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import GGPProgress, Match, Move, ReplacedMove
from games.rules import get_game
from tests.support.players import make_accounts, make_players, start_match

PER_MOVE = TimeControl(start=30, play=10)


def test_the_code_round_trips_and_is_offered():
    assert PER_MOVE.kind == "per_move" and PER_MOVE.timed
    assert TimeControl.parse(PER_MOVE.code) == PER_MOVE == TimeControl.parse("m30/10")
    assert PER_MOVE.description == "Per move: 30 s to start, 10 s a move"
    assert "m30/10" in dict(clocks.choices())
    for bad in ["m30/1", "m30/601", "m9999/10", "m/10", "m30-10"]:
        with pytest.raises(ValueError):
            TimeControl.parse(bad)


def test_the_first_turn_has_the_start_clock_too_and_every_turn_the_play_clock():
    at = datetime(2026, 1, 1, tzinfo=tz.utc)
    clock, deadline = clocks.start(PER_MOVE, ["x", "o"], "x", at, first_move_ms=20_000)
    assert clock["remaining"] == {"x": 40_000, "o": 10_000} and (deadline - at).total_seconds() == 40
    later = datetime(2026, 1, 1, 0, 0, 35, tzinfo=tz.utc)
    clock, deadline = clocks.advance(PER_MOVE, clock, after="o", at=later)
    assert clock["remaining"]["o"] == 10_000 and (deadline - later).total_seconds() == 10
    clock, deadline = clocks.advance(PER_MOVE, clock, after="x", at=later)
    assert clock["remaining"]["x"] == 10_000, "each turn has the play clock, whatever was left before"


@pytest.mark.django_db
def test_a_turn_that_runs_out_is_played_at_random_and_marked(fake_time):
    x, o = make_players(2)
    match = start_match("tictactoe-3player", [x, o, *make_players(1, "third")], time_control=PER_MOVE)
    assert match.deadline is not None
    fake_time.advance(41)
    services.clock_flag(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.plies == 1
    [replaced] = ReplacedMove.objects.filter(match=match)
    move = Move.objects.get(match=match, ply=1)
    assert (replaced.ply, replaced.role, replaced.reason) == (1, "xplayer", "late") and move.role == "xplayer"
    game = get_game(match.game)
    assert game.to_move(game.state_from_json(match.state)) == "oplayer"
    assert (match.deadline - fake_time.now).total_seconds() == 10
    # the next mover is on time: nothing is replaced before its deadline
    fake_time.advance(9)
    services.clock_flag(match_id=match.pk)
    assert Match.objects.get(pk=match.pk).plies == 1
    snapshot = selectors.match_snapshot(match=Match.objects.get(pk=match.pk))
    assert snapshot["clock"]["kind"] == "per_move" and snapshot["clock"]["play"] == 10
    assert snapshot["moves"][0]["replaced"] == "too late"


def with_a_ggp_player_and_no_manager(monkeypatch, settings, *, ggp_role: str):
    """A person's tictactoe-x9 match against a GGP player in ``ggp_role``, with no manager at
    work (no task runs); the grace is 1 s."""
    from games.ggp import offpath

    monkeypatch.setattr(offpath, "run", lambda name, *args: None)
    settings.GGP_GRACE_SECONDS = 1.0
    [person] = make_accounts(1)
    registered = services.ggp_player_register(owner=person, name="Gone", url="http://localhost:9147/")
    person_role = next(role for role in get_game("tictactoe-x9").roles if role != ggp_role)
    match = services.match_create(user=person, settings=MatchSettings("tictactoe-x9", time_control=PER_MOVE),
                                  role=person_role, ggp_players={ggp_role: registered.pk})
    return match, person


@pytest.mark.django_db(transaction=True)
def test_a_ggp_seats_turn_is_flagged_only_after_the_managers_grace(fake_time, monkeypatch, settings):
    """With no manager at work (the process that called the player went away), the flag plays
    the GGP seat's turn at random once the play clock and twice the grace have passed, as an
    answer the server lost: the player is not to blame (``games.match.absence``)."""
    match, _ = with_a_ggp_player_and_no_manager(monkeypatch, settings, ggp_role="xplayer")
    fake_time.advance(PER_MOVE.start + PER_MOVE.play + 1)
    services.clock_flag(match_id=match.pk)
    assert Match.objects.get(pk=match.pk).plies == 0
    fake_time.advance(1.1)
    services.clock_flag(match_id=match.pk)
    assert list(ReplacedMove.objects.values_list("ply", "role", "reason")) == [(1, "xplayer", "lost")]


@pytest.mark.django_db(transaction=True)
def test_a_ggp_seats_turn_is_flagged_by_the_play_clock_of_its_own_play(fake_time, monkeypatch, settings):
    """A GGP seat's PLAY may go out after its turn began (a step waits for every answer to the
    one before): the flag counts the play clock from that PLAY, and still falls, as an answer
    the server lost, once it and twice the grace have passed with no manager at work."""
    match, person = with_a_ggp_player_and_no_manager(monkeypatch, settings, ggp_role="oplayer")
    game = get_game(match.game)
    services.move_submit(match_id=match.pk, user=person, version=match.version,
                         action=game.legal_actions(game.state_from_json(match.state))[0])
    fake_time.advance(5)
    sent_at = fake_time.now  # the step before took 5 s of the turn to answer
    GGPProgress.objects.update_or_create(match=match, defaults={"started": True, "sent": 1, "sent_at": sent_at})
    fake_time.advance(PER_MOVE.play + 2 - 0.5)  # the turn's own deadline and the grace are long past
    assert services.clock_flag(match_id=match.pk) == sent_at + timedelta(seconds=PER_MOVE.play + 2)
    assert Match.objects.get(pk=match.pk).plies == 1
    fake_time.advance(1)
    services.clock_flag(match_id=match.pk)
    assert list(ReplacedMove.objects.values_list("ply", "role", "reason")) == [(2, "oplayer", "lost")]


@pytest.mark.django_db
def test_the_replay_marks_a_replaced_move_with_its_reason(fake_time):
    from django.test import Client

    x, o = make_players(2)
    match = start_match("tictactoe-x9", [x, o], time_control=PER_MOVE)
    fake_time.advance(41)
    services.clock_flag(match_id=match.pk)  # x's first turn played at random
    match.refresh_from_db()
    game = get_game(match.game)
    services.move_submit(match_id=match.pk, user=o, version=match.version,
                         action=game.legal_actions(game.state_from_json(match.state))[0])
    services.match_resign(match_id=match.pk, user=x)
    page = Client().get(f"/matches/{match.pk}/replay/").content.decode()
    assert page.count("(at random: too late)") == 1


@pytest.mark.django_db(transaction=True)
def test_no_takeback_is_asked_of_a_ggp_player_who_can_never_answer(monkeypatch, settings):
    match, person = with_a_ggp_player_and_no_manager(monkeypatch, settings, ggp_role="oplayer")
    game = get_game(match.game)
    services.move_submit(match_id=match.pk, user=person, action=game.legal_actions(game.initial_state())[0], version=0)
    with pytest.raises(services.ServiceError) as refused:
        services.takeback_offer(match_id=match.pk, user=person, version=1)
    assert refused.value.code == "program_plays_on" and "cannot answer" in refused.value.message
    assert Match.objects.get(pk=match.pk).offers == ""


@pytest.mark.django_db
def test_a_person_who_never_moves_in_a_rated_per_move_match_has_it_called_off(fake_time):
    """People and programs alike (``games.match.absence``): x's first turn runs out (one slip,
    played at random), then its second: the match never began and is called off, unrated."""
    x, o = make_accounts(2)
    match = start_match("tictactoe-x9", [x, o], rated=True, time_control=PER_MOVE)
    Match.objects.filter(pk=match.pk).update(random_token="steady")  # the same moves at random every run
    fake_time.advance(41)
    services.clock_flag(match_id=match.pk)
    match.refresh_from_db()
    game = get_game(match.game)
    services.move_submit(match_id=match.pk, user=o, version=match.version,
                         action=game.legal_actions(game.state_from_json(match.state))[0])
    assert Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE
    fake_time.advance(PER_MOVE.play + 1)
    services.clock_flag(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.plies == 2
    assert match.result["reason"] == "xplayer made no move of its own in its first 2 turns"
    assert not match.seats.filter(rating_after__isnull=False).exists()


@pytest.mark.django_db
def test_a_person_gone_from_a_rated_per_move_match_loses_on_time_after_three_turns(fake_time):
    x, o = make_accounts(2)
    match = start_match("nine-board-tictactoe", [x, o], rated=True, time_control=PER_MOVE)
    Match.objects.filter(pk=match.pk).update(random_token="steady")  # the same moves at random every run
    game = get_game(match.game)

    def move(user):
        match.refresh_from_db()
        services.move_submit(match_id=match.pk, user=user, version=match.version,
                             action=game.legal_actions(game.state_from_json(match.state))[0])

    move(x)
    for _ in range(3):
        move(o)
        fake_time.advance(PER_MOVE.play + 1)
        services.clock_flag(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result["winners"] == ["oPlayer"]
    assert match.result["reason"] == "xPlayer ran out of time: no move of its own in 3 turns in a row"
    assert ReplacedMove.objects.filter(match=match).count() == 2
    assert match.seats.get(role="xPlayer").out == "time"


@pytest.mark.django_db(transaction=True)
def test_the_state_counts_a_ggp_seats_clock_from_its_own_play(fake_time, monkeypatch, settings):
    """What pages receive (``selectors.match_snapshot``): on the GGP seat's turn, once its PLAY
    went out, the play clock from then; before it went out, standing whole while the manager is
    at the match (``held``: the flag waits for the PLAY too), else, and on a person's turn (who
    also hears every PLAY's step), the turn's clock as it is."""
    match, person = with_a_ggp_player_and_no_manager(monkeypatch, settings, ggp_role="oplayer")
    game = get_game(match.game)
    GGPProgress.objects.update_or_create(match=match, defaults={"started": True, "sent": 0, "sent_at": fake_time.now})
    fake_time.advance(3)
    shown = selectors.match_snapshot(match=Match.objects.get(pk=match.pk))["clock"]
    assert (shown["running"], shown["since"]) == ("xplayer", match.clock["since"]), "a person's turn as it is"
    services.move_submit(match_id=match.pk, user=person, version=match.version,
                         action=game.legal_actions(game.state_from_json(match.state))[0])
    match.refresh_from_db()
    turn = match.clock
    shown = selectors.match_snapshot(match=match)["clock"]
    assert (shown["since"], shown["held"]) == (turn["since"], False), "its PLAY not sent, no manager at the match"
    fake_time.advance(2)
    GGPProgress.objects.filter(pk=match.pk).update(claim="a-task", held_until=timezone.now() + timedelta(seconds=30))
    shown = selectors.match_snapshot(match=match)["clock"]
    assert (shown["running"], shown["since"], shown["held"]) == ("oplayer", fake_time.ms(), True), "the manager at it"
    assert shown["remaining"]["oplayer"] == PER_MOVE.play * 1000, "standing whole until the PLAY goes out"
    GGPProgress.objects.filter(pk=match.pk).update(held_until=timezone.now() - timedelta(seconds=1))
    assert selectors.match_snapshot(match=match)["clock"]["held"] is False, "its holder's time is up"
    fake_time.advance(2)
    GGPProgress.objects.filter(pk=match.pk).update(sent=1, sent_at=fake_time.now)
    shown = selectors.match_snapshot(match=match)["clock"]
    assert (shown["running"], shown["since"]) == ("oplayer", fake_time.ms())
    # its play clock, whole from its PLAY; the person waiting has a whole turn to come (clocks.public)
    assert shown["remaining"] == {role: PER_MOVE.play * 1000 for role in turn["remaining"]}
    assert Match.objects.get(pk=match.pk).clock == turn, "the match's own clock is not touched"


@pytest.mark.django_db
def test_a_quarto_turn_of_two_plies_run_out_counts_once(fake_time):
    """Quarto: choosing and placing are two plies of one turn (one clock). White's first turn
    runs out: both plies at random, and that is one slip; its second turn calls the match off."""
    white, black = make_accounts(2)
    match = start_match("quarto-misere", [white, black], rated=True, time_control=PER_MOVE)
    game = get_game(match.game)
    fake_time.advance(41)
    for _ in range(2):
        services.clock_flag(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.plies == 2
    for _ in range(2):
        services.move_submit(match_id=match.pk, user=black, version=match.version,
                             action=game.legal_actions(game.state_from_json(match.state))[0])
        match.refresh_from_db()
    fake_time.advance(PER_MOVE.play + 1)
    services.clock_flag(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.plies == 4
    assert match.result["reason"] == "white made no move of its own in its first 2 turns"
