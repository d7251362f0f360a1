"""The site's ASGI application as a live test server runs it: the same application, and on
SIGUSR1 the process forgets what it remembers (``tests.support.memory``) and says so in its
log, for the test that waits for it (``LiveServer.forget``)."""

import itertools
import signal

from config.asgi import application  # noqa: F401  (what daphne serves)
from tests.support.memory import FORGOT, forget_process_memory

_count = itertools.count(1)


def _forget(signum, frame) -> None:
    forget_process_memory()
    print(f"{FORGOT} {next(_count)}", flush=True)


signal.signal(signal.SIGUSR1, _forget)
