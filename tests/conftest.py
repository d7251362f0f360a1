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


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """A new channel layer per test: channels-redis binds its locks to the event loop that first
    used them, and every async test runs on a loop of its own."""
    yield
    from channels.layers import channel_layers

    channel_layers.backends.clear()
