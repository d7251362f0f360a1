"""Where the sockets' database work runs: ``DB_THREADS`` threads of this process.

Channels' ``database_sync_to_async`` puts every call of every consumer on one shared thread.
On SQLite that is right (one writer at a time), and ``DB_THREADS`` is 1 there. On PostgreSQL
several threads overlap their round trips to the server, each with a pooled connection.
Each call is wrapped like Channels' own: stale connections are closed before and after.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import cache

from channels.db import DatabaseSyncToAsync
from django.conf import settings


@cache
def _executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=settings.DB_THREADS, thread_name_prefix="db")


def db(func):
    """``await db(func)(...)`` runs the synchronous ``func`` on the database threads."""
    return DatabaseSyncToAsync(func, thread_sensitive=False, executor=_executor())
