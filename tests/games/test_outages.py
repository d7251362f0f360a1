"""A channel layer that cannot be reached (Redis down): committed changes stay committed and
answered as such; the broadcast that failed is logged, and pages catch up by version."""

import pytest

from games import broadcast, services
from games.models import Match, Move
from tests.support.players import make_players, start_match

pytestmark = pytest.mark.django_db


class DownLayer:
    async def group_send(self, group, message):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


@pytest.fixture
def layer_down(monkeypatch):
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: DownLayer())


def test_creating_a_match_with_the_layer_down_answers_the_new_match_once(client, layer_down,
                                                                          django_capture_on_commit_callbacks, caplog):
    user, = make_players(1)
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/matches/new/", {"game": "quarto-misere", "role": "black"})
    match = Match.objects.get()  # exactly one: nothing to retry into a duplicate
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    assert "pages resync by version" in caplog.text


def test_a_move_with_the_layer_down_is_stored_and_reported_played(layer_down, django_capture_on_commit_callbacks):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    with django_capture_on_commit_callbacks(execute=True):
        played = services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)
    assert played.version == 1 and Move.objects.filter(match=match).count() == 1
