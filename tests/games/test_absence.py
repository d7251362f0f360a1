"""When a rated match stops waiting for a seat that does not play (``games.match.absence``)."""

import doctest

import pytest

from games.match import absence
from games.match.absence import LEFT, NEVER_BEGAN, PLAY_ON, verdict

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)


def test_the_docstring_examples_hold():
    result = doctest.testmod(absence)
    assert result.attempted > 0 and result.failed == 0


def turns(*own: bool, length: int = 1) -> list[tuple[int, bool]]:
    """A seat's plies for turns of ``length`` plies each (2: Quarto), every other turn the seat's:
    the plies of the seat's turn n are own[n] (the last turn's last ply is the one to replace)."""
    return [(2 * length * n + k, mine) for n, mine in enumerate(own) for k in range(length)]


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
    assert verdict([(1, False), (2, False), (5, True), (6, False)]) == PLAY_ON
    assert verdict([(1, True), (2, False), (5, False), (6, False), (9, False), (13, False)]) == LEFT
