"""Pages and socket messages rendered in the pseudo-locale (``xx``: every translated string
accented and bracketed, lobby/translations.py) must show no English word but names, codes and
moves: an English word left is a string nobody marked for translation.

COVERED lists the pages that are fully marked today; a page joins the list once every string
on it is marked (docs/translating.md). The rest of the site still shows English here."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from config.asgi import application
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.services import match_abort, match_create, match_resign, move_submit, seat_join
from live import protocol
from lobby import translations
from notify.events import Notice
from notify.texts import WHAT, text_of
from social.services import follow_create
from tests.support.players import make_accounts, make_players
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)

PSEUDO = "xx"
# Words that stay as they are in every language: the site's name, names of languages in the
# menu, protocol names, and the names the fixtures give players.
KEPT = {"Boardhall", "GGP", "English", "Deutsch", "Français", "Español", "xx", "JSON", "NUL", "true", "false",
        "member", "player", "pseudo", "1", "2"}
# (who, address, status): pages fully marked, as a visitor ("anon"), a guest or an account sees them.
COVERED = [
    ("anon", "/login/", 200),
    ("anon", "/signup/", 200),
    ("anon", "/no-such-page/", 404),
    ("anon", "/language/", 405),
    ("anon", "/notifications/unsubscribe/not-a-token/", 400),
    ("anon", "/notifications/confirm/not-a-token/", 400),
    ("guest", "/signup/", 200),
    ("guest", "/logout/", 200),
    ("guest", "/account/notifications/", 200),
    ("account", "/logout/", 200),
    ("account", "/account/notifications/", 200),
    ("anon", "/following/", 200),
    ("guest", "/following/", 200),
    ("account", "/following/", 200),
    ("anon", "/rules/", 200),
    ("anon", "/rules/nine-board-tictactoe/", 200),
    ("anon", "/rules/tictactoe-x9/", 200),
    ("anon", "/rules/nine-board-tictactoe-pie/", 200),
    ("anon", "/rules/tictactoe-3player/", 200),
    ("account", "/rules/quarto-misere/", 200),
    ("anon", "/", 200),
    ("guest", "/", 200),
    ("account", "/", 200),
    ("anon", "/history/", 200),
    ("anon", "/leaderboards/", 200),
    ("anon", "/leaderboards/?game=quarto-misere", 200),
]


@pytest.fixture(autouse=True)
def pseudo_locale(settings):
    """The pseudo-locale offered (bin/test writes it; written here when missing)."""
    if not (Path(settings.LOCALE_PATHS[0]) / PSEUDO / "LC_MESSAGES" / "djangojs.mo").exists():
        translations.write_pseudo_locale(PSEUDO)
    settings.LANGUAGES = [*settings.LANGUAGES, (PSEUDO, "xx")]


class _Text(HTMLParser):
    """The text a person reads (or hears) on a page: text outside scripts and styles, and the
    attributes that are read out or shown. Left out too: code (moves and GDL, as written in
    every language) and the links to the rule sets' GDL files, named by their file names."""

    SHOWN = {"title", "alt", "placeholder", "aria-label"}
    HIDDEN = {"script", "style", "code"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0
        self.links: list[bool] = []  # for each open link: whether it names a GDL file

    def handle_starttag(self, tag, attrs):
        sheet = tag == "a" and (dict(attrs).get("href") or "").endswith(".kif")
        if tag == "a":
            self.links.append(sheet)
        if tag in self.HIDDEN or sheet:
            self.hidden += 1
        for name, value in attrs:
            if value and (name in self.SHOWN or (name == "value" and tag in {"button"})):
                self.parts.append(value)

    def handle_endtag(self, tag):
        if tag in self.HIDDEN or (tag == "a" and self.links and self.links.pop()):
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


# A mark or a cell as moves name them ("X", "B2", "a3").
MOVE_WORD = re.compile(r"[A-Za-z]\d?")


def english_left(text: str, kept=frozenset()) -> list[str]:
    """The words of ``text`` spelled in plain English letters, but the ``KEPT`` ones, marks and
    cells."""
    return [word for word in re.findall(r"\w+", text)
            if re.search(r"[A-Za-z]", word) and word not in KEPT | kept and not MOVE_WORD.fullmatch(word)]


def _read(html: str) -> list[str]:
    reader = _Text()
    reader.feed(html)
    return reader.parts


def page_words(html: str) -> list[str]:
    return english_left(" ".join(_read(html)))


def client_as(who: str) -> Client:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = PSEUDO
    if who == "guest":
        client.force_login(make_players(1)[0], backend="lobby.auth.Backend")
    elif who == "account":
        client.force_login(make_accounts(1)[0], backend="lobby.auth.Backend")
    return client


@pytest.mark.parametrize(("who", "path", "status"), COVERED)
def test_a_covered_page_has_no_english_left(who, path, status):
    response = client_as(who).get(path)
    assert response.status_code == status
    assert response["Content-Language"] == PSEUDO
    html = response.content.decode()
    assert f'<html lang="{PSEUDO}">' in html
    assert page_words(html) == []


def test_the_following_page_with_a_player_followed_and_the_players_actions():
    member, followed = make_accounts(2, "pseudo")
    follow_create(user=member, player_id=followed.pk)
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = PSEUDO
    client.force_login(member, backend="lobby.auth.Backend")
    assert page_words(client.get("/following/").content.decode()) == []
    answer = client.post(f"/players/{followed.pk}/unfollow/", follow=True)
    assert answer.status_code == 200
    messages = [str(m) for m in answer.context["messages"]]
    assert len(messages) == 1 and english_left(messages[0]) == []


def test_the_finding_fails_on_an_unmarked_string():
    """The check can fail: the site's pages in English are full of English words."""
    client = Client()
    assert "Log" in page_words(client.get("/login/").content.decode())


@pytest.mark.parametrize("template", ["500.html", "503.html"])
def test_the_stand_alone_error_pages(template):
    with translation.override(PSEUDO):
        assert page_words(render_to_string(template)) == []


def test_a_form_refusal():
    """(The refusal quotes the reserved beginnings of user names: codes.)"""
    client = client_as("anon")
    response = client.post("/signup/", {"username": "computer1", "password": "a long enough password"})
    assert english_left(" ".join(_read(response.content.decode())), {"computer", "guest", "ggp"}) == []


def test_the_scripts_catalogue_is_served_in_the_language():
    body = client_as("anon").get(f"/jsi18n/?l={PSEUDO}").content.decode()
    catalog = json.loads(re.search(r"const newcatalog = (\{.*?\});", body, re.S).group(1))
    # A plural entry is the list of its forms.
    forms = [form for value in catalog.values() for form in (value if isinstance(value, list) else [value])]
    assert catalog and all(form.startswith(translations.OPEN) for form in forms)


@pytest.mark.parametrize("kind", sorted(WHAT))
def test_every_notification_text(kind):
    notice = Notice(kind=kind, user_id=1, key=1, path="/matches/1/", game="Quarto", by="member")
    with translation.override(PSEUDO):
        text = text_of(notice, "email")
        assert english_left(f"{text.title} {text.body} {WHAT[kind]}", {"Quarto"}) == []


async def socket_errors(path: str, frames: list[str]) -> list[dict]:
    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1"),
               (b"cookie", f"{settings.LANGUAGE_COOKIE_NAME}={PSEUDO}".encode())]
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect(timeout=EVENT_SECONDS)
    assert connected
    errors = []
    try:
        for frame in frames:
            await comm.send_to(text_data=frame)
            while (message := await comm.receive_json_from(timeout=EVENT_SECONDS))["type"] != "error":
                pass
            errors.append(message)
    finally:
        await comm.disconnect()
    return errors


