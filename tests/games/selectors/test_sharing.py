"""What a shared link shows (games/selectors/sharing.py): the preview's text for each state of a
match, nothing of a private one, and the picture kept per match and version."""

import pytest

from games import services
from games.selectors import sharing
from tests.support.players import make_players, start_match

pytestmark = pytest.mark.django_db

SITE = "https://boardhall.example/"


def preview(match):
    names = {s.role: s.player.display_name if s.player else None for s in match.seats.order_by("order")}
    return sharing.link_preview(match=match, names=names, to_move="xPlayer", page_url=f"{SITE}matches/{match.pk}/",
                                site=SITE)


def test_a_live_match_names_its_players_rule_set_and_who_moves():
    match = start_match("nine-board-tictactoe", make_players(2))
    shown = preview(match)
    assert shown["title"] == "player 1 vs player 2 · Nine-Board Tic-Tac-Toe"
    assert shown["description"] == "Live: player 1 to move. Casual, untimed."
    assert shown["image"] == f"{SITE}matches/{match.pk}/position.png?v=0"


def test_a_finished_match_gives_its_result():
    ada, bob = make_players(2)
    match = start_match("nine-board-tictactoe", [ada, bob])
    services.move_submit(match_id=match.pk, user=ada, action="(play 2 2 2 2 x)", version=0)
    services.move_submit(match_id=match.pk, user=bob, action="(play 2 2 1 1 o)", version=1)
    services.match_resign(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert preview(match)["description"] == "player 1 won: player 2 resigned."


def test_a_private_match_names_nobody_and_has_no_picture():
    match = start_match("nine-board-tictactoe", make_players(2), is_private=True)
    shown = preview(match)
    assert "player" not in shown["title"] + shown["description"] and shown["image"] is None
    assert sharing.position_picture(match_id=match.pk) is None


def test_the_picture_is_drawn_once_per_version(monkeypatch):
    ada, bob = make_players(2)
    match = start_match("nine-board-tictactoe", [ada, bob])
    drawn = []
    monkeypatch.setattr(sharing, "board_png", lambda view: drawn.append(view) or b"png")
    assert sharing.position_picture(match_id=match.pk) == (b"png", 0)
    assert sharing.position_picture(match_id=match.pk) == (b"png", 0)
    services.move_submit(match_id=match.pk, user=ada, action="(play 2 2 2 2 x)", version=0)
    assert sharing.position_picture(match_id=match.pk) == (b"png", 1)
    assert len(drawn) == 2


@pytest.mark.parametrize("match_id", [0, -1, 10**30, 999_999])
def test_no_picture_for_an_id_that_names_no_match(match_id):
    assert sharing.position_picture(match_id=match_id) is None
