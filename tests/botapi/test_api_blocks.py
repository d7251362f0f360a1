"""A block over the bot API (botapi/api.py): a challenge between the two players is refused
with the service's code and message."""

import pytest

from games.models import Challenge
from social import services as social
from tests.botapi.support import call, token_for
from tests.support.players import make_accounts

pytestmark = pytest.mark.django_db(transaction=True)  # the call is async: its reads run on another thread


def test_a_challenge_to_a_player_who_blocked_you_is_refused_over_the_api():
    program, person = make_accounts(2, "api")
    social.block_create(user=person, player_id=program.pk)
    refused = call(token_for(program), "/challenges", {"to": person.pk, "game": "quarto-misere"})
    assert refused.status_code == 400, refused.content
    assert refused.json()["code"] == "blocked" and "does not accept challenges from you" in refused.json()["message"]
    assert not Challenge.objects.exists()
