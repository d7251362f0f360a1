"""Which process holds a piece of shared work (a running analysis), written beside it, so that a
process starting on the same host can tell a holder that is gone from one that is working.

A holder is ``host:pid:run``: ``run`` is a token of this process's own, so a later process that
is given a dead one's pid (as a container's server, restarted, often is) is not taken for it. Only
a holder on this host can be judged gone (its pid no longer runs, or is now this process); one on
another host, or one this host cannot judge, is left to the work's own silence timeout. Hosts that share one database need names of their own
(a container's is its own by default).
"""

from __future__ import annotations

import os
import secrets
import socket

HOST = socket.gethostname()
_RUN = secrets.token_hex(4)


def holder_here() -> str:
    """This process, as the holder of what it takes (its pid read now: a forked child is not its parent)."""
    return f"{HOST}:{os.getpid()}:{_RUN}"


def holder_gone(holder: str) -> bool:
    """True when ``holder`` was a process of this host that no longer runs; False when it runs,
    may run, or is not of this host."""
    parts = holder.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != HOST or not parts[1].isdigit() or os.name != "posix":
        return False  # elsewhere, not a holder, or no signal 0 to ask with (on Windows it would kill)
    pid, run = int(parts[1]), parts[2]
    if pid == os.getpid():
        return run != _RUN
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # it runs, under another user
        pass
    return False
