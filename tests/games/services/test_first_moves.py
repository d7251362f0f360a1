"""A match that never began is not rated (lichess's rule): until every seat, the computer's
too, has made its first move, every ending aborts the match, with its reason, for two players
and three; real-time first moves have ``FIRST_MOVE_SECONDS``."""

import pytest
from django.test import override_settings

from games import selectors, services
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import Match, Rating
from games.rules import get_game
from tests.games.services.test_services import leave
from tests.support.players import make_accounts, make_players, play_first_moves, play_out, start_match

pytestmark = pytest.mark.django_db

REAL_TIME = TimeControl(base=60)


def end(path: str, match: Match, seated: list, fake_time) -> None:
    """The second seat (which has not moved) leaves play by ``path``; the first seat has moved."""
    first, second = seated[0], seated[1]
    if path == "resign":
        services.match_resign(match_id=match.pk, user=second)
    elif path == "resign_after_moving":
        services.match_resign(match_id=match.pk, user=first)
    elif path == "claim":
        leave(match, second, 120)
        services.match_claim(match_id=match.pk, user=first)
    elif path == "claim_draw":  # with three too: before every seat moved it is not "a third plays on"
        leave(match, second, 120)
        services.match_claim_draw(match_id=match.pk, user=first)
    elif path == "depart":
        services.player_depart(user=second)
    elif path == "flag":
        fake_time.advance(30)
        assert services.clock_flag(match_id=match.pk) is None


REASONS = {"resign": "{second} resigned before moving", "resign_after_moving": "{first} resigned before every player had moved",
           "claim": "{second} left the match before moving", "claim_draw": "{second} left the match before moving",
           "depart": "{second} left the site before moving", "flag": "{second} ran out of time before moving"}


@override_settings(ABANDON_SECONDS=60)
@pytest.mark.parametrize("path", list(REASONS))
@pytest.mark.parametrize("slug", ["nine-board-tictactoe", "tictactoe-3player"])
def test_every_ending_before_every_seat_moved_aborts_the_rated_match(slug, path, fake_time):
    roles = get_game(slug).roles
    seated = make_accounts(len(roles))
    match = start_match(slug, seated, rated=True, time_control=REAL_TIME if path == "flag" else TimeControl())
    match = play_out(match, seated, max_moves=1)  # the first seat has moved, the second not
    end(path, match, seated, fake_time)
    match.refresh_from_db()
    reason = REASONS[path].format(first=roles[0], second=roles[1])
    assert match.status == Match.Status.ABORTED and match.deadline is None and match.offers == ""
    assert match.result == {"aborted": True, "reason": reason}
    assert selectors.match_snapshot(match=match)["result"]["reason"] == reason  # what every page shows
    seats = list(match.seats.values_list("resigned", "outcome", "score", "rating_after"))
    assert seats == [(False, "", None, None)] * len(roles)
    assert not Rating.objects.exists()  # no rating, so no leaderboard entry
    assert services.clock_sweep() == 0


@pytest.mark.parametrize("slug", ["nine-board-tictactoe", "tictactoe-3player"])
def test_once_every_seat_moved_endings_count_again(slug):
    roles = get_game(slug).roles
    seated = make_accounts(len(roles))
    match = play_first_moves(start_match(slug, seated, rated=True), seated)
    assert_refused_abort = pytest.raises(services.ServiceError, match="no longer be aborted")
    with assert_refused_abort:
        services.match_abort(match_id=match.pk, user=seated[0])
    for player in seated[1:]:
        services.match_resign(match_id=match.pk, user=player)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result["winners"] == [roles[0]]
    assert Rating.objects.filter(games=1).count() == len(roles)


@pytest.mark.django_db(transaction=True)  # the computer plays on commit
@override_settings(COMPUTER_WORKERS="inline", COMPUTER_ITERATIONS=20)
def test_the_computers_seat_counts_and_its_move_is_its_first():
    human, = make_players(1)
    match = services.match_create(user=human, settings=MatchSettings("nine-board-tictactoe"), role="oPlayer",
                                  against_computer=True, computer_level=1)
    match.refresh_from_db()
    assert match.plies == 1  # the computer opened: only the human has not moved
    services.match_resign(match_id=match.pk, user=human)
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.result["reason"] == "oPlayer resigned before moving"

    first = services.match_create(user=human, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer",
                                  against_computer=True, computer_level=1)
    first = play_out(Match.objects.get(pk=first.pk), [human, None], max_moves=1)  # the computer answers
    assert first.plies == 2
    services.match_resign(match_id=first.pk, user=human)
    first.refresh_from_db()
    assert first.status == Match.Status.FINISHED and first.result["winners"] == ["oPlayer"]
