"""Shared test set-up. With BOARDHALL_REQUIRE_SERVICES=1 (CI) a skipped test is a failed one:
a test that skips because PostgreSQL, Redis or Chromium is missing must not pass quietly."""

import os

import pytest

REQUIRE_SERVICES = os.environ.get("BOARDHALL_REQUIRE_SERVICES") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_SERVICES and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped, and CI (BOARDHALL_REQUIRE_SERVICES=1) allows no skips: {report.longrepr}"


def pytest_collection_modifyitems(items):
    """A ``pure`` test (bin/test runs it in stage 1 only) may not use the database."""
    for item in items:
        if item.get_closest_marker("pure") and item.get_closest_marker("django_db"):
            raise pytest.UsageError(f"{item.nodeid} is marked pure but uses the database (django_db)")


@pytest.fixture(autouse=True)
def fresh_channel_layer(request):
    """A new channel layer per test: channels-redis binds its locks to the event loop that first
    used them, and every async test runs on a loop of its own."""
    from channels.layers import channel_layers

    before = list(channel_layers.backends.values())  # one may come from an import (config.asgi)
    yield
    used = any(layer not in before for layer in channel_layers.backends.values())
    channel_layers.backends.clear()
    if used and request.node.get_closest_marker("pure"):
        pytest.fail(f"{request.node.nodeid} is marked pure but used the channel layer")


@pytest.fixture(autouse=True)
def fresh_process_memory():
    """Forget what this process remembers between tests (pages open on a match, move lists, the
    matches it moved in): the database is emptied after each test, and its ids may come back."""
    yield
    from tests.support.memory import forget_process_memory

    forget_process_memory()


@pytest.fixture(autouse=True)
def no_clock_sweep(settings):
    """Server processes sweep for missed deadlines, look for stalled GGP matches and tick the GGP arena on a
    timer; tests do when they mean to."""
    settings.CLOCK_SWEEP_SECONDS = 0
    settings.GGP_RESUME_SECONDS = 0
    settings.ARENA_SWEEP_SECONDS = 0
    settings.GGP_ARENA_SECONDS = 0


@pytest.fixture(autouse=True)
def arena_players_present(settings):
    """Arena tests pair players who open no page; the auto-pause's own tests turn it on
    (tests/tournaments/test_arena_presence.py)."""
    settings.ARENA_PAUSE_ABSENT = False


@pytest.fixture(autouse=True)
def notices_inline(settings):
    """Notifications are sent in the thread that committed (notify.delivery), not a pool's
    thread that could outlive the test's database."""
    settings.NOTIFY_WORKERS = "inline"


class FakeTime:
    """The clocks' time, moved on by hand: ``fake_time.advance(seconds)``."""

    def __init__(self) -> None:
        from django.utils import timezone

        self.now = timezone.now().replace(microsecond=0)  # clocks keep milliseconds

    def __call__(self):
        return self.now

    def ms(self) -> int:
        """The time now as a clock in a state message gives it: milliseconds since the epoch."""
        return int(self.now.timestamp() * 1000)

    def advance(self, seconds: float) -> None:
        from datetime import timedelta

        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    """The per-minute and per-day limits' clock (games.runtime.throttle), an hour into a UTC day
    and standing still until moved (``clock[0] += seconds``): a minute's window cannot turn
    between two requests of a test that counts on one."""
    from games.runtime import throttle

    now = [1_800_000_000.0]
    monkeypatch.setattr(throttle.time, "time", lambda: now[0])
    return now


@pytest.fixture
def fake_time():
    """Clocks read this time instead of the real one (never sleep in a test)."""
    from games.match import clocks

    fake = FakeTime()
    clocks.use_time(fake)
    yield fake
    clocks.use_time(None)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Before the test database is dropped, close PostgreSQL's connection pool and end the
    sessions still open on it (a database thread keeps its connection between calls; a live
    server child may have been killed mid-call): they would keep the database "in use"."""
    yield
    from django.db import connections

    with django_db_blocker.unblock():
        for conn in connections.all(initialized_only=True):
            if conn.vendor == "postgresql":
                conn.close_pool()
                import psycopg

                params = conn.settings_dict
                with psycopg.connect(dbname=params["NAME"], host=params["HOST"], port=params["PORT"] or None,
                                     user=params["USER"], password=params["PASSWORD"], autocommit=True) as admin:
                    admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                  "WHERE datname = current_database() AND pid <> pg_backend_pid()")


@pytest.fixture(autouse=True)
def exports_valid_for_ggp_spectators(monkeypatch):
    """Every match a test exports (``games.history.selectors.match_export``, which the download
    and the analysis helpers call) must pass the spectator server's checks
    (``tests.support.ggp_validation``): a GGP tool must be able to take each one."""
    from games.history import selectors
    from tests.support.ggp_validation import match_problems

    export = selectors.match_export

    def checked(**kwargs):
        data = export(**kwargs)
        problems = match_problems(data)
        assert not problems, f"the export of match {data.get('matchId')} is not a valid GGP match: {problems}"
        return data

    monkeypatch.setattr(selectors, "match_export", checked)
