"""Canonical actions: every rule set accepts an action only in its ASCII spelling, with GDL's
latitude (ASCII whitespace, case), and refuses every other spelling as ``not_an_action``."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import SLUGS, get_game
from games.rules.base import MAX_ACTION_LENGTH, NotAnAction, gdl_fold
from tests.games.rules.test_properties import action_space, choices, random_game

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

DIGIT_LOOKALIKES = {"arabic-indic": 0x0660, "fullwidth": 0xFF10, "devanagari": 0x0966, "math bold": 0x1D7CE}
ODD_SPACES = ["\u3000", "\u00a0", "\u2009", "\u200b", "\x0b", "\x0c", "\x1f", "\x00"]


def odd_spellings(action: str) -> list[str]:
    """``action`` with a Unicode space, another script's digit, a leading zero, or padding."""
    spellings = [action.replace(" ", space, 1) for space in ODD_SPACES if " " in action]
    digit = re.search(r"(?<![0-9p])[0-9]", action)
    if digit:
        at = digit.start()
        spellings += [action[:at] + chr(base + int(action[at])) + action[at + 1:] for base in DIGIT_LOOKALIKES.values()]
        spellings += [action[:at] + "0" + action[at:], action[:at] + "+" + action[at:]]
    spellings += [action + " " * (MAX_ACTION_LENGTH + 1 - len(action)), action[:-1] + " " * 40 + ")"]
    return spellings


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=15, deadline=None)
@given(picks=choices)
def test_legal_actions_are_canonical_and_odd_spellings_are_refused(slug, picks):
    game = get_game(slug)
    states, actions = random_game(game, picks)
    for state, action in zip(states, actions):
        mover = game.to_move(state)
        assert game.canonical_action(action) == action
        for odd in odd_spellings(action):
            with pytest.raises(NotAnAction) as info:
                game.play(state, mover, odd)
            assert info.value.code == "not_an_action", (odd, info.value.code)
            with pytest.raises(NotAnAction):
                game.canonical_action(odd)


@pytest.mark.parametrize("slug", SLUGS)
def test_gdl_latitude_is_folded_to_the_canonical_text(slug):
    game = get_game(slug)
    for action in action_space(game)[:40]:
        loose = "  " + action.upper().replace(" ", " \t ").replace("(", "( \n").replace(")", " )") + " "
        if len(loose) <= MAX_ACTION_LENGTH:
            assert game.canonical_action(loose) == action


@pytest.mark.parametrize("slug", SLUGS)
def test_the_move_list_stores_what_play_accepted(slug):
    game = get_game(slug)
    state = game.initial_state()
    action = game.legal_actions(state)[0]
    loose = action.upper().replace(" ", "  ")
    assert game.play(state, game.to_move(state), loose) == game.play(state, game.to_move(state), action)


@pytest.mark.parametrize("value", [None, 7, ["(mark 1 1)"], b"(mark 1 1)", "x" * 41, "(mark ١ 1)", ""])
def test_what_is_not_ascii_text_of_at_most_40_characters_is_not_an_action(value):
    game = get_game("tictactoe-3player")
    with pytest.raises(NotAnAction) as info:
        game.play(game.initial_state(), "xplayer", value)
    assert info.value.code == "not_an_action" and str(info.value)


@given(st.text(max_size=60))
def test_folding_never_lets_non_ascii_or_long_text_through(text):
    try:
        folded = gdl_fold(text)
    except NotAnAction:
        return
    assert folded.isascii() and len(folded) <= len(text) <= MAX_ACTION_LENGTH
    assert gdl_fold(folded) == folded
