"""The page of a private invitation that ended says why from its first paint."""

import json
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from games import services
from games.match.settings import MatchSettings
from games.models import Match, Seat
from games.runtime import presence
from tests.support.players import make_players

pytestmark = pytest.mark.django_db


@pytest.fixture
def lapsed():
    """Ada's invitation, her pages all closed for longer than the grace; nothing has expired it yet."""
    presence.store().forget_all()
    ada, bob = make_players(2)
    ada.display_name = "Ada"
    ada.save()
    match = services.match_create(user=ada, settings=MatchSettings("quarto-misere"), is_private=True)
    Seat.objects.filter(match=match).update(away_since=timezone.now() - timedelta(seconds=301))
    return match, ada, bob


def snapshot_status(page: str) -> str:
    start = page.index('id="match-snapshot" type="application/json">') + len('id="match-snapshot" type="application/json">')
    return json.loads(page[start:page.index("</script>", start)])["status"]


@override_settings(INVITE_GRACE_SECONDS=300)
def test_a_visitor_with_the_link_reads_why_it_ended_from_the_first_render(client, lapsed):
    match, ada, _ = lapsed
    page = client.get(f"/matches/{match.pk}/?invite={match.invite_token}").content.decode()
    assert "This invitation ended: Ada left the site." in page
    assert "Ask Ada for a new link" in page
    assert snapshot_status(page) == "aborted"  # the board's script starts from the ended match, no flip
    assert Match.objects.get(pk=match.pk).status == Match.Status.ABORTED


@override_settings(INVITE_GRACE_SECONDS=300)
def test_a_signed_in_friend_is_offered_to_challenge_the_creator(client, lapsed):
    match, ada, bob = lapsed
    client.force_login(bob)
    page = client.get(f"/matches/{match.pk}/?invite={match.invite_token}").content.decode()
    assert "Challenge Ada to the same game" in page and f'data-to="{ada.pk}"' in page
    assert '"game": "quarto-misere"' in page and "js/invite-ended.js" in page


@override_settings(INVITE_GRACE_SECONDS=300)
def test_the_creator_reads_it_on_the_match_page_and_in_her_home_page_list(client, lapsed):
    match, ada, _ = lapsed
    client.force_login(ada)
    home = client.get("/").content.decode()
    assert 'id="invites-ended"' in home and f"#{match.pk}" in home
    assert "Your invitation ended: you left the site for more than 5 minutes." in home
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "Your invitation ended" in page and "invite-challenge" not in page


@override_settings(INVITE_GRACE_SECONDS=300)
def test_an_invitation_still_in_its_grace_is_open_to_join(client, lapsed):
    match, ada, _ = lapsed
    Seat.objects.filter(match=match).update(away_since=timezone.now() - timedelta(seconds=100))
    page = client.get(f"/matches/{match.pk}/?invite={match.invite_token}").content.decode()
    assert snapshot_status(page) == "waiting" and 'id="invite-ended"' not in page
