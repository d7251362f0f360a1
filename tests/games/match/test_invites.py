"""The words of an invitation that ended (pure)."""

import pytest

from games.match import invites


def test_each_ending_reads_for_the_friend_and_for_the_creator():
    by = {"id": 1, "name": "Ada"}
    assert invites.ended_text(invites.ending(invites.LEFT, by), creator=False) == \
        "This invitation ended: Ada left the site."
    assert invites.ended_text(invites.ending(invites.PLAYING, by), creator=False) == \
        "This invitation ended: Ada started another match."
    assert invites.ended_text(invites.ending(invites.LEFT, by), creator=True, grace_seconds=300) == \
        "Your invitation ended: you left the site for more than 5 minutes."
    assert invites.ended_text(invites.ending(invites.CALLED_OFF, None), creator=False) == \
        "This invitation ended: its creator called it off."


def test_the_grace_is_said_in_minutes_when_whole_and_unknown_endings_are_refused():
    assert [invites.grace_words(s) for s in (60, 300, 90, 1)] == ["1 minute", "5 minutes", "90 seconds", "1 second"]
    with pytest.raises(ValueError):
        invites.ending("vanished", None)
    assert "Ada" not in invites.reason(invites.LEFT)  # the abort's reason names nobody