# Every refusal the socket's frame check can give (live/protocol.py).
MALFORMED = ["x" * 100_000, "[" * 500 + "]" * 500, "{not json", '{"type": "fly"}', '{"type": "ping", "extra": 1}',
             '{"type": "sync", "version": -1}', '{"type": "chat", "text": 5}']


async def test_socket_refusals_read_in_the_language():
    errors = await socket_errors("/ws/lobby/", MALFORMED)
    assert [e["code"] for e in errors] == ["malformed"] * len(MALFORMED)
    # The codes and field names the messages quote stay as they are.
    kept = {"fly", *protocol.SHAPES, *(name for shape in protocol.SHAPES.values() for name in shape)}
    for error in errors:
        assert english_left(error["message"], kept) == [], error


async def test_a_match_socket_that_cannot_be_served_says_so_in_the_language():
    await database_sync_to_async(make_players)(1)
    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1"),
               (b"cookie", f"{settings.LANGUAGE_COOKIE_NAME}={PSEUDO}".encode())]
    comm = WebsocketCommunicator(application, "/ws/matches/987654/", headers=headers)
    await comm.connect(timeout=EVENT_SECONDS)
    message = await comm.receive_json_from(timeout=EVENT_SECONDS)
    await comm.disconnect()
    assert message["code"] == "not_found" and english_left(message["message"]) == []



