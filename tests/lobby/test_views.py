"""Lobby and account pages: they render, the create-match form, guests, CSRF."""

import re

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils.html import escape

from games.computer.search import LEVELS
from games.match.settings import MatchSettings
from games.models import Match, Seat
from tests.support.players import make_accounts, make_players, start_match, waiting_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client):
    user = make_players(1, "Ada")[0]
    client.force_login(user)
    return client, user


def test_home_renders_for_a_visitor_with_the_guest_form(client):
    page = client.get("/").content.decode()
    assert 'action="/guest/"' in page and "Play as guest" in page
    assert "New match" not in page


def test_home_for_a_player_offers_every_game_and_its_seats(signed_in):
    client, user = signed_in
    page = client.get("/").content.decode()
    assert "New match" in page and f'href="/players/{user.pk}/"' in page
    for slug in ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "tictactoe-3player",
                 "tictactoe-3player-torus", "quarto-misere", "quarto-misere-classic"]:
        assert f'value="{slug}"' in page
    assert '"quarto-misere": ["white", "black"]' in page  # the seat list the page narrows to the game


def test_guest_form_signs_in_and_returns_to_next(client):
    response = client.post("/guest/", {"display_name": "  Grace ", "next": "/history/"})
    assert response.status_code == 302 and response.url == "/history/"
    assert "Grace" in client.get("/").content.decode()


def test_a_signed_in_player_posting_the_guest_form_stays_who_they_are(signed_in):
    """A second guest name would strand the first: its name kept for good, its matches waiting."""
    from lobby.models import User

    client, ada = signed_in
    response = client.post("/guest/", {"display_name": "Bella", "next": "/history/"})
    assert response.status_code == 302 and response["Location"] == "/history/"
    assert client.get("/").wsgi_request.user == ada
    assert not User.objects.filter(display_name="Bella").exists()


def test_guest_form_refuses_an_outside_next(client):
    response = client.post("/guest/", {"display_name": "Grace", "next": "//evil.example/"})
    assert response.url == reverse("lobby:home")


GUESTS_TOO_FAST = "Too many guests were made from your address just now: wait a minute, then try again."
GUESTS_TODAY = ("Your address has made as many guests as it may today: sign up or log in to play on, "
                "or come back tomorrow.")


def guests_made():
    from lobby.models import User

    return User.objects.filter(is_guest=True).count()


