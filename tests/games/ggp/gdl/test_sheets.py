"""The sheets' version in their GGP game addresses follows their text."""

import hashlib

import pytest

from games.ggp.gdl.sheets import SHEET_VERSION, sheet_meta, sheet_text
from games.rules import SLUGS

pytestmark = pytest.mark.pure

# The digest of every sheet's text at SHEET_VERSION. When a sheet changes, raise SHEET_VERSION
# (exports made before name the old address) and write the new digest beside it.
DIGESTS = {1: "9c29e46f785c7389d8efb48c0402999e0988f3d651dedf9dc272ab76d9ffc289"}


def test_a_changed_sheet_gets_a_new_version():
    digest = hashlib.sha256("".join(sheet_text(slug) for slug in sorted(SLUGS)).encode()).hexdigest()
    assert DIGESTS.get(SHEET_VERSION) == digest, "a sheet changed: raise SHEET_VERSION and record its digest"


def test_the_metadata_names_the_sheet_and_refuses_other_slugs():
    assert sheet_meta("quarto-misere")["rulesheet"].endswith(".kif")
    with pytest.raises(KeyError):
        sheet_meta("chess")
