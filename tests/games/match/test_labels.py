"""Roles are shown by mark or colour, people by their names (games.match.labels)."""

import pytest

from games.match.labels import result_sentence, role_label, with_names

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)


def test_every_role_has_a_label_and_none_is_a_rules_name():
    from games.rules import GAMES

    for info in GAMES:
        for role in info.roles:
            assert role_label(role) != role and "player" not in role_label(role).lower()


def test_reasons_name_the_players_and_only_whole_role_words():
    names = {"white": "Ada", "black": "Bob"}
    assert with_names("white resigned", names) == "Ada resigned"
    assert with_names("the board is full: a draw", names) == "the board is full: a draw"
    assert with_names("xPlayer completed a line", {"xPlayer": None}) == "X completed a line"


def test_result_sentences():
    seats = {"xPlayer": "Ada", "oPlayer": "Bob"}
    assert result_sentence({"winners": ["oPlayer"], "draw": False, "reason": "xPlayer resigned"}, seats) \
        == "Bob won: Ada resigned."
    assert result_sentence({"winners": [], "draw": True, "reason": "the board is full"}, seats) \
        == "A draw: the board is full."


def test_a_result_names_the_winner_once_when_the_reason_starts_with_them():
    seats = {"xPlayer": "Ada", "oPlayer": "Bob"}
    line = {"winners": ["xPlayer"], "draw": False, "reason": "xPlayer completed a line of x in sub-board B2"}
    assert result_sentence(line, seats) == "Ada completed a line of x in sub-board B2 and won."
    four = {"winners": ["oplayer"], "draw": False, "reason": "oplayer made four in a row; zplayer resigned"}
    assert result_sentence(four, {"oplayer": "Otto", "zplayer": "Zoe"}) == "Otto made four in a row and won; Zoe resigned."
    quarto = {"winners": ["black"], "draw": False,
              "reason": "white completed row 1 of short and light pieces, which loses"}
    assert result_sentence(quarto, {"white": "Ada", "black": "Bob"}) \
        == "Bob won: Ada completed row 1 of short and light pieces, which loses."


def test_a_shared_win_names_the_winners_once_and_says_what_each_score_means():
    names = {"xplayer": "Ada", "oplayer": "Bob", "zplayer": "Cy"}
    full = {"winners": ["xplayer", "zplayer"], "draw": False,
            "reason": "xplayer and zplayer made three in a row on a full board with no four (66 points each); "
                      "oplayer made no three (33 points)"}
    assert result_sentence(full, names) == ("Ada and Cy made three in a row on a full board with no four "
                                            "(66 points each) and share the win; Bob made no three (33 points).")
