"""Boardhall's own GDL rule sheets, one per rule set, in ``sheets/<slug>.kif``.

Each sheet says in GDL what RULES.md says in words; ``tests/games/ggp/gdl/test_gdl_equality.py`` and
``benchmarks/gdl_equality.py`` play random games through a sheet and through ``games.rules``
side by side to show they are the same game. They are served at ``/rules/<slug>.kif``.

Example::

    >>> sheet_text("quarto-misere").startswith(";")
    True
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from games.rules import SLUGS, get_game

SHEETS = Path(__file__).resolve().parent / "sheets"
# The sheets' version in a GGP game address (``/rules/<slug>/v<version>/``, the ``gameMetaURL`` of
# an export): raise it when a sheet's text changes, so an address names the sheet its matches
# were played by (``tests/games/ggp/gdl/test_sheets.py`` holds the sheets' digest to that).
SHEET_VERSION = 1
RULESHEET_NAME = "rulesheet.kif"  # the sheet's file name under its game address


def sheet_meta(slug: str) -> dict:
    """The game's metadata at its GGP game address, in the shape ggp.org's game repository serves
    (``rulesheet`` names the sheet relative to the address); ``KeyError`` for another slug."""
    sheet_path(slug)
    game = get_game(slug)
    return {"gameName": game.name, "rulesheet": RULESHEET_NAME, "version": SHEET_VERSION,
            "numRoles": len(game.roles), "roleNames": list(game.roles)}


def sheet_path(slug: str) -> Path:
    """The file of ``slug``'s sheet; ``KeyError`` naming the known slugs for another slug."""
    if slug not in SLUGS:
        raise KeyError(f"no GDL sheet for {slug!r}; known rule sets: {', '.join(SLUGS)}")
    return SHEETS / f"{slug}.kif"


@lru_cache(maxsize=None)
def sheet_text(slug: str) -> str:
    """The text of ``slug``'s sheet (UTF-8 on disk, ASCII in fact)."""
    return sheet_path(slug).read_text(encoding="utf-8")
