"""When a rated match stops waiting for a seat that does not play (``games.match.absence``)."""

import doctest

import pytest

from games.match import absence
from games.match.absence import LEFT, LOST, NEVER_BEGAN, OWN, PLAY_ON, SERVER_FAILED, SERVER_LOST, verdict

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)


def test_the_docstring_examples_hold():
    result = doctest.testmod(absence)
    assert result.attempted > 0 and result.failed == 0


def turns(*own: bool | str, length: int = 1) -> list[tuple[int, str]]:
    """A seat's plies for turns of ``length`` plies each (2: Quarto), every other turn the seat's:
    the plies of the seat's turn n are a move of its own if own[n] is true, a miss if false, else
    played for that reason (``LOST``); the last turn's last ply is the one to replace."""
    return [(2 * length * n + k, _reason(mine)) for n, mine in enumerate(own) for k in range(length)]


def _reason(own: bool | str) -> str:
    return own if isinstance(own, str) else OWN if own else "late"


@pytest.mark.parametrize("length", [1, 2])
@pytest.mark.parametrize("own, expected", [
    ((False,), PLAY_ON),  # a first slip is forgiven
    ((False, False), NEVER_BEGAN),  # its first two turns: never a move of its own
    ((True, False), PLAY_ON),
    ((False, True, False), PLAY_ON),  # it began late, and plays
    ((False, True, False, False), PLAY_ON),
    ((False, True, False, False, False), LEFT),  # three in a row after a move of its own
    ((True, False, False, True, False, False, False), LEFT),
    ((True, False, True, False, True, False), PLAY_ON),  # slips now and then, never three in a row
])
def test_a_seat_never_began_or_left_only_when_it_never_played_or_stopped(own, expected, length):
    assert verdict(turns(*own, length=length)) == expected


def test_a_turn_with_a_move_of_its_own_in_it_is_its_own():
    """Quarto: the seat chose its piece itself, then its placing was played at random."""
    assert verdict([(1, "late"), (2, "late"), (5, OWN), (6, "late")]) == PLAY_ON
    assert verdict([(1, OWN), (2, "late"), (5, "silent"), (6, "late"), (9, "illegal"), (13, "late")]) == LEFT


@pytest.mark.parametrize("length", [1, 2])
@pytest.mark.parametrize("own, expected", [
    ((LOST, LOST, False), PLAY_ON),  # the server's losses are not the seat's misses...
    ((True, False, False, LOST, LOST), PLAY_ON),
    ((LOST, False, LOST, False), NEVER_BEGAN),  # ...nor its moves...
    ((True, False, LOST, False, LOST, False), LEFT),  # ...nor do they break a run of misses
])
def test_turns_the_server_lost_count_neither_as_the_seats_moves_nor_as_its_misses(own, expected, length):
    assert verdict(turns(*own, length=length)) == expected


@pytest.mark.parametrize("length", [1, 2])
@pytest.mark.parametrize("own, expected", [
    ((LOST,) * (SERVER_LOST - 1), PLAY_ON),
    ((LOST,) * SERVER_LOST, SERVER_FAILED),  # the server would play its turns to the end: called off
    ((True, LOST, True, LOST, False, True, LOST), SERVER_FAILED),  # in a row or not
    ((LOST, LOST, True, True, True, True), PLAY_ON),
    ((False, LOST, LOST), PLAY_ON),  # only the server's loss just now can reach the cap
])
def test_a_rated_match_is_called_off_once_the_server_lost_a_seats_answers_in_so_many_turns(own, expected, length):
    assert verdict(turns(*own, length=length)) == expected


def test_two_lost_plies_of_one_quarto_turn_are_one_turn_the_server_lost():
    """The server lost the choosing and the placing of one turn: one turn, not two."""
    assert verdict([(1, LOST), (2, LOST), (5, LOST), (6, LOST)]) == PLAY_ON
    assert verdict([(1, LOST), (2, LOST), (5, LOST), (6, LOST), (9, LOST)]) == SERVER_FAILED
