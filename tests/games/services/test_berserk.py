"""Berserk (games/services/berserk.py): a player halves their own real-time clock before their
first move, once; the match's version grows so that pages and the move path see the new clock;
refused (changing nothing) in other time controls, after one's first move, or for a watcher."""

from __future__ import annotations

import pytest
from django.db import transaction

from games import services
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.models import Match
from games.rules import get_game
from games.services.berserk import clock_berserk
from tests.support.players import make_players, start_match

pytestmark = pytest.mark.django_db(transaction=True)
GAME = "nine-board-tictactoe"
X, O = get_game(GAME).roles


def berserk(match, user) -> str:
    with transaction.atomic():
        return clock_berserk(match_id=match.pk, user=user)


def test_berserk_halves_ones_own_time_and_the_moves_go_on_from_the_new_version():
    ann, bob = make_players(2)
    match = start_match(GAME, [ann, bob], time_control=TimeControl(base=300, increment=3))
    assert berserk(match, bob) == O
    after = Match.objects.get(pk=match.pk)
    assert after.clock["remaining"] == {X: 300_000, O: 150_000} and after.version == match.version + 1
    state = get_game(GAME).state_from_json(after.state)
    services.move_submit(match_id=match.pk, user=ann, action=get_game(GAME).legal_actions(state)[0],
                         version=after.version)
    assert Match.objects.get(pk=match.pk).clock["remaining"][O] == 150_000


@pytest.mark.parametrize("time_control", [TimeControl(), TimeControl(days=1)])
def test_no_berserk_without_a_real_time_clock(time_control):
    ann, bob = make_players(2)
    match = start_match(GAME, [ann, bob], time_control=time_control)
    with pytest.raises(ServiceError) as refused:
        berserk(match, ann)
    assert refused.value.code == "no_berserk"
    assert Match.objects.get(pk=match.pk).version == match.version


def test_berserk_once_before_ones_first_move_and_only_for_a_player():
    ann, bob, cat = make_players(3)
    match = start_match(GAME, [ann, bob], time_control=TimeControl(base=60))
    with pytest.raises(ServiceError) as refused:
        berserk(match, cat)
    assert refused.value.code == "not_seated"
    berserk(match, ann)
    with pytest.raises(ServiceError) as refused:
        berserk(match, ann)
    assert refused.value.code == "already_berserk"
    match.refresh_from_db()
    state = get_game(GAME).state_from_json(match.state)
    services.move_submit(match_id=match.pk, user=ann, action=get_game(GAME).legal_actions(state)[0],
                         version=match.version)
    match.refresh_from_db()
    state = get_game(GAME).state_from_json(match.state)
    services.move_submit(match_id=match.pk, user=bob, action=get_game(GAME).legal_actions(state)[0],
                         version=match.version)
    with pytest.raises(ServiceError) as refused:
        berserk(match, bob)
    assert refused.value.code == "berserk_too_late"
