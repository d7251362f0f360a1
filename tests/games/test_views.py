"""Match pages: render, join, private matches, rematch, CSRF."""

import json
import re

import pytest
from django.test import Client

from games import services
from games.match.settings import MatchSettings
from games.models import Match
from tests.support.players import make_players, play_out, start_match, waiting_match

pytestmark = pytest.mark.django_db


def snapshot_in(page: str) -> dict:
    return json.loads(re.search(r'<script id="match-snapshot" type="application/json">(.*?)</script>', page, re.S)[1])


def lobby_lists_in(page: str) -> dict:
    return json.loads(re.search(r'<script id="lobby-lists" type="application/json">(.*?)</script>', page, re.S)[1])


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_match_page_renders_the_snapshot_for_a_spectator(client):
    match = start_match("nine-board-tictactoe", make_players(2))
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "Nine-Board" in page and 'src="/static/js/match.js"' in page
    snapshot = snapshot_in(page)
    assert snapshot["id"] == match.pk and snapshot["status"] == "active" and len(snapshot["view"]["cells"]) == 81


def test_missing_match_is_404(client):
    assert client.get("/matches/999/").status_code == 404


def test_join_takes_the_seat_and_starts_the_match():
    ada, bob = make_players(2)
    match = services.match_create(user=ada, settings=MatchSettings("quarto-misere"), role="white")
    response = logged_in(bob).post(f"/matches/{match.pk}/join/", {"role": "black"})
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    match.refresh_from_db()
    assert match.status == "active" and match.seats.get(role="black").player == bob


def test_join_a_taken_seat_says_why():
    ada, bob, cy = make_players(3)
    match = start_match("quarto-misere", [ada, bob])
    page = logged_in(cy).post(f"/matches/{match.pk}/join/", {"role": "black"}, follow=True).content.decode()
    assert "no longer waiting for players" in page


def test_the_creator_gives_a_free_seat_to_the_computer():
    ada, bob, cy = make_players(3)
    match = services.match_create(user=ada, settings=MatchSettings("tictactoe-3player"), role="oplayer")
    services.seat_join(match_id=match.pk, user=bob, role="zplayer")
    page = logged_in(bob).post(f"/matches/{match.pk}/computer/", {"role": "xplayer", "level": "2"},
                               follow=True).content.decode()
    assert "Only the player who created this match can give a seat to the computer." in page
    response = logged_in(ada).post(f"/matches/{match.pk}/computer/", {"role": "xplayer", "level": "2"})
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    match.refresh_from_db()
    assert match.status == "active" and match.seats.get(role="xplayer").player.computer_level == 2
    page = logged_in(ada).post(f"/matches/{match.pk}/computer/", {"role": "xplayer", "level": "x"},
                               follow=True).content.decode()
    assert "no longer waiting for players" in page


def test_private_match_is_404_without_the_invite_and_opens_with_it():
    ada, bob = make_players(2)
    match = services.match_create(user=ada, settings=MatchSettings("tictactoe-x9"), is_private=True)
    stranger = logged_in(bob)
    assert stranger.get(f"/matches/{match.pk}/").status_code == 404
    assert stranger.get(f"/matches/{match.pk}/?invite=wrong").status_code == 404
    assert stranger.post(f"/matches/{match.pk}/join/").status_code == 404
    page = stranger.get(f"/matches/{match.pk}/?invite={match.invite_token}")
    assert page.status_code == 200 and 'data-invite="' + match.invite_token + '"' in page.content.decode()
    response = stranger.post(f"/matches/{match.pk}/join/", {"invite": match.invite_token})
    assert response.url == f"/matches/{match.pk}/?invite={match.invite_token}"
    assert Match.objects.get(pk=match.pk).status == "active"


def test_private_match_shows_its_invite_link_to_its_players_only():
    ada, bob = make_players(2)
    match = services.match_create(user=ada, settings=MatchSettings("tictactoe-x9"), is_private=True)
    link = f"/matches/{match.pk}/?invite={match.invite_token}"
    assert link in logged_in(ada).get(f"/matches/{match.pk}/").content.decode()
    assert 'id="invite-url"' not in logged_in(bob).get(link).content.decode()


def test_private_match_is_not_in_the_lobby(client):
    ada = make_players(1)[0]
    hidden = services.match_create(user=ada, settings=MatchSettings("quarto-misere"), is_private=True)
    shown = waiting_match(ada, MatchSettings("quarto-misere"))
    lists = lobby_lists_in(client.get("/").content.decode())
    assert [m["id"] for m in lists["open"]] == [shown.pk] and hidden.pk not in [m["id"] for m in lists["live"]]


def test_a_waiting_match_of_rules_the_site_no_longer_has_is_not_in_the_lobby_but_its_creator_may_abort_it(client):
    """Whoever clicked it would find its page a 404 (``unknown_rules``); its creator still has
    it under "Your matches", and aborts it."""
    ada, bob = make_players(2)
    gone = waiting_match(ada, MatchSettings("quarto-misere"))
    shown = waiting_match(bob, MatchSettings("quarto-misere"))
    Match.objects.filter(pk=gone.pk).update(game="gone-rules")
    assert [m["id"] for m in lobby_lists_in(client.get("/").content.decode())["open"]] == [shown.pk]
    creator = logged_in(ada)
    page = creator.get("/")
    assert [m["id"] for m in lobby_lists_in(page.content.decode())["open"]] == [shown.pk]
    assert f'<a href="/matches/{gone.pk}/">gone-rules #{gone.pk}</a>' in page.content.decode()  # Your matches
    assert creator.get(f"/matches/{gone.pk}/").status_code == 404
    assert creator.post(f"/matches/{gone.pk}/abort/").status_code == 302
    assert Match.objects.get(pk=gone.pk).status == Match.Status.ABORTED


