"""Who may see a match is one rule, the same on every page and call that shows one: the match
page and its positions, the replay, the export, the analysis (its JSON and its button) and the
bot API's reads."""

import pytest

from games import services
from games.models import Match
from tests.botapi.support import call, token_for
from tests.games.history.test_history_views import client_for
from tests.support.players import make_accounts, play_out, start_match

pytestmark = pytest.mark.django_db


def answers(user, match_id: int) -> dict[str, int]:
    """The status each surface answers ``user`` for the match ``match_id``."""
    client = client_for(user)
    pages = {
        "match": client.get(f"/matches/{match_id}/").status_code,
        "positions": client.get(f"/matches/{match_id}/positions/").status_code,
        "replay": client.get(f"/matches/{match_id}/replay/").status_code,
        "export": client.get(f"/matches/{match_id}/export.json").status_code,
        "analysis": client.get(f"/matches/{match_id}/analysis.json").status_code,
    }
    if user is not None:
        secret = token_for(user)
        pages["api"] = call(secret, f"/matches/{match_id}", method="get").status_code
        pages["api analysis"] = call(secret, f"/matches/{match_id}/analysis", method="get").status_code
    return pages


@pytest.fixture
def kept_rematch():
    """A private rematch offered by Ada, waiting with its seat kept for Bob (not yet taken);
    Cy played neither match."""
    ada, bob, cy = make_accounts(3, "vis")
    first = play_out(start_match("nine-board-tictactoe", [ada, bob], is_private=True), [ada, bob], seed=3)
    rematch = services.rematch_offer(match_id=first.pk, user=ada)
    assert rematch.status == Match.Status.WAITING and rematch.seats.filter(reserved_for=bob, player=None).exists()
    return rematch, ada, bob, cy


def test_the_player_a_rematch_seat_is_kept_for_sees_it_on_every_page(kept_rematch):
    """Before, the match page admitted Bob (the seat kept for him) and the replay, export and
    analysis refused him with a 404 as if the match were not there."""
    rematch, ada, bob, _ = kept_rematch
    seen = answers(bob, rematch.pk)
    assert seen == answers(ada, rematch.pk)
    # every page opens; the analysis says the match is still in play, as it says to Ada
    assert seen == {"match": 200, "positions": 200, "replay": 200, "export": 200, "analysis": 409,
                    "api": 200, "api analysis": 409}


def test_a_stranger_is_refused_a_private_match_the_same_way_everywhere(kept_rematch):
    rematch, ada, _, cy = kept_rematch
    for match in (rematch, rematch.rematch_of):
        for stranger in (None, cy):
            refused = answers(stranger, match.pk)
            assert set(refused.values()) == {404}, refused
        # and the same 404 as a match that is not there
        assert set(answers(cy, 999_999).values()) == {404}
        assert client_for(cy).post(f"/matches/{match.pk}/analysis/").status_code == 404
