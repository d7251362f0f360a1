"""games.match.text: the text policy for names (and, later, chat lines). Pure."""

import pytest

from games.match.text import TextRefused, display_name_clean, name_key, text_clean

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

REFUSED = [
    ("\ud800abc", "bad_character"),  # lone surrogate
    ("ab\x00c", "bad_character"),  # NUL
    ("ab\x07c", "bad_character"),  # control
    ("ab\x1bc", "bad_character"),
    ("\u202eevil", "bad_character"),  # right-to-left override
    ("a\u202ab", "bad_character"),
    ("a\u2066b\u2069", "bad_character"),  # isolates
    ("\u200b\u200b", "bad_character"),  # zero-width spaces only
    ("a\ufeffb", "bad_character"),
    ("a\ue000", "bad_character"),  # private use
    ("", "blank"),
    ("   \u3000 \u00a0", "blank"),
    ("\u3164\u3164", "blank"),  # Hangul filler: a letter that draws nothing
    ("\u200d", "blank"),
    ("x" * 31, "too_long"),
    (None, "not_text"),
    (["a"], "not_text"),
    ("Computer (strong)", "reserved_name"),
    ("computer", "reserved_name"),
    ("ＣＯＭＰＵＴＥＲ 2", "reserved_name"),  # fullwidth
    ("Cоmputer", "reserved_name"),  # Cyrillic o
]


@pytest.mark.parametrize("name,code", REFUSED, ids=[repr(n)[:20] for n, _ in REFUSED])
def test_names_the_policy_refuses(name, code):
    with pytest.raises(TextRefused) as info:
        display_name_clean(name)
    assert info.value.code == code and str(info.value)


def test_names_are_nfc_normalised_and_spaces_collapsed():
    assert display_name_clean("  Zoe\u0301\u3000 Ann\t") == "Zo\u00e9 Ann"
    assert display_name_clean("x" * 30) == "x" * 30
    assert display_name_clean("👩\u200d💻 dev") == "👩\u200d💻 dev"  # joiners in emoji stay
    assert display_name_clean("My computer") == "My computer"  # only the start is reserved


def test_the_name_key_folds_case_width_spacing_and_lookalikes():
    assert name_key("Ada Lovelace") == name_key("ADA  LOVELACE") == name_key("ＡＤＡ lovelace")
    assert name_key("Аda") == name_key("ada")  # Cyrillic A
    assert name_key("Ada") != name_key("Adam")


def test_text_clean_limits_length_after_normalising():
    assert text_clean("e\u0301" * 3, max_length=3) == "\u00e9" * 3
    with pytest.raises(TextRefused):
        text_clean("abcd", max_length=3, what="A chat line")


def test_the_replacement_character_of_broken_encoding_is_refused():
    with pytest.raises(TextRefused) as refused:
        text_clean("\ufffd\ufffdx", max_length=30)
    assert refused.value.code == "bad_character"
