"""The history pages through the test client: lists, filters, player page, replay, privacy, queries."""

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Analysis, Match
from games.rules import get_game
from tests.games.history.conftest import finished_match
from tests.support.players import make_players

pytestmark = pytest.mark.django_db


def client_for(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def listed(response) -> list[int]:
    return [row["id"] for row in response.context["rows"]]


def test_history_list_filters_from_the_get_form(players):
    a, b, c, _ = players
    m1 = finished_match("quarto-misere", [a, b], ["won", "lost"], minutes_ago=3)
    m2 = finished_match("tictactoe-x9", [a, c], ["drawn", "drawn"], minutes_ago=2)
    m3 = finished_match("tictactoe-x9", [c, a], ["won", "lost"], minutes_ago=1)
    url = reverse("history:list")
    assert url == "/history/"
    client = client_for()
    page = client.get(url)
    assert page.status_code == 200 and listed(page) == [m3.pk, m2.pk, m1.pk]
    assert listed(client.get(url, {"game": "tictactoe-x9"})) == [m3.pk, m2.pk]
    assert listed(client.get(url, {"player": a.pk, "result": "won"})) == [m1.pk]
    assert listed(client.get(url, {"player": a.pk, "result": "drawn"})) == [m2.pk]
    assert listed(client.get(url, {"player": a.pk, "result": "lost"})) == [m3.pk]
    assert listed(client.get(url, {"player": b.pk})) == [m1.pk]
    html = page.content.decode()
    assert a.display_name in html and reverse("history:replay", args=[m1.pk]) in html


def test_invalid_filters_are_reported_not_applied(players):
    a, b, *_ = players
    finished_match("quarto-misere", [a, b], ["won", "lost"])
    page = client_for().get("/history/", {"result": "won", "game": "chess"})
    assert page.status_code == 200 and len(listed(page)) == 1
    assert "Pick a player first" in page.content.decode()


def test_pagination_keeps_the_filters(players):
    a, b, *_ = players
    made = [finished_match("quarto-misere", [a, b], ["won", "lost"], minutes_ago=i) for i in range(27)]
    page = client_for().get("/history/", {"game": "quarto-misere", "page": 2})
    assert listed(page) == [m.pk for m in made[25:]]
    assert "game=quarto-misere&amp;page=1" in page.content.decode()


def test_player_page_shows_record_and_matches(players):
    a, b, c, _ = players
    finished_match("quarto-misere", [a, b], ["won", "lost"], scores=[100, 0])
    finished_match("quarto-misere", [b, a], ["drawn", "drawn"], scores=[50, 50])
    other = finished_match("quarto-misere", [b, c], ["won", "lost"])
    page = client_for().get(reverse("history:player", args=[a.pk]))
    assert page.status_code == 200
    record = page.context["record"]
    assert [(r["game"], r["played"], r["won"], r["drawn"], r["lost"], r["average"]) for r in record] == \
        [("quarto-misere", 2, 1, 1, 0, 75.0)]
    assert other.pk not in listed(page) and len(listed(page)) == 2
    assert client_for().get("/players/999999/").status_code == 404


def test_private_match_is_hidden_from_strangers_everywhere(played):
    match, people = played("quarto-misere", private=True)
    stranger, = make_players(1, "stranger")
    urls = [reverse("history:replay", args=[match.pk]), reverse("history:export", args=[match.pk])]
    for client in (client_for(), client_for(stranger)):
        assert match.pk not in listed(client.get("/history/"))
        assert match.pk not in listed(client.get(f"/players/{people[0].pk}/"))
        assert client.get(f"/players/{people[0].pk}/").context["record"] == []
        for url in urls:
            assert client.get(url).status_code == 404
    mine = client_for(people[1])
    assert match.pk in listed(mine.get("/history/"))
    assert match.pk in listed(mine.get(f"/players/{people[0].pk}/"))
    for url in urls:
        assert mine.get(url).status_code == 200


def test_a_private_matchs_invite_link_opens_its_replay_and_export_but_no_list(played):
    """The match page links its replay and export with the invite it was opened with."""
    match, people = played("quarto-misere", private=True)
    holder = client_for()
    invite = f"?invite={match.invite_token}"
    replay = holder.get(reverse("history:replay", args=[match.pk]) + invite)
    assert replay.status_code == 200
    html = replay.content.decode()
    assert f'href="/matches/{match.pk}/{invite}"' in html  # its links keep the invite
    assert f'href="/matches/{match.pk}/export.json{invite}"' in html
    assert holder.get(reverse("history:export", args=[match.pk]) + invite).status_code == 200
    assert match.pk not in listed(holder.get("/history/" + invite))
    for wrong in ("?invite=" + match.invite_token[:-1], "?invite=", "?invite=%00"):
        assert holder.get(reverse("history:replay", args=[match.pk]) + wrong).status_code == 404
        assert holder.get(reverse("history:export", args=[match.pk]) + wrong).status_code == 404
    mine = client_for(people[0]).get(reverse("history:replay", args=[match.pk]) + "?invite=bogus")
    assert mine.status_code == 200 and "invite=bogus" not in mine.content.decode()  # a wrong one is not carried on


def replay_data(response) -> dict:
    html = response.content.decode()
    start = html.index('id="replay-data" type="application/json">') + len('id="replay-data" type="application/json">')
    return json.loads(html[start:html.index("</script>", start)])


def test_replay_page_embeds_every_position(played):
    match, _ = played("tictactoe-3player", seed=5)
    game = get_game(match.game)
    client = client_for()
    data = replay_data(client.get(f"/matches/{match.pk}/replay/"))
    assert data["ply"] == match.version == len(data["moves"])
    assert data["views"][-1] == game.view(game.state_from_json(match.state))
    actions = [m["action"] for m in data["moves"]]
    assert data["views"][3] == game.view(game.replay(actions[:3]))
    assert replay_data(client.get(f"/matches/{match.pk}/replay/", {"ply": 3}))["ply"] == 3
    assert replay_data(client.get(f"/matches/{match.pk}/replay/", {"ply": 999}))["ply"] == match.version
    assert replay_data(client.get(f"/matches/{match.pk}/replay/", {"ply": "x"}))["ply"] == match.version
    assert client.get("/matches/999999/replay/").status_code == 404


@pytest.mark.parametrize("url", ["/history/", "/history/?game=tictactoe-3player&player={me}&result=won",
                                 "/history/?page=2", "/players/{me}/"])
def test_page_queries_do_not_grow_with_the_matches(url, django_assert_max_num_queries):
    people = make_players(3)
    client = client_for(people[0])
    url = url.format(me=people[0].pk)
    counts, made = [], 0
    for total in (3, 30):
        for i in range(made, total):
            finished_match("tictactoe-3player", people, ["won", "lost", "lost"], scores=[100, 33, 0], minutes_ago=i)
        made = total
        with django_assert_max_num_queries(10) as captured:
            assert client.get(url).status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]


