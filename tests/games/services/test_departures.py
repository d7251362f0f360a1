"""Nobody is stranded: a guest who logs out settles its matches, and the lobby lists only
matches someone is at (and, waiting, could join); waiting matches whose players all left expire."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from games import selectors, services
from games.match.settings import MatchSettings
from games.models import Match, Seat
from tests.support.players import make_players, play_first_moves, start_match, waiting_match

pytestmark = pytest.mark.django_db


def listed(kind):
    return [row["id"] for row in selectors.lobby_lists()[kind]]


def leave(match, user, seconds_ago=0):
    Seat.objects.filter(match=match, player=user).update(away_since=timezone.now() - timedelta(seconds=seconds_ago))


def test_a_departing_player_resigns_live_matches_and_frees_waiting_seats():
    ada, bob, cy = make_players(3)
    two = play_first_moves(start_match("quarto-misere", [ada, bob]), [ada, bob])
    three = play_first_moves(start_match("tictactoe-3player", [ada, bob, cy]), [ada, bob, cy])
    alone = services.match_create(user=ada, settings=MatchSettings("quarto-misere"))
    shared = services.match_create(user=bob, settings=MatchSettings("tictactoe-3player"), role="xplayer")
    services.seat_join(match_id=shared.pk, user=ada)
    assert services.player_depart(user=ada) == {"resigned": 2, "freed": 2}
    two.refresh_from_db()
    assert two.status == Match.Status.FINISHED and two.result["winners"] == ["black"]
    three.refresh_from_db()
    assert three.status == Match.Status.ACTIVE and three.seats.get(player=ada).resigned  # the others play on
    assert three.seats.get(player=ada).out == "left" and two.seats.get(player=ada).out == "left"
    assert Match.objects.get(pk=alone.pk).status == Match.Status.ABORTED
    assert Match.objects.get(pk=shared.pk).status == Match.Status.WAITING
    assert not shared.seats.filter(player=ada).exists()  # free for someone else


def test_a_rematch_kept_for_a_departing_player_is_called_off():
    ada, bob = make_players(2)
    match = play_first_moves(start_match("quarto-misere", [ada, bob]), [ada, bob])
    services.match_resign(match_id=match.pk, user=ada)
    rematch = services.rematch_offer(match_id=match.pk, user=bob)
    services.player_depart(user=ada)
    assert Match.objects.get(pk=rematch.pk).status == Match.Status.ABORTED


@pytest.mark.parametrize("slug", ["quarto-misere", "tictactoe-3player"])
def test_a_player_leaving_the_site_before_every_seat_moved_aborts_the_match(slug):
    """A match that never began is aborted, not lost (lichess's rule), with two players or three."""
    players = make_players(3)
    match = start_match(slug, players[:2] if slug == "quarto-misere" else players)
    services.player_depart(user=players[1])  # the second seat, which has not moved
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.deadline is None
    assert match.result["reason"] == f"{match.seats.get(player=players[1]).role} left the site before moving"
    assert not match.seats.filter(resigned=True).exists() and not match.seats.exclude(outcome="").exists()


def test_the_lobby_lists_only_matches_someone_is_at():
    ada, bob, cy = make_players(3)
    waiting = waiting_match(ada, MatchSettings("quarto-misere"))
    live = start_match("quarto-misere", [bob, cy])
    computer = services.match_create(user=cy, settings=MatchSettings("quarto-misere"), against_computer=True)
    assert set(listed("open")) == {waiting.pk} and set(listed("live")) == {live.pk, computer.pk}
    leave(waiting, ada)
    leave(computer, cy)
    leave(live, bob)
    assert listed("open") == [] and listed("live") == [live.pk]  # cy is still at the live match
    leave(live, cy)
    assert listed("live") == []
    services.presence_enter(match_id=live.pk, channel_name="back", user=bob)
    assert listed("live") == [live.pk]


def test_the_lobby_offers_no_waiting_match_of_rules_the_site_no_longer_has_and_its_creator_may_abort_it():
    """Its page and its seats would be a 404 for whoever clicked it. The creator still has it in
    their own list, and aborts it; one being played under such rules stays listed, by its slug."""
    ada, bob, cy = make_players(3)
    gone = waiting_match(ada, MatchSettings("quarto-misere"))
    kept = waiting_match(bob, MatchSettings("quarto-misere"))
    live = start_match("quarto-misere", [bob, cy])
    Match.objects.filter(pk__in=[gone.pk, live.pk]).update(game="gone-rules")
    assert listed("open") == [kept.pk] and listed("live") == [live.pk]
    assert [(m["id"], m["game_name"]) for m in selectors.matches_of_player(user=ada)] == [(gone.pk, "gone-rules")]
    services.match_abort(match_id=gone.pk, user=ada)
    assert Match.objects.get(pk=gone.pk).status == Match.Status.ABORTED
    assert selectors.matches_of_player(user=ada) == []


@override_settings(WAITING_EXPIRE_SECONDS=120)
def test_waiting_matches_whose_players_all_left_expire():
    ada, bob = make_players(2)
    gone = services.match_create(user=ada, settings=MatchSettings("quarto-misere"))
    just_left = services.match_create(user=bob, settings=MatchSettings("quarto-misere"))
    leave(gone, ada, seconds_ago=121)
    leave(just_left, bob, seconds_ago=30)
    assert services.waiting_matches_expire() == 1
    assert Match.objects.get(pk=gone.pk).status == Match.Status.ABORTED
    assert Match.objects.get(pk=just_left.pk).status == Match.Status.WAITING


def test_a_departing_guests_challenges_close_both_ways():
    """Left open, the challenged player could accept after the guest had gone: a live match
    against nobody."""
    from games.models import Challenge
    from lobby.services import guest_leave

    ada, bob, cy = make_players(3)
    sent = services.challenge_create(user=ada, to_id=bob.pk, settings=MatchSettings("quarto-misere"))
    received = services.challenge_create(user=cy, to_id=ada.pk, settings=MatchSettings("quarto-misere"))
    guest_leave(user=ada)
    assert Challenge.objects.get(pk=sent.pk).status == Challenge.Status.CANCELLED
    assert Challenge.objects.get(pk=received.pk).status == Challenge.Status.DECLINED
    with pytest.raises(services.ServiceError) as info:
        services.challenge_accept(user=bob, challenge_id=sent.pk)
    assert info.value.code == "challenge_closed"
    assert not Match.objects.exists()


def test_no_rematch_is_kept_for_a_guest_who_left():
    from lobby.services import guest_leave
    from tests.support.players import play_out

    ada, bob = make_players(2)
    match = play_out(start_match("quarto-misere", [ada, bob]), [ada, bob])
    guest_leave(user=ada)
    with pytest.raises(services.ServiceError) as info:
        services.rematch_offer(match_id=match.pk, user=bob)
    assert info.value.code == "player_gone"
    assert Match.objects.count() == 1
