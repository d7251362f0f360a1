"""Django on a throw-away database, for the benchmarks that call the app in their own process.

    from throwaway import django_on_throwaway_database
    workdir = django_on_throwaway_database("history", DEBUG="1")

Never the project's database: SQLite in a new temporary folder unless ``database_url`` names
another (which the caller then migrates and empties itself, as it must for SQLite too).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def django_on_throwaway_database(name: str, database_url: str = "", **environ: str) -> str:
    """Set the environment (``environ`` on top), set Django up and return the temporary folder."""
    workdir = tempfile.mkdtemp(prefix=f"boardhall-{name}-bench-")
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{workdir}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.update(environ)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    return workdir
