"""A stored result's reason worded in the reader's language (games/match/reasons.py)."""

import re

import pytest
from django.utils import translation

from games.match.labels import abort_sentence, result_sentence
from games.match.reasons import CLAUSES, reason_table, reason_words

pytestmark = pytest.mark.pure

# Reasons as the rules and the services store them, one or more for every clause of the table.
STORED = [
    "xPlayer completed a line of x in sub-board B2",
    "all 81 cells are full without a line: a draw",
    "the board is full and no line shares an attribute: a draw",
    "white completed row 2 of tall and dark pieces, which loses",
    "black completed column c of round pieces, which loses",
    "white completed the diagonal a1-d4 of short and light pieces, which loses",
    "a random move for oplayer made four in a row; xplayer has three in a row (66 points); zplayer resigned",
    "xplayer made four in a row (100 points); oplayer and zplayer have three in a row (66 points each)",
    "xplayer made four in a row (100 points); oplayer has no three (0 points)",
    "xplayer made four in a row (100 points); oplayer and zplayer have no three (0 points)",
    "xplayer made three in a row on a full board with no four (66 points); oplayer and zplayer made no three "
    "(33 points each)",
    "xplayer and zplayer made three in a row on a full board with no four (66 points each); oplayer made no three "
    "(33 points)",
    "the board is full and nobody has three in a row (33 points each)",
    "the board is full and nobody still playing has three in a row (33 points); xplayer resigned and zplayer left "
    "the site",
    "the board is full and nobody still playing has three in a row (33 points each); zplayer ran out of time",
    "oPlayer resigned", "xplayer and zplayer resigned", "red ran out of time", "drawn by agreement",
    "white left the match and it was called a draw", "black left the match and the win was claimed",
    "xPlayer resigned before moving", "oPlayer ran out of time before moving", "red left the match before moving",
    "blue left the site before moving", "xplayer resigned before every player had moved",
    "xplayer ran out of time before every player had moved", "xplayer left the match before every player had moved",
    "xplayer left the site before every player had moved", "white aborted it before every player had moved",
    "the rematch offer was declined", "the invitation ended: its players left the site",
    "its creator called the invitation off", "the invitation ended: its creator left the site",
    "the invitation ended: its creator started another match",
    "xplayer made no move of its own in its first 3 turns", "the server lost oplayer's answers in 5 turns",
    "zplayer ran out of time: no move of its own in 3 turns in a row",
]


def test_every_clause_of_the_table_is_met_by_a_stored_reason():
    clauses = [clause for reason in STORED for clause in reason.split("; ")]
    for pattern, _sentence in CLAUSES:
        assert any(re.fullmatch(pattern, clause) for clause in clauses), pattern


@pytest.mark.parametrize("reason", STORED)
def test_in_english_a_reason_reads_as_stored(reason):
    """Each sentence of the table says in English what its pattern matches."""
    with translation.override("en"):
        assert reason_words(reason) == reason


@pytest.mark.parametrize("reason", STORED)
def test_in_german_every_clause_is_worded_and_the_roles_kept(reason):
    with translation.override("de"):
        worded = reason_words(reason)
    for clause, said in zip(reason.split("; "), worded.split("; "), strict=True):
        assert said != clause
        roles = re.findall(r"\b(?:[xoz]Player|[xoz]player|red|blue|white|black)\b", clause)
        assert all(role in said for role in roles), (clause, said)


def test_three_shared_attributes_read_as_a_list():
    reason = "white completed the diagonal d1-a4 of short and light and hollow pieces, which loses"
    with translation.override("en"):
        assert reason_words(reason) == "white completed the diagonal d1-a4 of short, light and hollow pieces, which loses"
    with translation.override("de"):
        assert "klein, hell und hohl" in reason_words(reason)


def test_an_unknown_clause_is_shown_as_stored():
    with translation.override("de"):
        assert reason_words("drawn by agreement; the moon fell") == "Remis nach Vereinbarung; the moon fell"
        assert reason_words("") == ""


def test_the_sentences_name_the_players_in_the_language():
    with translation.override("fr"):
        assert result_sentence({"winners": ["oPlayer"], "draw": False, "reason": "xPlayer resigned"},
                               {"xPlayer": "Ada", "oPlayer": "Bob"}) == "Bob a gagné : Ada a abandonné."
        assert abort_sentence({"reason": "red resigned before moving"}, {"red": None}, rated=True) \
            == "Annulée : non classée. Rouge a abandonné avant de jouer."
    with translation.override("es"):
        quarto = {"winners": ["black"], "draw": False, "reason": "white completed row 1 of tall and dark pieces, which loses"}
        assert result_sentence(quarto, {"white": "Ada", "black": "Bob"}) \
            == "Bob ganó: Ada completó la fila 1 con piezas todas altas y oscuras, y eso pierde."


def test_the_scripts_table_is_in_javascripts_spelling_and_the_language():
    with translation.override("de"):
        table = reason_table()
    assert all("(?P<" not in pattern for pattern, _sentence in table["clauses"])
    assert table["and"] == "%(first)s und %(last)s" and table["traits"]["tall"] == "groß"
