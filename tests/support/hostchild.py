"""One host of a two-host test (``tests.support.hosts``): a process of its own that sets Django
up, says it is ready, waits for the go that every host gets at once, then runs a management
command (``clock_sweep``, ``runworker computer``, ...) against the shared PostgreSQL and Redis.

``python -m tests.support.hostchild TOKEN RECORDERS COMMAND [ARG ...]``: RECORDERS is a comma-
separated list of names from ``RECORDERS``, each wrapping one function of the product so that
every unit of work this host does is written to a Redis list the test reads ("<unit> <pid>").
Nothing else passes between the hosts and the test.
"""

from __future__ import annotations

import functools
import os
import sys

GO_SECONDS = 90  # the test says go once every host is ready: a ceiling against a hang


def keys(token: str) -> tuple[str, str, str]:
    """The Redis lists of a run: the hosts ready, the go, the units of work done."""
    return f"hosts:{token}:ready", f"hosts:{token}:go", f"hosts:{token}:done"


def _wrap(module, name: str, unit, record) -> None:
    original = getattr(module, name)

    @functools.wraps(original)
    def recorded(*args, **kwargs):
        result = original(*args, **kwargs)
        found = unit(result, *args, **kwargs)
        if found is not None:
            record(found)
        return result

    setattr(module, name, recorded)


def record_broadcasts(record) -> None:
    """Each message sent to a group: "<group>/<type>"."""
    from games.services import broadcast

    _wrap(broadcast, "send", lambda _, group, message: f"{group}/{message.get('type')}", record)


def record_computer_turns(record) -> None:
    """Each computer turn this host starts thinking about: "<match>:<version>"."""
    from games.computer import bots

    _wrap(bots, "_think_args", lambda _, turn: f"{turn.match_id}:{turn.version}", record)


def record_analysis_jobs(record) -> None:
    """Each analysis job this host takes and starts to run: "<analysis id>"."""
    from games.computer import analysis_runs

    original = analysis_runs._run_job

    async def recorded(job, executor):
        record(str(job.analysis_id))
        return await original(job, executor)

    analysis_runs._run_job = recorded


def record_tournament_starts(record) -> None:
    """Each tournament this host started (or cancelled): "<tournament id>"."""
    from tournaments import services

    _wrap(services, "tournament_start", lambda tournament, **_: str(tournament.pk), record)


RECORDERS = {"broadcasts": record_broadcasts, "computer_turns": record_computer_turns,
             "analysis_jobs": record_analysis_jobs, "tournament_starts": record_tournament_starts}


def main(argv: list[str]) -> None:
    token, recorders, *command = argv
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import redis
    from django.core.management import call_command

    ready, go, done = keys(token)
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    pid = os.getpid()
    for name in filter(None, recorders.split(",")):
        RECORDERS[name](lambda unit: client.rpush(done, f"{unit} {pid}"))
    client.rpush(ready, pid)
    if client.blpop([go], timeout=GO_SECONDS) is None:
        raise SystemExit(f"host {pid}: no go within {GO_SECONDS} s")
    call_command(*command)


if __name__ == "__main__":
    main(sys.argv[1:])