def test_the_home_page_with_matches_of_the_player_and_an_ended_invitation():
    """The player's own matches (a waiting one, a correspondence one) and an invitation that
    ended read in the language too, the rule sets and time controls named in it."""
    member = make_accounts(1, "pseudo")[0]
    match_create(user=member, settings=MatchSettings(game="quarto-misere", time_control=TimeControl(days=2)))
    invited = match_create(user=member, settings=MatchSettings(game="tictactoe-3player"), is_private=True)
    match_abort(match_id=invited.pk, user=member)
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = PSEUDO
    client.force_login(member, backend="lobby.auth.Backend")
    html = client.get("/").content.decode()
    assert 'id="invites-ended"' in html and 'data-match-id' in html
    assert page_words(html) == []


def _reason_words_block(html: str) -> dict:
    return json.loads(re.search(r'<script id="reason-words" type="application/json">(.*?)</script>', html, re.S).group(1))


def test_the_match_page_for_its_players_a_visitor_and_after_an_invitation_ended():
    """The match page as its creator sees a private one (the invite panel), as a visitor sees
    a public one (the share panel) and as another account sees an invitation that ended; the
    words its scripts get (the seats' colours, the reasons) are in the language too."""
    member, other = make_accounts(2, "pseudo")
    private = match_create(user=member, settings=MatchSettings(game="nine-board-tictactoe-pie"), is_private=True)
    public = match_create(user=member, settings=MatchSettings(game="quarto-misere", time_control=TimeControl(days=2)))
    ended = match_create(user=other, settings=MatchSettings(game="tictactoe-3player"), is_private=True)
    match_abort(match_id=ended.pk, user=other)
    client = client_as("anon")
    client.force_login(member, backend="lobby.auth.Backend")
    html = client.get(f"/matches/{private.pk}/").content.decode()
    assert 'id="invite-url"' in html and page_words(html) == []
    labels = json.loads(re.search(r'<script id="role-labels" type="application/json">(.*?)</script>', html, re.S).group(1))
    assert labels["red"].startswith(translations.OPEN) and labels["xPlayer"] == "X"
    words = _reason_words_block(html)
    assert all(sentence.startswith(translations.OPEN) for _pattern, sentence in words["clauses"])
    assert words["and"].startswith(translations.OPEN)
    visitor = client_as("anon").get(f"/matches/{public.pk}/").content.decode()
    assert 'id="share-url"' in visitor and page_words(visitor) == []
    client.force_login(member, backend="lobby.auth.Backend")
    html = client.get(f"/matches/{ended.pk}/?invite={ended.invite_token}").content.decode()
    assert 'id="invite-ended"' in html and page_words(html) == []


def test_the_history_and_a_players_page_with_a_finished_match():
    """A finished rated match in the history list, filtered (with a refused filter), and on a
    player's page as another account sees it (its challenge form too): the rows' result and
    reason read in the language."""
    ada, bob, cy = make_accounts(3, "pseudo")
    match = match_create(user=ada, settings=MatchSettings(game="nine-board-tictactoe", rated=True), role="xPlayer")
    match = seat_join(match_id=match.pk, user=bob, role="oPlayer")
    match = move_submit(match_id=match.pk, user=ada, action="(play 1 1 2 2 x)", version=match.version)
    move_submit(match_id=match.pk, user=bob, action="(play 2 2 1 1 o)", version=match.version)
    match_resign(match_id=match.pk, user=ada)
    client = client_as("anon")
    html = client.get("/history/").content.decode()
    assert f'data-match="{match.pk}"' in html and page_words(html) == []
    html = client.get("/history/?result=won&until=2020-01-01&since=2021-01-01").content.decode()
    assert 'class="form-error"' in html and page_words(html) == []
    client.force_login(cy, backend="lobby.auth.Backend")
    html = client.get(f"/players/{ada.pk}/").content.decode()
    assert 'id="challenge-form"' in html and f'data-match="{match.pk}"' in html and page_words(html) == []
