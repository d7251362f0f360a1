"""Private invitations: open while a player is on the site and for INVITE_GRACE_SECONDS after;
then called off saying why, their creator told once."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from games import services
from games.match import invites
from games.match.settings import MatchSettings
from games.models import Match, Seat
from games.runtime import presence
from tests.support.players import make_players, play_out, start_match

pytestmark = pytest.mark.django_db

GRACE = 300


@pytest.fixture(autouse=True)
def _no_pages():
    presence.store().forget_all()
    yield
    presence.store().forget_all()


def invite(user, game="quarto-misere"):
    return services.match_create(user=user, settings=MatchSettings(game), is_private=True)


def gone_since(match, user, seconds_ago):
    Seat.objects.filter(match=match, player=user).update(away_since=timezone.now() - timedelta(seconds=seconds_ago))


def status(match):
    match.refresh_from_db()
    return match.status


@override_settings(INVITE_GRACE_SECONDS=GRACE, WAITING_EXPIRE_SECONDS=120)
def test_an_invitation_outlives_the_public_matches_wait_and_ends_after_its_grace():
    ada, bob = make_players(2)
    private = invite(ada)
    public = services.match_create(user=bob, settings=MatchSettings("quarto-misere"))
    gone_since(private, ada, 200)
    gone_since(public, bob, 200)
    assert services.waiting_matches_expire() == 1  # the public one only: 120 s
    assert (status(private), status(public)) == (Match.Status.WAITING, Match.Status.ABORTED)
    gone_since(private, ada, GRACE + 1)
    assert services.waiting_matches_expire() == 1
    assert status(private) == Match.Status.ABORTED
    ended = private.result["invite_ended"]
    assert (ended["why"], ended["by"]["id"], ended["by"]["name"]) == ("left", ada.pk, ada.display_name)
    assert private.result["told"] is False
    assert private.result["reason"] == invites.reason(invites.LEFT)


@override_settings(INVITE_GRACE_SECONDS=GRACE)
def test_a_creator_on_any_page_of_the_site_keeps_it_open():
    (ada,) = make_players(1)
    match = invite(ada)
    gone_since(match, ada, 10 * GRACE)  # its page closed long ago
    services.online_enter(user=ada, channel_name="site-page-1")  # but she is on the home page
    assert services.invites_expire() == 0
    assert status(match) == Match.Status.WAITING


@override_settings(INVITE_GRACE_SECONDS=GRACE)
def test_the_grace_runs_from_leaving_the_site_not_from_leaving_the_match_page():
    (ada,) = make_players(1)
    match = invite(ada)
    gone_since(match, ada, 10 * GRACE)
    services.online_enter(user=ada, channel_name="site-page-1")
    services.online_enter(user=ada, channel_name="site-page-2")
    services.online_leave(channel_name="site-page-1", user=ada)  # another page is still open
    assert Seat.objects.get(match=match, player=ada).away_since < timezone.now() - timedelta(seconds=GRACE)
    services.online_leave(channel_name="site-page-2", user=ada)  # her last page of the site
    assert services.invites_expire() == 0
    assert status(match) == Match.Status.WAITING
    assert services.invites_expire(now=timezone.now() + timedelta(seconds=GRACE + 1)) == 1
    assert status(match) == Match.Status.ABORTED


@override_settings(INVITE_GRACE_SECONDS=GRACE)
def test_one_match_can_be_expired_alone_and_rematch_offers_are_not_invitations():
    ada, bob = make_players(2)
    first, second = invite(ada), invite(ada)
    for match in (first, second):
        gone_since(match, ada, GRACE + 1)
    assert services.invites_expire(match_id=first.pk) == 1
    assert (status(first), status(second)) == (Match.Status.ABORTED, Match.Status.WAITING)



@override_settings(INVITE_GRACE_SECONDS=GRACE, WAITING_EXPIRE_SECONDS=120)
def test_a_private_rematch_offer_waits_as_an_offer_not_as_an_invitation():
    ada, bob = make_players(2)
    match = play_out(start_match("quarto-misere", [ada, bob], is_private=True), [ada, bob])
    rematch = services.rematch_offer(match_id=match.pk, user=ada)
    gone_since(rematch, ada, 200)
    assert services.invites_expire() == 0
    assert services.waiting_matches_expire() == 1
    rematch.refresh_from_db()
    assert rematch.status == Match.Status.ABORTED and "invite_ended" not in rematch.result


@override_settings(INVITE_GRACE_SECONDS=GRACE)
def test_the_creator_is_told_once_of_an_invitation_that_ended_while_away():
    ada, bob = make_players(2)
    match = invite(ada)
    gone_since(match, ada, GRACE + 1)
    services.invites_expire()
    endings = services.invite_endings_take(user=ada)
    assert endings == [{"match": match.pk, "game_name": "Misère Quarto",
                        "text": "Your invitation ended: you left the site for more than 5 minutes."}]
    assert services.invite_endings_take(user=ada) == []
    assert services.invite_endings_take(user=bob) == []


def test_an_invitation_called_off_by_its_creator_says_so_and_needs_no_telling():
    (ada,) = make_players(1)
    match = invite(ada)
    services.match_abort(match_id=match.pk, user=ada)
    match.refresh_from_db()
    assert match.result["invite_ended"]["why"] == invites.CALLED_OFF and match.result["told"] is True
    assert services.invite_endings_take(user=ada) == []
    assert invites.ended_text(match.result["invite_ended"], creator=False) == \
        f"This invitation ended: {ada.display_name} called it off."


def test_a_guest_creator_logging_out_ends_the_invitation_as_leaving_the_site():
    (ada,) = make_players(1)
    match = invite(ada)
    services.player_depart(user=ada)
    match.refresh_from_db()
    assert match.result["invite_ended"]["why"] == invites.LOGGED_OUT
    assert invites.ended_text(match.result["invite_ended"], creator=False) == \
        f"This invitation ended: {ada.display_name} left the site."
