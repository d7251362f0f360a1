"""Whole page requests in each language: what translation costs a page.

Builds a throw-away SQLite database, makes one signed-up player, and requests each page with
Django's test client (every middleware, the templates, the session) ``--requests`` times in
each language the site offers, signed out and signed in; prints the median and 95th
percentile in milliseconds. Run it on two commits to compare (docs/benchmarks.md, "Pages in
each language"); a commit without the languages serves English whatever the cookie says.

    .venv/bin/python benchmarks/pages.py [--requests 200]
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import statistics
import time

from throwaway import django_on_throwaway_database

PAGES = {"home": "/", "log in": "/login/", "sign up": "/signup/", "rules": "/rules/",
         "notifications (signed in)": "/account/notifications/", "not found": "/no-such-page/"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()

    workdir = django_on_throwaway_database("pages", DEBUG="0")
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from lobby.services import account_signup

    setup_test_environment()
    logging.getLogger("django.request").setLevel(logging.ERROR)  # the not-found page's own warning
    call_command("migrate", verbosity=0)
    member = account_signup(username="bench", password="a long enough password", display_name="Bench")
    languages = [code for code, _name in getattr(settings, "LANGUAGES", [("en", "English")])
                 if code in {"en", "de", "fr", "es"}]
    print(f"SQLite at {workdir}; {args.requests} requests a page and language")
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; {platform.platform()}")
    print(f"{'page':28} {'language':>8} {'median ms':>10} {'p95 ms':>8}")
    for name, url in PAGES.items():
        for language in languages:
            client = Client(HTTP_ACCEPT_LANGUAGE=language)
            if "signed in" in name:
                client.force_login(member)
            client.get(url)  # warm: templates, catalogues
            times = []
            for _ in range(args.requests):
                start = time.perf_counter()
                response = client.get(url)
                times.append((time.perf_counter() - start) * 1000)
            assert response.status_code in (200, 404), (url, response.status_code)
            p95 = statistics.quantiles(times, n=20)[-1]
            print(f"{name:28} {language:>8} {statistics.median(times):10.2f} {p95:8.2f}")


if __name__ == "__main__":
    main()
