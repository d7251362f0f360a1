"""The KIF parser: round trips, and a clear refusal of what is not KIF or too big to read."""

import pytest

from games.ggp.gdl import kif

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)


def test_parse_reads_terms_variables_and_comments():
    text = "; a comment\n(<= (legal ?r (mark ?m ?n))\n    (true (cell ?m ?n b))) noop"
    assert kif.parse(text) == [("<=", ("legal", "?r", ("mark", "?m", "?n")), ("true", ("cell", "?m", "?n", "b"))),
                               "noop"]


def test_canonical_text_folds_spacing_and_keeps_case():
    assert kif.canonical("(  control\txPlayer )") == "(control xPlayer)"
    assert kif.to_text(kif.parse_term("(a (b c) ((d)))")) == "(a (b c) ((d)))"


@pytest.mark.parametrize("text, words", [
    ("(mark 1 2", "never closed"),
    ("(mark 1 2))", "without its"),
    ("()", "empty list"),
    ("(mark é 1)", "unexpected character"),
    ('(mark "1" 2)', None),  # quotes are ordinary constant characters in KIF: accepted
    ("(mark ? 1)", "variable without a name"),
    ("", "found 0"),
    ("a b", "found 2"),
])
def test_malformed_text_is_refused_clearly(text, words):
    if words is None:
        assert kif.parse_term(text) == ("mark", '"1"', "2")
        return
    with pytest.raises(kif.KifError, match=words):
        kif.parse_term(text)


def test_error_names_the_line_and_column():
    with pytest.raises(kif.KifError, match="line 2, column 3"):
        kif.parse("(a)\n  )")


def test_deep_nesting_is_refused_without_recursion():
    deep = "(" * 100_000 + ")" * 100_000
    with pytest.raises(kif.KifError, match="nested deeper than 32"):
        kif.parse(deep)
    assert kif.parse_term("(a " * 5 + ")" * 5, max_depth=5)
    with pytest.raises(kif.KifError, match="deeper than 4"):
        kif.parse_term("(a " * 5 + ")" * 5, max_depth=4)


def test_huge_text_is_refused_before_reading():
    with pytest.raises(kif.KifError, match="over the limit of 200"):
        kif.parse_term("(mark " + "1 " * 200 + ")", max_length=200)


def test_not_text_is_refused():
    with pytest.raises(kif.KifError, match="KIF is text, not bytes"):
        kif.parse(b"(mark 1 1)")
    with pytest.raises(kif.KifError):
        kif.to_text(("mark", ("1",), ()))
    assert issubclass(kif.KifError, ValueError)
