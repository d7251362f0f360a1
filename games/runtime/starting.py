"""What a server process does once when it starts serving: its start hooks.

The module that owns the work registers its hook (``on_start``); ``config/asgi.py`` wraps the
application in ``RunStartHooks``, which runs each hook at the first scope of a type the hook
names. A server process has one application and one event loop, so that is once per process.
Daphne sends no ``lifespan`` scope: there a hook runs at the first connection. A hook only sets
work going (a task, a timer); one that fails is logged as one warning and the others still run,
and so does the connection that started them.

A worker process (``manage.py runworker CHANNEL...``) makes its application's scopes only when a
message comes, so work a worker must do from its start (before anyone asks: after a restart)
is a worker hook instead (``on_worker_start``), run by ``StartingWorker`` as it starts, in the
workers that listen on the hook's channel.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from channels.worker import Worker

logger = logging.getLogger(__name__)

CONNECTIONS = frozenset({"http", "websocket"})
EVERY_SCOPE = frozenset({"lifespan", "http", "websocket", "channel"})  # "channel": a worker's messages


@dataclass(frozen=True)
class StartHook:
    name: str
    run: Callable[[], object]
    scopes: frozenset[str]


_hooks: dict[str, StartHook] = {}
_worker_hooks: dict[str, tuple[str, Callable[[], object]]] = {}  # name -> (channel, run)


def on_start(name: str, run: Callable[[], object], *, scopes: Iterable[str] = CONNECTIONS) -> None:
    """Have ``run()`` called on the event loop when this process starts serving: at the first
    scope whose type is in ``scopes``. Registering a name again replaces its hook."""
    _hooks[name] = StartHook(name=name, run=run, scopes=frozenset(scopes))


def on_worker_start(name: str, run: Callable[[], object], *, channel: str) -> None:
    """Have ``run()`` called on the event loop when a worker process that listens on ``channel``
    starts (``StartingWorker``). Registering a name again replaces its hook."""
    _worker_hooks[name] = (channel, run)


def worker_hooks(channels: Iterable[str]) -> list[str]:
    """The names of the worker hooks of these channels, in the order of their registration."""
    listened = set(channels)
    return [name for name, (channel, _) in _worker_hooks.items() if channel in listened]


def _run(name: str, run: Callable[[], object]) -> None:
    try:
        run()
    except Exception as err:
        logger.warning("start hook %r failed, the server serves on without it: %s: %s",
                       name, type(err).__name__, " ".join(str(err).split()))


def registered() -> list[StartHook]:
    """The hooks registered so far, in the order of their first registration."""
    return list(_hooks.values())


class RunStartHooks:
    """ASGI middleware: runs the start hooks (by default the registered ones, as they are at each
    scope) before passing every scope on to ``app``."""

    def __init__(self, app, hooks: Iterable[StartHook] | None = None) -> None:
        self.app = app
        self.hooks = None if hooks is None else list(hooks)
        self.started: set[str] = set()

    async def __call__(self, scope, receive, send):
        for hook in registered() if self.hooks is None else self.hooks:
            if hook.name not in self.started and scope["type"] in hook.scopes:
                self.started.add(hook.name)
                _run(hook.name, hook.run)
        return await self.app(scope, receive, send)


class StartingWorker(Worker):
    """Channels' worker (``manage.py runworker``: ``games/management/commands/runworker.py``)
    that runs, as it starts, the worker hooks of the channels it listens on."""

    async def handle(self) -> None:
        for name in worker_hooks(self.channels):
            _run(name, _worker_hooks[name][1])
        await super().handle()
