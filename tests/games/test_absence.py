"""When a rated match stops waiting for a seat that does not play (``games.match.absence``)."""

import doctest

import pytest

from games.match import absence
from games.match.absence import LEFT, NEVER_BEGAN, PLAY_ON, verdict

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)


def test_the_docstring_examples_hold():
    result = doctest.testmod(absence)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("turns, expected", [
    ([], PLAY_ON),  # a first slip is forgiven
    ([False], NEVER_BEGAN),  # its first two turns: never a move of its own
    ([True], PLAY_ON),
    ([False, True], PLAY_ON),  # it began late, and plays
    ([False, True, False], PLAY_ON),
    ([False, True, False, False], LEFT),  # three in a row after a move of its own
    ([True, False, False, True, False, False], LEFT),
    ([True, False, True, False, True, False], PLAY_ON),  # slips now and then, never three in a row
])
def test_a_seat_never_began_or_left_only_when_it_never_played_or_stopped(turns, expected):
    assert verdict(turns) == expected
