"""The catalogues: every language complete, and nothing in the code that makemessages would
add. A new or changed string fails here until every language has it (docs/translating.md)."""

import subprocess
from pathlib import Path

import polib
import pytest
from django.conf import settings

from config.settings import locale_languages
from lobby import translations

pytestmark = pytest.mark.pure

LOCALE = Path(settings.LOCALE_PATHS[0])
LANGUAGES = sorted(path.name for path in LOCALE.iterdir()
                   if path.is_dir() and path.name not in settings.PSEUDO_LOCALES)


def catalogue(language: str, domain: str) -> polib.POFile:
    return polib.pofile(str(LOCALE / language / "LC_MESSAGES" / f"{domain}.po"))


def test_german_french_and_spanish_are_offered_with_english_from_the_folders():
    assert {"de", "fr", "es"} <= set(LANGUAGES)
    codes = [code for code, _name in settings.LANGUAGES]
    assert codes[0] == "en" and set(codes) == {"en", *LANGUAGES}
    assert dict(settings.LANGUAGES)["de"] == "Deutsch"


def test_a_new_folder_is_a_new_language_and_the_pseudo_locale_only_on_request(tmp_path):
    for code in ("pt_BR", "xx"):
        (tmp_path / code / "LC_MESSAGES").mkdir(parents=True)
        (tmp_path / code / "LC_MESSAGES" / "django.po").write_text("")
    assert locale_languages(tmp_path, pseudo=False) == [("en", "English"), ("pt-br", "Português Brasileiro")]
    assert "xx" in dict(locale_languages(tmp_path, pseudo=True))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", translations.DOMAINS)
def test_every_entry_is_translated_and_none_is_fuzzy(language, domain):
    po = catalogue(language, domain)
    assert not po.metadata_is_fuzzy, "the header is fuzzy: msgfmt would drop its plural rule"
    assert po.metadata.get("Plural-Forms") == translations.PLURAL_FORMS.get(language, po.metadata.get("Plural-Forms"))
    assert [e.msgid for e in po.untranslated_entries()] == []
    assert [e.msgid for e in po.fuzzy_entries()] == []
    assert [e.msgid for e in po.obsolete_entries()] == []


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", translations.DOMAINS)
def test_every_placeholder_is_kept(language, domain):
    """msgfmt's own check: a translation keeps each %(name)s of its English."""
    path = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
    done = subprocess.run(["msgfmt", "--check-format", "-o", "/dev/null", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_makemessages_finds_nothing_new():
    """What makemessages collects from the code today is exactly what each catalogue holds:
    a string added, changed or removed in the code shows here until the catalogues follow."""
    found = translations.collected_msgids()
    for language in LANGUAGES:
        for domain in translations.DOMAINS:
            held = {(entry.msgctxt, entry.msgid) for entry in catalogue(language, domain) if not entry.obsolete}
            assert found[domain] - held == set(), f"{language} {domain}.po lacks these: run makemessages"
            assert held - found[domain] == set(), f"{language} {domain}.po holds strings the code no longer has"


def test_the_pseudo_locale_keeps_placeholders_and_tags_and_leaves_no_english_letter():
    text = translations.pseudo('Hello %(name)s, <a href="%(url)s">log in</a> &amp; play')
    assert text.startswith(translations.OPEN) and text.endswith(translations.CLOSE)
    assert "%(name)s" in text and '<a href="%(url)s">' in text and "</a>" in text and "&amp;" in text
    outside = text.replace("%(name)s", "").replace('<a href="%(url)s">', "").replace("</a>", "").replace("&amp;", "")
    assert not any("a" <= c.lower() <= "z" for c in outside)