def test_rematch_offer_leads_to_the_new_match_and_names_the_offerer():
    ada, bob = make_players(2)
    match = play_out(start_match("nine-board-tictactoe", [ada, bob]), [ada, bob], seed=3)
    response = logged_in(ada).post(f"/matches/{match.pk}/rematch/")
    new = Match.objects.get(rematch_of=match)
    assert response.url == f"/matches/{new.pk}/"
    snapshot = snapshot_in(logged_in(bob).get(f"/matches/{match.pk}/").content.decode())
    assert snapshot["rematch"] == new.pk and snapshot["rematch_by"]["name"] == ada.display_name
    assert logged_in(bob).post(f"/matches/{new.pk}/join/").url == f"/matches/{new.pk}/"
    assert Match.objects.get(pk=new.pk).status == "active"


def test_abort_a_waiting_match():
    ada = make_players(1)[0]
    match = services.match_create(user=ada, settings=MatchSettings("quarto-misere"))
    logged_in(ada).post(f"/matches/{match.pk}/abort/")
    assert Match.objects.get(pk=match.pk).status == "aborted"


@pytest.mark.parametrize("action", ["join", "computer", "abort", "rematch"])
def test_match_forms_need_post_and_csrf(action):
    ada, bob = make_players(2)
    match = services.match_create(user=ada, settings=MatchSettings("quarto-misere"))
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    assert client.get(f"/matches/{match.pk}/{action}/").status_code == 405
    assert client.post(f"/matches/{match.pk}/{action}/").status_code == 403


@pytest.mark.django_db
def test_positions_for_looking_back_follow_the_pages_visibility(client):
    ada, bob = make_players(2, "Look")
    match = start_match("quarto-misere", [ada, bob], is_private=True)
    services.move_submit(match_id=match.pk, user=ada, action="(select p0000)", version=0)
    assert client.get(f"/matches/{match.pk}/positions/").status_code == 404
    data = client.get(f"/matches/{match.pk}/positions/?invite={match.invite_token}").json()
    assert len(data["views"]) == 2 and data["views"][1]["selected"] == "p0000"
    assert client.get("/matches/999999/positions/").status_code == 404


def test_the_favicon_is_served():
    response = Client().get("/favicon.ico")
    assert response.status_code == 301 and response.url.endswith("favicon.svg")


def test_a_rated_match_of_a_pair_over_its_daily_limit_says_so_before_the_first_move():
    from tests.support.players import make_accounts, play_first_moves

    alice, bob = make_accounts(2, "pair")
    first = play_first_moves(start_match("quarto-misere", [alice, bob], rated=True), [alice, bob])
    services.match_resign(match_id=first.pk, user=bob)
    client = Client()
    client.force_login(alice)
    over = client.get(f"/matches/{first.pk}/").content.decode().replace("&#x27;", "'")
    assert "A rated rematch would not count for the ratings: the pair's daily limit" in over
    rematch = start_match("quarto-misere", [bob, alice], rated=True)
    page = client.get(f"/matches/{rematch.pk}/").content.decode().replace("&#x27;", "'")
    note = re.search(r'<p class="hint" id="pair-limit"[^>]*>([^<]*)</p>', page)[1]
    assert note == (f"Rated, but not counted for the ratings: the pair's daily limit ({bob.display_name} and "
                    f"{alice.display_name} already had a rated result count in this game in the last 24 hours).")
    casual = start_match("quarto-misere", [bob, alice], rated=False)
    assert 'id="pair-limit"' not in client.get(f"/matches/{casual.pk}/").content.decode()


def meta(page: str, key: str) -> str | None:
    """The content of the page's <meta property|name="key">, or None."""
    found = re.search(rf'<meta (?:property|name)="{re.escape(key)}" content="([^"]*)"', page)
    return found[1] if found else None


def test_a_live_match_page_carries_a_link_preview_and_a_share_box(client):
    match = start_match("tictactoe-3player", make_players(3))
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert meta(page, "og:title") == "player 1 vs player 2 vs player 3 · Three-Player Tic-Tac-Toe"
    assert meta(page, "og:description") == "Live: player 1 to move. Casual, untimed."
    assert meta(page, "og:image") == f"http://testserver/matches/{match.pk}/position.png?v=0"
    assert meta(page, "og:url") == f"http://testserver/matches/{match.pk}/"
    assert 'id="share"' in page and 'src="/static/js/share.js"' in page
    code = re.search(r'<input id="share-embed" readonly value="([^"]*)"', page)[1]
    assert code.startswith(f"&lt;iframe src=&quot;http://testserver/embed/{match.pk}/&quot;")


def test_a_private_match_page_has_no_share_box_and_previews_nobody():
    players = make_players(2)
    match = start_match("nine-board-tictactoe", players, is_private=True)
    page = logged_in(players[0]).get(f"/matches/{match.pk}/").content.decode()
    assert 'id="share"' not in page and "/embed/" not in page
    assert meta(page, "og:title") == "A private match" and meta(page, "og:image") is None