def messages_on(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


@override_settings(GUEST_CREATE_PER_ADDRESS_PER_MINUTE=2, GUEST_CREATE_PER_ADDRESS_PER_DAY=100)
def test_one_address_makes_only_a_few_guests_a_minute(clock):
    """Each browser of one address (a new Client: no session) may make a guest, a few a minute;
    the next is told why on the page and nothing is made."""
    for n in range(2):
        assert Client().post("/guest/", {"display_name": f"Grace {n}"}).status_code == 302
    refused = Client().post("/guest/", {"display_name": "Grace 2", "next": "/history/"}, follow=True)
    assert refused.status_code == 200 and messages_on(refused) == [GUESTS_TOO_FAST]
    assert refused.request["PATH_INFO"] == "/history/" and guests_made() == 2
    other = Client(REMOTE_ADDR="192.0.2.7")  # another address has its own count
    assert other.post("/guest/", {"display_name": "Grace 3"}).status_code == 302 and guests_made() == 3


@override_settings(GUEST_CREATE_PER_ADDRESS_PER_MINUTE=100, GUEST_CREATE_PER_ADDRESS_PER_DAY=2)
def test_one_address_makes_only_so_many_guests_a_day_whatever_the_pace(clock):
    """Guests have daily limits of their own (analyses, ANALYSIS_GUEST_PER_DAY): a fresh guest a
    minute would evade them, so an address is counted over the day too."""
    for n in range(2):
        assert Client().post("/guest/", {"display_name": f"Grace {n}"}).status_code == 302
        clock[0] += 120  # minutes apart
    refused = Client().post("/guest/", {"display_name": "Grace 2"}, follow=True)
    assert messages_on(refused) == [GUESTS_TODAY] and guests_made() == 2
    clock[0] += 24 * 3600  # the next day
    assert Client().post("/guest/", {"display_name": "Grace 2"}).status_code == 302 and guests_made() == 3


@override_settings(GUEST_CREATE_PER_ADDRESS_PER_MINUTE=1, GUEST_CREATE_PER_ADDRESS_PER_DAY=100)
def test_playing_the_computer_at_once_makes_guests_within_the_same_count(clock):
    """The home page's "Play the computer" makes a guest of a visitor: the same count."""
    assert Client().post("/play/computer/", {"game": "quarto-misere"}).status_code == 302
    refused = Client().post("/play/computer/", {"game": "quarto-misere"}, follow=True)
    assert messages_on(refused) == [GUESTS_TOO_FAST] and refused.request["PATH_INFO"] == "/"
    refused = Client().post("/guest/", {"display_name": "Grace"}, follow=True)
    assert messages_on(refused) == [GUESTS_TOO_FAST]
    assert guests_made() == 1 and Match.objects.count() == 1


SIGNUPS_TOO_FAST = "Too many accounts were made from your address just now: wait a minute, then try again."
SIGNUPS_TODAY = ("Your address has made as many new accounts as it may today: log in to one you have, "
                 "or come back tomorrow.")


def sign_up(client, username):
    return client.post("/signup/", {"username": username, "password": "correct-horse-battery-staple"})


def accounts_made():
    from lobby.models import User

    return sorted(User.objects.filter(is_guest=False).values_list("username", flat=True))


def refused_form(response, message):
    """The sign-up form is shown again, saying why."""
    page = response.content.decode()
    return response.status_code == 200 and escape(message) in page and 'action="/signup/"' in page


@override_settings(SIGNUP_PER_ADDRESS_PER_MINUTE=2, SIGNUP_PER_ADDRESS_PER_DAY=100)
def test_one_address_makes_only_a_few_accounts_a_minute(clock):
    """Fresh accounts farm the ladder: one address signs up a few a minute (a taken name tried
    again is not counted); the next sees the form again, saying why, and no account is made."""
    assert sign_up(Client(), "ada").status_code == 302
    assert "is taken" in sign_up(Client(), "ADA").content.decode()  # not counted: no account made
    assert sign_up(Client(), "alan").status_code == 302
    assert refused_form(sign_up(Client(), "grace"), SIGNUPS_TOO_FAST) and accounts_made() == ["ada", "alan"]
    guest = Client()  # a guest refused stays the guest it was
    guest.post("/guest/", {"display_name": "Kurt"})
    assert refused_form(sign_up(guest, "kurt"), SIGNUPS_TOO_FAST) and accounts_made() == ["ada", "alan"]
    assert "Sign up to keep this name" in guest.get("/signup/").content.decode()
    other = Client(REMOTE_ADDR="192.0.2.7")  # another address has its own count
    assert sign_up(other, "grace").status_code == 302 and accounts_made() == ["ada", "alan", "grace"]


@override_settings(SIGNUP_PER_ADDRESS_PER_MINUTE=100, SIGNUP_PER_ADDRESS_PER_DAY=2)
def test_one_address_makes_only_so_many_accounts_a_day_whatever_the_pace(clock):
    for name in ["ada", "alan"]:
        assert sign_up(Client(), name).status_code == 302
        clock[0] += 120  # minutes apart
    assert refused_form(sign_up(Client(), "grace"), SIGNUPS_TODAY) and accounts_made() == ["ada", "alan"]
    clock[0] += 24 * 3600  # the next day
    assert sign_up(Client(), "grace").status_code == 302 and accounts_made() == ["ada", "alan", "grace"]


def test_create_match_with_a_seat(signed_in):
    client, user = signed_in
    response = client.post("/matches/new/", {"game": "quarto-misere", "role": "black"})
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    assert match.seats.get(player=user).role == "black" and not match.is_private


def test_create_match_against_the_computer_starts_it_with_the_computer_in_the_other_seats(signed_in):
    client, user = signed_in
    response = client.post("/matches/new/", {"game": "tictactoe-3player", "role": "oplayer", "opponents": "computer",
                                             "computer_level": "1"})
    match = Match.objects.get()
    assert response.url == f"/matches/{match.pk}/" and match.status == Match.Status.ACTIVE
    seats = {s.role: s.player for s in match.seats.select_related("player")}
    assert seats.pop("oplayer") == user
    assert sorted(p.display_name for p in seats.values()) == ["Computer (easy)", "Computer 2 (easy)"]
    assert all(p.is_computer and p.computer_level == 1 for p in seats.values())
    client.post("/matches/new/", {"game": "quarto-misere", "opponents": "computer"})  # no level: medium
    assert Match.objects.latest("pk").seats.exclude(player=user).get().player.display_name == "Computer (medium)"


def test_the_create_form_says_what_each_level_of_the_computer_does(signed_in):
    """The select names the levels (short enough for a phone); what each does is shown below it."""
    client, _ = signed_in
    page = client.get("/").content.decode()
    for number, level in enumerate(LEVELS, start=1):
        assert f'data-description="{escape(level.description)}">{level.name.capitalize()}</option>' in page
    assert 'aria-describedby="id_computer_level-description"' in page
    description = f'id="id_computer_level-description" aria-live="polite">{escape(LEVELS[1].description)}</p>'
    assert description in page  # medium, the level chosen at first
    assert "Never misses a win in one move" in page


def test_create_match_refuses_an_unknown_kind_of_opponent(signed_in):
    client, _ = signed_in
    client.post("/matches/new/", {"game": "quarto-misere", "opponents": "robots"})
    assert not Match.objects.exists()


def test_create_private_match_with_a_random_seat(signed_in):
    client, user = signed_in
    client.post("/matches/new/", {"game": "tictactoe-3player", "role": "", "private": "on"})
    match = Match.objects.get()
    assert match.is_private and match.seats.get(player=user).role in {"xplayer", "oplayer", "zplayer"}


def test_create_match_refuses_a_seat_of_another_game(signed_in):
    client, _ = signed_in
    response = client.post("/matches/new/", {"game": "quarto-misere", "role": "xPlayer"}, follow=True)
    assert not Match.objects.exists()
    assert "That game has no seat xPlayer." in response.content.decode()


def test_create_match_needs_a_name(client):
    response = client.post("/matches/new/", {"game": "quarto-misere"}, follow=True)
    assert not Match.objects.exists()
    assert "Choose a name" in response.content.decode()


def test_login_and_signup_pages_render(client):
    assert "Log in" in client.get("/login/").content.decode()
    assert "Create account" in client.get("/signup/").content.decode()


def test_signup_turns_the_guest_into_an_account(client):
    client.post("/guest/", {"display_name": "Grace"})
    response = client.post("/signup/", {"username": "grace", "password": "correct-horse-battery-staple"}, follow=True)
    page = response.content.decode()
    assert "your account is ready" in page and "Log out" in page


def test_logging_in_takes_the_user_name_in_any_case(client):
    client.post("/guest/", {"display_name": "Grace"})
    client.post("/signup/", {"username": "Grace", "password": "correct-horse-battery-staple"})
    client.post("/logout/")
    response = client.post("/login/", {"username": "GRACE", "password": "correct-horse-battery-staple"})
    assert response.status_code == 302
    assert "Log out" in client.get("/").content.decode()


@pytest.mark.parametrize("path", ["/login/", "/admin/login/"])
def test_a_user_name_too_long_to_be_one_is_refused_by_the_sign_in_form_without_a_query(client, path):
    """50,000 characters went to the database as a LIKE pattern SQLite calls too complex: the
    outage page (503) and a log line saying the database was down."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    make_accounts(1)  # SQLite reads the pattern only against a row
    with CaptureQueriesContext(connection) as queries:
        response = client.post(path, {"username": "a" * 60_000, "password": "correct-horse-battery-staple"})
    assert response.status_code == 200 and "at most 150 characters" in response.content.decode()
    assert not [q for q in queries if "auth_user" in q["sql"] or "lobby_user" in q["sql"]]


@pytest.mark.parametrize("path,data", [
    ("/guest/", {"display_name": "Grace"}),
    ("/matches/new/", {"game": "quarto-misere"}),
    ("/signup/", {"username": "grace", "password": "correct-horse-battery-staple"}),
])
def test_forms_need_the_csrf_token(path, data):
    client = Client(enforce_csrf_checks=True)
    assert client.post(path, data).status_code == 403


@pytest.mark.parametrize("fields, expected", [
    ({}, (None, 0, None)),
    ({"clock": "5+3"}, (300, 3, None)),
    ({"clock": "d2"}, (None, 0, 2)),
    ({"clock": "custom", "clock_minutes": "7", "clock_increment": "2"}, (420, 2, None)),
])
def test_create_match_with_a_time_control(signed_in, fields, expected):
    client, _ = signed_in
    client.post("/matches/new/", {"game": "quarto-misere", **fields})
    match = Match.objects.get()
    assert (match.clock_base, match.clock_increment, match.clock_days) == expected


@pytest.mark.parametrize("fields", [{"clock": "500+0"}, {"clock": "d9"}, {"clock": "custom", "clock_minutes": "0"},
                                    {"clock": "custom", "clock_minutes": "5", "clock_increment": "999"}])
def test_create_match_refuses_time_controls_out_of_bounds(signed_in, fields):
    client, _ = signed_in
    response = client.post("/matches/new/", {"game": "quarto-misere", **fields}, follow=True)
    assert response.status_code == 200 and not Match.objects.exists()
    assert any(m.level_tag == "error" for m in response.context["messages"])


def test_a_guest_is_warned_before_logging_out_and_then_gives_up_name_and_matches(client):
    ada, bob = make_players(2, "Guest")
    from tests.support.players import play_first_moves, start_match

    match = play_first_moves(start_match("quarto-misere", [ada, bob]), [ada, bob])
    client.force_login(ada)
    page = client.post("/logout/")
    assert page.status_code == 200 and b"Sign up and keep the name" in page.content
    assert f"Quarto #{match.pk}".encode() in page.content and b"you resign" in page.content
    assert client.get("/").context["user"].is_authenticated  # nothing happened yet
    assert client.post("/logout/", {"confirm": "1"}).status_code == 302
    assert not client.get("/").context["user"].is_authenticated
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result["winners"] == ["black"]
    response = Client().post("/guest/", {"display_name": ada.display_name})
    assert response.status_code == 302  # the name is free again
    from lobby.models import User

    assert User.objects.filter(display_name=ada.display_name).count() == 2


def test_an_account_logs_out_at_once(signed_in):
    client, user = signed_in
    from lobby.services import account_signup

    account_signup(username="ada", password="a long pass phrase 9", guest=user)
    assert client.post("/logout/").status_code == 302
    assert client.get("/logout/").status_code == 302  # nobody to log out: back to the lobby


def test_a_visitor_sees_the_five_games_with_their_rules_before_choosing_a_name(client):
    from django.utils.html import escape

    from games.match.guide import guide_games

    page = client.get("/").content.decode()
    for game in guide_games():
        assert escape(game["summary"]) in page and f'href="/rules/{game["slug"]}/"' in page
    assert len(guide_games()) == 5


def seat_options(page: str) -> list[tuple[str, str]]:
    select = re.search(r'<select name="role"[^>]*>(.*?)</select>', page, re.S)[1]
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select)


def test_the_seat_list_shows_the_chosen_rule_sets_seats_once_each_by_their_labels(signed_in):
    client, _ = signed_in
    assert seat_options(client.get("/").content.decode()) == [
        ("", "Random seat"), ("xPlayer", "X (first to move)"), ("oPlayer", "O (second to move)")]
    assert seat_options(client.get("/?game=tictactoe-3player").content.decode()) == [
        ("", "Random seat"), ("xplayer", "X (first to move)"), ("oplayer", "O (second to move)"),
        ("zplayer", "Z (third to move)")]


def test_rated_against_the_computer_is_refused_as_casual_and_the_form_keeps_what_was_chosen(client):
    """A signed-up player is not told to sign up, and the form comes back as they left it."""
    member, = make_accounts(1)
    client.force_login(member)
    chosen = {"base_game": "quarto-misere", "game": "quarto-misere-classic", "role": "black",
              "opponents": "computer", "computer_level": "3", "rated": "on", "clock": "d2"}
    response = client.post("/matches/new/", chosen, follow=True)
    assert not Match.objects.exists()
    assert [str(m) for m in response.context["messages"]] == [
        "Games against the computer are casual: untick Rated, or choose to play against people."]
    form = response.context["create_form"]
    assert {name: form[name].value() for name in ("game", "role", "opponents", "computer_level", "clock")} == {
        "game": "quarto-misere-classic", "role": "black", "opponents": "computer", "computer_level": 3, "clock": "d2"}
    page = response.content.decode()
    assert '<option value="quarto-misere" selected>' in page
    assert re.search(r'<option value="quarto-misere-classic"[^>]* selected>', page)
    assert re.search(r'<input type="radio" name="opponents" value="computer"[^>]* checked>', page)


def test_the_create_form_ignores_choices_it_does_not_know(signed_in):
    client, _ = signed_in
    form = client.get("/?game=chess&computer_level=9&opponents=computer&role=<b>").context["create_form"]
    assert (form["game"].value(), form["computer_level"].value(), form["opponents"].value()) == (None, 2, "computer")


def test_a_visitor_plays_the_computer_in_one_post_as_a_guest_with_a_generated_name(client):
    """No name to type: the home page's "Play the computer" makes a guest and starts an untimed
    casual match against the computer, at the level and on the rule set chosen."""
    from lobby.models import User

    page = client.get("/").content.decode()
    assert 'action="/play/computer/"' in page and '<option value="nine-board-tictactoe" selected>' in page
    assert '<option value="2" selected' in page  # medium
    response = client.post("/play/computer/", {"game": "quarto-misere", "computer_level": "3"})
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    guest = User.objects.get(is_guest=True)
    assert re.fullmatch(r"Guest \d{6}", guest.display_name) and guest.name_key
    assert client.get(response.url).wsgi_request.user == guest
    assert match.status == Match.Status.ACTIVE and not match.rated and match.clock_base is None
    assert match.clock_days is None and match.game == "quarto-misere"
    players = {s.player for s in match.seats.select_related("player")}
    computer, = players - {guest}
    assert computer.is_computer and computer.computer_level == 3


def test_play_the_computer_keeps_a_player_who_they_are(signed_in):
    client, ada = signed_in
    response = client.post("/play/computer/", {"game": "nine-board-tictactoe"})
    match = Match.objects.get()
    assert response.url == f"/matches/{match.pk}/" and match.seats.filter(player=ada).exists()
    assert match.seats.exclude(player=ada).get().player.display_name == "Computer (medium)"
    assert not ada.__class__.objects.filter(is_guest=True).exclude(pk=ada.pk).exists()


def test_generated_guest_names_pass_the_name_policy_and_are_not_taken(monkeypatch):
    from games.match import text
    from lobby import services as accounts

    taken = accounts.guest_create(display_name="guest 000001")  # a name someone chose
    numbers = iter([0, 0, 1, 7])  # "Guest 000000" is free, then taken twice over, then 7
    monkeypatch.setattr(accounts.secrets, "randbelow", lambda _: next(numbers))
    first, second = accounts.guest_create(), accounts.guest_create()
    assert (first.display_name, second.display_name) == ("Guest 000000", "Guest 000007")
    assert all(text.display_name_clean(g.display_name) == g.display_name for g in (first, second))
    assert taken.display_name == "guest 000001"


def test_play_the_computer_needs_the_csrf_token():
    client = Client(enforce_csrf_checks=True)
    assert client.post("/play/computer/", {"game": "quarto-misere"}).status_code == 403
    assert not Match.objects.exists()


@override_settings(COMPUTER_CREATE_PER_ADDRESS_PER_MINUTE=2, COMPUTER_CREATE_PER_MINUTE=1)
def test_play_the_computer_keeps_the_creation_limits(clock):
    """Per address before any guest is made, then per player."""
    from lobby.models import User

    too_fast = "You are creating matches too fast: wait a minute, then try again."
    first = Client()
    assert first.post("/play/computer/", {"game": "quarto-misere"}).status_code == 302
    refused = first.post("/play/computer/", {"game": "quarto-misere"}, follow=True)  # the guest's second
    assert [str(m) for m in refused.context["messages"]] == [too_fast]
    assert Match.objects.count() == 1
    another = Client()  # the same address, its third creation
    refused = another.post("/play/computer/", {"game": "quarto-misere"}, follow=True)
    assert [str(m) for m in refused.context["messages"]] == [too_fast]
    assert Match.objects.count() == 1 and User.objects.filter(is_guest=True).count() == 1


def test_home_lists_a_players_match_of_rules_the_site_no_longer_has_by_its_slug(signed_in):
    """A waiting and an active match of the player's whose rule set was removed since (or whose
    row is damaged): "Your matches" names them by their slug; before, the home page was a 500
    for the player (and for everyone, once such a match was in the lobby lists). The open
    matches leave the waiting one out: its page, and joining it, would be a 404."""
    client, user = signed_in
    (other,) = make_players(1, "Bob")
    active = start_match("quarto-misere", [user, other])
    waiting = waiting_match(user, MatchSettings("nine-board-tictactoe"))
    Match.objects.filter(pk__in=[active.pk, waiting.pk]).update(game="gone-rules")
    Seat.objects.filter(player=user).update(away_since=None)  # at the table: in the lobby lists too
    page = client.get("/")
    assert page.status_code == 200
    assert [(m["id"], m["game_name"]) for m in page.context["mine"]] == [(waiting.pk, "gone-rules"), (active.pk, "gone-rules")]
    assert page.context["lists"]["open"] == []
    assert [(m["id"], m["game_name"]) for m in page.context["lists"]["live"]] == [(active.pk, "gone-rules")]