@pytest.mark.parametrize("player", ["abc", "99999999999999999999999", "0", "-3", "missing"])
def test_a_player_filter_naming_nobody_is_reported_not_silently_dropped(players, player):
    """A broken or stale "matches of this player" link (no number, beyond 64 bits, or a player
    who is not there) says so on the page, and the list shows every player's matches: before,
    it showed them as if they were that player's, without a word."""
    a, b, *_ = players
    finished_match("quarto-misere", [a, b], ["won", "lost"])
    if player == "missing":
        player = str(max(p.pk for p in players) + 1000)
    page = client_for().get("/history/", {"player": player})
    assert page.status_code == 200 and len(listed(page)) == 1
    assert page.context["form"].errors["player"] == ["There is no such player: showing every player's matches."]
    assert "There is no such player" in page.content.decode()


def test_a_match_of_rules_this_site_no_longer_has_is_listed_by_its_slug_and_shown_nowhere_else(players):
    """A finished match of a rule set since removed (or a damaged row): the lists and the
    player's page name it by its slug, and its replay, export and analysis say why they cannot
    show it (404); before, the lists were a 500 for everyone and so were those pages."""
    a, b, *_ = players
    known = finished_match("quarto-misere", [a, b], ["won", "lost"], minutes_ago=1)
    gone = finished_match("quarto-misere", [a, b], ["won", "lost"])
    Match.objects.filter(pk=gone.pk).update(game="no-such-game")
    client = client_for(a)
    for url in ("/history/", f"/players/{a.pk}/", f"/history/?player={a.pk}&result=won"):
        page = client.get(url)
        assert page.status_code == 200 and listed(page) == [gone.pk, known.pk]
        assert page.context["rows"][0]["game_name"] == "no-such-game"
        assert "no-such-game" in page.content.decode()
    why = "played under rules this site no longer has (no-such-game)"
    for url in (f"/matches/{gone.pk}/replay/", f"/matches/{gone.pk}/export.json", f"/matches/{gone.pk}/",
                f"/matches/{gone.pk}/positions/"):
        shown = client.get(url)
        assert shown.status_code == 404 and why in shown.content.decode(), url
    asked = client.post(f"/matches/{gone.pk}/analysis/", follow=True)
    assert why in asked.content.decode() and not Analysis.objects.filter(match=gone).exists()
    Analysis.objects.create(match=gone, requested_by=a, rounds=1, positions=10)  # one asked before the rules went
    answer = client.get(f"/matches/{gone.pk}/analysis.json")
    assert answer.status_code == 404 and answer.json()["code"] == "unknown_rules" and why in answer.json()["message"]


def meta(page: str, key: str) -> str | None:
    """The content of the page's <meta property|name="key">, or None."""
    found = re.search(rf'<meta (?:property|name)="{re.escape(key)}" content="([^"]*)"', page)
    return found[1] if found else None


def test_a_replay_carries_a_link_preview_with_the_result_and_the_position(players):
    match = finished_match("quarto-misere", players[:2], ["won", "lost"])
    page = Client().get(f"/matches/{match.pk}/replay/").content.decode()
    assert meta(page, "og:title") == "player 1 vs player 2 · Misère Quarto"
    assert meta(page, "og:description") == "player 1 won: test."
    assert meta(page, "og:image") == f"http://testserver/matches/{match.pk}/position.png?v={match.version}"
    assert meta(page, "twitter:card") == "summary_large_image"


def test_a_private_replay_previews_nothing_of_its_players(players):
    match = finished_match("quarto-misere", players[:2], ["won", "lost"], private=True)
    page = Client().get(f"/matches/{match.pk}/replay/?invite={match.invite_token}").content.decode()
    assert meta(page, "og:title") == "A private match" and meta(page, "og:image") is None
    assert "player 1" not in meta(page, "og:description")
