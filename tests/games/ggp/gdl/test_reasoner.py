"""The clingo reasoner on small hand-written sheets: GDL's connectives, odd names, both ways of
solving (externals over base/input, and grounding afresh), and clear refusals."""

import pytest

from games.ggp.gdl.reasoner import GdlError, Reasoner

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

COUNTER = """
(role Alice) (role bob)
(init (count 0))
(succ 0 1) (succ 1 2) (succ 2 3)
(<= (base (count ?n)) (succ ?n ?m))
(base (count 3))
(<= (input ?r noop) (role ?r))
(input Alice inc) (input Alice (add-two))
(<= (legal Alice inc) (true (count ?n)) (not (true (count 3))))
(<= (legal Alice (add-two)) (true (count ?n)) (succ ?n ?m) (succ ?m ?k))
(<= (legal ?r noop) (role ?r) (distinct ?r Alice))
(<= (next (count ?m)) (true (count ?n)) (succ ?n ?m) (or (does Alice inc) (and (does bob noop) (does Alice zzz))))
(<= (next (count ?k)) (true (count ?n)) (succ ?n ?m) (succ ?m ?k) (does Alice (add-two)))
(<= at-end (true (count 3)))
(<= terminal at-end)
(<= (goal ?r 100) (role ?r) at-end)
(<= (goal ?r 0) (role ?r) (not at-end))
"""
WITHOUT_DOMAINS = "\n".join(line for line in COUNTER.splitlines() if "base" not in line and "input" not in line)


@pytest.mark.parametrize("text", [COUNTER, WITHOUT_DOMAINS], ids=["externals", "grounded-afresh"])
def test_a_small_game_runs_to_its_end(text):
    reasoner = Reasoner(text)
    assert reasoner.roles == ["Alice", "bob"]
    state = reasoner.initial()
    assert state == {"(count 0)"}
    assert reasoner.legal(state, "Alice") == ["add-two", "inc"]  # (f) is read as the constant f
    assert reasoner.legal(state, "bob") == ["noop"]
    assert not reasoner.terminal(state) and reasoner.goal(state, "bob") == 0
    state = reasoner.next(state, {"Alice": "(add-two)", "bob": "noop"})
    assert state == {"(count 2)"}
    assert reasoner.legal(state, "Alice") == ["inc"]
    state = reasoner.next(state, {"Alice": "inc", "bob": "noop"})
    assert state == {"(count 3)"} and reasoner.terminal(state)
    assert reasoner.goal(state, "Alice") == reasoner.goal(state, "bob") == 100


def test_facts_and_moves_outside_base_and_input_still_get_answers():
    reasoner = Reasoner(COUNTER)
    assert reasoner.legal({"(count 1)", "(extra fact)"}, "Alice") == ["add-two", "inc"]
    assert reasoner.next({"(count 1)"}, {"Alice": "zzz", "bob": "noop"}) == {"(count 2)"}
    assert reasoner.next({"(count   1)"}, {"Alice": "inc", "bob": "noop"}) == {"(count 2)"}


def test_questions_that_make_no_sense_are_refused_clearly():
    reasoner = Reasoner(COUNTER)
    with pytest.raises(GdlError, match="not a role"):
        reasoner.legal(reasoner.initial(), "carol")
    with pytest.raises(GdlError, match="one move for each of Alice, bob"):
        reasoner.next(reasoner.initial(), {"Alice": "inc"})
    with pytest.raises(GdlError, match="not in the sheet's vocabulary"):
        reasoner.legal({"(count Zed)"}, "Alice")
    with pytest.raises(ValueError, match="never closed"):
        reasoner.next(reasoner.initial(), {"Alice": "(inc", "bob": "noop"})


@pytest.mark.parametrize("text, words", [
    ("(role a) (<= (legal a x) (not (true (p ?y))))", "clingo refused the sheet"),
    ("(init (p 1))", "names no role"),
    ("(role a) (<= (legal a x)", "never closed"),
    ("(role a) (<= ?x (role a))", "cannot stand for a sentence"),
    ("(role a) (<= (p) (distinct a))", "distinct takes two terms"),
    ("(role a) ((f) x)", "starts with a function name"),
])
def test_sheets_the_reasoner_cannot_use_are_refused_clearly(text, words):
    with pytest.raises(ValueError, match=words):
        Reasoner(text)


def test_a_goal_that_is_not_exactly_one_number_is_refused():
    reasoner = Reasoner("(role a) (goal a 10) (goal a 20) (init (p))")
    with pytest.raises(GdlError, match="2 goal values"):
        reasoner.goal(reasoner.initial(), "a")


def test_roles_come_in_the_sheets_order_then_derived_ones():
    assert Reasoner("(role zed) (role alpha) (<= (role mid) ready) ready (role Bee)").roles == [
        "zed", "alpha", "Bee", "mid"]
