"""The translation catalogues (``locale/<language>/LC_MESSAGES/django.po`` and ``djangojs.po``)
and the tests' pseudo-locale: how Django's ``makemessages`` is run over this repository (the
application's code, templates and scripts; not the tests, the docs or the collected static
files), and the pseudo-locale written from what it collects. docs/translating.md."""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from pathlib import Path

import polib
from django.conf import settings
from django.core.management import call_command
from django.test.utils import override_settings

DOMAINS = ("django", "djangojs")
# What makemessages leaves out: the tests (their strings are not the site's), the collected
# static files (copies of static/), the benchmarks, examples, deployment and docs.
IGNORED = ["tests/*", "staticfiles/*", "benchmarks/*", "examples/*", "deploy/*", "docs/*", "node_modules/*",
           "locale/*", "*/migrations/*"]
# Each language's plural rule (the .po header), by gettext's own table.
PLURAL_FORMS = {"de": "nplurals=2; plural=(n != 1);", "es": "nplurals=2; plural=(n != 1);",
                "fr": "nplurals=2; plural=(n > 1);", "xx": "nplurals=2; plural=(n != 1);"}


def makemessages(languages: list[str], *, into: Path | None = None, domains=DOMAINS) -> None:
    """Run ``makemessages`` for ``languages`` over the repository; into ``locale/`` (new strings
    added, gone ones made obsolete) or, with ``into``, into that folder (inside the repository,
    where makemessages looks for the folder its files belong to)."""
    root = Path(settings.BASE_DIR)
    paths = [into] if into is not None else settings.LOCALE_PATHS
    with override_settings(LOCALE_PATHS=paths), contextlib.chdir(root):
        for domain in domains:
            call_command("makemessages", locale=languages, domain=domain, ignore_patterns=IGNORED,
                         add_location="file", keep_pot=into is not None, verbosity=0)


def collected_msgids() -> dict[str, set[tuple[str | None, str]]]:
    """What makemessages finds in the code today, per domain: (context, msgid) pairs."""
    root = Path(settings.BASE_DIR)
    folder = Path(tempfile.mkdtemp(prefix=".catalogue-", dir=root))
    try:
        makemessages(["en"], into=folder)
        return {domain: {(entry.msgctxt, entry.msgid) for entry in polib.pofile(str(folder / f"{domain}.pot"))}
                for domain in DOMAINS}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- the pseudo-locale ------------------------------------------------------------------------
# Every letter of the English text accented (a sentence stays readable, and no English word is
# left), the whole wrapped in brackets: text on a page that is not so is not translated.
_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "áƀçďéƒğĥíĵķĺɱñóƥʠŕšţúṽŵẋýžÁƁÇĎÉƑĞĤÍĴĶĹḾÑÓƤɊŔŠŢÚṼŴẊÝŽ")
# What must stay as written: placeholders (Python's and the templates'), HTML tags and entities.
_KEPT = re.compile(r"(%\(\w+\)[sdfi]|%[sdfi]|\{\w*\}|<[^>]*>|&#?\w+;)")
OPEN, CLOSE = "⟦", "⟧"


def pseudo(text: str) -> str:
    """``text`` in the pseudo-locale: ``pseudo("Log in %(name)s")`` is "⟦Ĺóğ íñ %(name)s⟧"."""
    if not text:
        return text
    parts = _KEPT.split(text)
    return OPEN + "".join(part if index % 2 else part.translate(_ACCENTED) for index, part in enumerate(parts)) + CLOSE


def write_pseudo_locale(code: str = "xx") -> Path:
    """Write ``locale/<code>/`` from what makemessages finds, every entry in ``pseudo`` text,
    and compile it. Returns the folder."""
    makemessages([code])
    folder = Path(settings.LOCALE_PATHS[0]) / code / "LC_MESSAGES"
    for domain in DOMAINS:
        catalogue = polib.pofile(str(folder / f"{domain}.po"))
        catalogue.metadata.update({"Language": code, "Plural-Forms": PLURAL_FORMS[code],
                                   "Content-Type": "text/plain; charset=UTF-8"})
        catalogue.metadata_is_fuzzy = False
        catalogue.header = "The tests' pseudo-locale, written by manage.py pseudolocale: do not edit."
        for entry in catalogue:
            if entry.msgid_plural:
                entry.msgstr_plural = {0: pseudo(entry.msgid), 1: pseudo(entry.msgid_plural)}
            else:
                entry.msgstr = pseudo(entry.msgid)
            if "fuzzy" in entry.flags:
                entry.flags.remove("fuzzy")
            entry.previous_msgid = entry.previous_msgid_plural = entry.previous_msgctxt = None
        catalogue[:] = [entry for entry in catalogue if not entry.obsolete]
        catalogue.save()
        catalogue.save_as_mofile(str(folder / f"{domain}.mo"))
    return folder
