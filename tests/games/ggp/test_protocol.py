"""The GGP protocol's texts and the reading of answers (pure)."""

import pytest

from games.ggp import protocol

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)


def test_the_messages_have_the_protocols_forms():
    assert protocol.info() == "(INFO)"
    assert protocol.start("boardhall.7", "xplayer", "(role xplayer) (role oplayer)", 30, 10) == \
        "(START boardhall.7 xplayer ((role xplayer) (role oplayer)) 30 10)"
    assert protocol.play("boardhall.7", None) == "(PLAY boardhall.7 nil)"
    assert protocol.play("boardhall.7", ["noop", "(mark 1 2)"]) == "(PLAY boardhall.7 (noop (mark 1 2)))"
    assert protocol.stop("boardhall.7", ["(mark 3 3)", "noop"]) == "(STOP boardhall.7 ((mark 3 3) noop))"
    assert protocol.abort("boardhall.7") == "(ABORT boardhall.7)"
    assert protocol.MATCH_ID.fullmatch(protocol.match_id(42))


@pytest.mark.parametrize("text, expected", [
    ("available", ("available", None)), ("BUSY", ("busy", None)), ("ready", ("available", None)),
    ("((name egghead) (status available))", ("available", "egghead")),
    ("((status busy) (name x))", ("busy", "x")), ("((name solo))", ("available", "solo")),
])
def test_info_answers_are_read(text, expected):
    assert protocol.read_info(text) == expected


@pytest.mark.parametrize("text", ["", "gone", "(((", "a b", ")"])
def test_an_info_answer_that_is_not_one_is_refused(text):
    with pytest.raises(protocol.AnswerError):
        protocol.read_info(text)


def test_moves_are_normalised_and_bad_ones_refused():
    assert protocol.read_move(" ( mark\n 1  2 ) ") == "(mark 1 2)"
    assert protocol.read_move("NOOP") == "NOOP"
    assert protocol.read_move("(play 1 1 (k) 2)") == "(play 1 1 (k) 2)"
    for bad in ["(mark 1", "(a) (b)", "", "(" + "x " * 200 + ")"]:
        with pytest.raises(protocol.AnswerError):
            protocol.read_move(bad)


def test_ready_and_done_are_words():
    assert protocol.read_word("READY", "ready", "busy") == "ready"
    assert protocol.read_word("busy", "ready", "busy") == "busy"
    with pytest.raises(protocol.AnswerError):
        protocol.read_word("(ready)", "ready")
