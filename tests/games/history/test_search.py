"""History search (games/history/selectors.py, forms.py, views.py): a player's and an opponent's
name by its start, a range of days, with game, player and result; bad input is reported on the
page and ignored, never a 500."""

from datetime import datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.history.selectors import HistoryFilters, history_matches
from games.models import Match, Outcome, Seat
from games.rules import get_game
from lobby.services import guest_create

pytestmark = pytest.mark.django_db

GAME = "nine-board-tictactoe"


def finished(game_slug: str, players: list, outcomes: list[str], *, on: datetime, private: bool = False) -> Match:
    """A finished match row with its seats, finished at ``on``."""
    game = get_game(game_slug)
    match = Match.objects.create(game=game_slug, status=Match.Status.FINISHED, is_private=private,
                                 created_by=players[0], state=game.state_to_json(game.initial_state()),
                                 started_at=on - timedelta(minutes=5), finished_at=on,
                                 result={"winners": [], "reason": "test", "line": []})
    Seat.objects.bulk_create([Seat(match=match, role=role, order=i, player=player, outcome=outcome)
                              for i, (role, player, outcome) in enumerate(zip(game.roles, players, outcomes))])
    return match


@pytest.fixture
def hall():
    """Four players and four matches on three days."""
    ada, adam, bo, cy = (guest_create(display_name=name) for name in ("Ada Lovelace", "Adam", "Bo", "Cy"))
    day = timezone.make_aware(datetime(2026, 3, 10, 12, 0))
    matches = {
        "ada-bo": finished(GAME, [ada, bo], [Outcome.WON, Outcome.LOST], on=day),
        "adam-cy": finished(GAME, [adam, cy], [Outcome.LOST, Outcome.WON], on=day + timedelta(days=1)),
        "bo-cy": finished("quarto-misere", [bo, cy], [Outcome.DRAWN, Outcome.DRAWN], on=day + timedelta(days=2)),
        "cy-ada": finished("quarto-misere", [cy, ada], [Outcome.LOST, Outcome.WON], on=day + timedelta(days=2)),
    }
    return {"ada": ada, "adam": adam, "bo": bo, "cy": cy}, {m.pk: name for name, m in matches.items()}


def found(hall, **filters) -> set[str]:
    players, names = hall
    return {names[m.pk] for m in history_matches(user=players["bo"], filters=HistoryFilters(**filters))}


def test_a_name_s_start_finds_every_player_it_begins_whatever_the_case(hall):
    assert found(hall, name="ad") == {"ada-bo", "adam-cy", "cy-ada"}
    assert found(hall, name="ADA L") == {"ada-bo", "cy-ada"}  # spacing folded, as names are compared
    assert found(hall, name="zed") == set()


def test_the_result_applies_to_the_named_player(hall):
    assert found(hall, name="ad", result=Outcome.WON) == {"ada-bo", "cy-ada"}
    assert found(hall, name="adam", result=Outcome.WON) == set()


def test_an_opponent_s_name_alone_or_against_a_player(hall):
    players, _ = hall
    assert found(hall, opponent="cy") == {"adam-cy", "bo-cy", "cy-ada"}
    assert found(hall, player_id=players["cy"].pk, opponent="c") == set()  # never the player themselves
    assert found(hall, player_id=players["cy"].pk, opponent="ad") == {"adam-cy", "cy-ada"}
    assert found(hall, name="bo", opponent="ada") == {"ada-bo"}


def test_a_range_of_days_with_a_game(hall):
    first = datetime(2026, 3, 10).date()
    assert found(hall, since=first + timedelta(days=1)) == {"adam-cy", "bo-cy", "cy-ada"}
    assert found(hall, until=first) == {"ada-bo"}
    assert found(hall, since=first + timedelta(days=1), until=first + timedelta(days=1)) == {"adam-cy"}
    assert found(hall, since=first, game="quarto-misere", name="cy") == {"bo-cy", "cy-ada"}


def test_a_private_match_stays_hidden_from_a_search(hall):
    players, names = hall
    secret = finished(GAME, [players["ada"], players["adam"]], [Outcome.WON, Outcome.LOST],
                      on=timezone.now(), private=True)
    names[secret.pk] = "secret"
    assert "secret" not in found(hall, name="ada")


def rows_of(response) -> list[int]:
    return [row["id"] for row in response.context["rows"]]


def test_the_page_searches_by_each_filter(hall):
    players, names = hall
    client = Client()
    by_name = client.get("/history/", {"name": "adam"})
    assert by_name.status_code == 200 and [names[i] for i in rows_of(by_name)] == ["adam-cy"]
    by_opponent = client.get("/history/", {"player": players["cy"].pk, "opponent": "bo"})
    assert [names[i] for i in rows_of(by_opponent)] == ["bo-cy"]
    by_days = client.get("/history/", {"since": "2026-03-12", "until": "2026-03-12", "game": "quarto-misere",
                                       "name": "a", "result": "won"})
    assert [names[i] for i in rows_of(by_days)] == ["cy-ada"]
    page = client.get("/history/", {"name": "ad"}).content.decode()
    assert 'name="name"' in page and 'value="ad"' in page and 'name="opponent"' in page and 'type="date"' in page


@pytest.mark.parametrize("query, field, says, left", [
    ({"since": "2026-13-45"}, "since", "YYYY-MM-DD", 4),
    ({"until": "yesterday"}, "until", "YYYY-MM-DD", 4),
    ({"since": "2026-03-12", "until": "2026-03-10"}, "until", "swap them", 2),  # from the 12th still applies
    ({"name": "x" * 31}, "name", "at most 30", 4),
    ({"opponent": "a\x00b"}, "opponent", "Null characters", 4),
    ({"result": "won"}, "result", "Pick a player first", 4),
])
def test_bad_input_is_reported_and_ignored_never_a_500(hall, query, field, says, left):
    response = Client().get("/history/", query)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert field in errors and says in " ".join(errors[field]), errors
    assert f'data-field="{field}"' in response.content.decode()
    assert len(rows_of(response)) == left  # the bad filter is left out; the others apply
