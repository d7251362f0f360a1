"""The site's ASGI application as a live test server runs it: the same application, and on
SIGUSR1 the process forgets what it remembers (``tests.support.memory``) and says so in its
log, for the test that waits for it (``LiveServer.forget``)."""

import asyncio
import itertools
import signal

from config.asgi import application  # noqa: F401  (what daphne serves)
from tests.support.memory import FORGOT, forget_process_memory

_count = itertools.count(1)


def _forget_now() -> None:
    forget_process_memory()
    print(f"{FORGOT} {next(_count)}", flush=True)


def _forget(signum, frame) -> None:
    """The signal may interrupt code holding a lock that forgetting takes: forget on the event
    loop's next turn instead of inside the interrupted code."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        _forget_now()
    else:
        loop.call_soon_threadsafe(_forget_now)


signal.signal(signal.SIGUSR1, _forget)
