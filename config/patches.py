"""Where the app leans on its libraries' insides, and the one way it checks them.

A **patch** replaces something of a library at start-up because a measurement or a test showed
it was needed: for speed, ``config/tcpwrite.py`` (Twisted writes when asked) and
``config/handshake.py`` (autobahn's debug line formatted only when printed); as fixes,
``config/bodylimit.py`` (a body over the limit refused as it arrives), ``config/headlimit.py``
(an over-long request line or header answered with a status), ``config/slowclients.py``
(a deadline for a request's head and body, answered 408), ``config/closehandshake.py``
(time for the client's close, a close frame on a protocol error), ``config/drain.py`` (a
graceful stop on SIGTERM) and ``config/accesslog.py`` (no token in Daphne's access log). Each states, beside its code, a ``PATCH``: the library and the
versions it was written against, the names it replaces or leans on with the shape it expects of
each (``Private``), and the measurement that justified it. ``Patch.install`` checks all of that
first and applies the patch only when it holds; otherwise it warns once and the server runs
unpatched, as the library is.

``PRIVATE`` lists the other private names the code relies on without patching anything
(``live/layers.py``, ``games/runtime/eventloop.py``, ``live/sockets.py``). tests/config/test_patches.py
checks every listed name against the installed libraries, so that an upgrade which removed or
changed one fails with that name, rather than silently at run time.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

logger = logging.getLogger(__name__)

# What each replaced attribute was before ``replace`` (key: its owner and name), so that a check
# made after a patch sees the library's own.
_originals: dict[tuple[object, str], object] = {}
_ABSENT = object()  # the owner did not define it itself: it came from a base class


class Mismatch(Exception):
    """The library is not the one a patch or a private name was written against."""


def replace(owner: object, name: str, new: object) -> None:
    """Set ``owner.name`` to ``new``, remembering what the library had there."""
    _originals.setdefault((owner, name), vars(owner).get(name, _ABSENT))
    setattr(owner, name, new)


@dataclass(frozen=True)
class Private:
    """A name inside a library that the code relies on, and the shape it expects of it.

    ``owner`` is where the name lives, ``"module"`` or ``"module:Class"``. ``params``: the
    parameters it takes, when the code calls or overrides it. ``named_in``: a library function
    (``"module:Class.method"``) whose code uses the name, for a name set on instances there or
    looked up there rather than defined on ``owner``. ``inherited``: ``owner`` must not define it
    itself (the code replaces its base class's version, listed on its own)."""

    owner: str
    name: str
    used_in: str
    params: tuple[str, ...] | None = None
    named_in: str | None = None
    inherited: bool = False

    def check(self, given: Mapping[str, object] | None = None) -> None:
        """Raise ``Mismatch`` naming what changed. ``given`` stands in for modules or classes
        (by their path), for tests."""
        given = given or {}
        owner = _resolve(self.owner, given)
        where = f"{_label(owner)}.{self.name}"
        if self.named_in is not None:
            if self.name not in _code_names(_resolve(self.named_in, given)):
                raise Mismatch(f"{where} is no longer used by {self.named_in.replace(':', '.')}")
            return
        if self.inherited:
            if _own(owner, self.name):
                raise Mismatch(f"{_label(owner)} defines its own {self.name}")
            return
        value = _member(owner, self.name)
        if value is _ABSENT:
            raise Mismatch(f"{_label(owner)} has no {self.name}")
        if self.params is not None:
            found = tuple(inspect.signature(value).parameters)
            if found != self.params:
                raise Mismatch(f"{where} is {self.name}{_args(found)}, not {self.name}{_args(self.params)}")


@dataclass(frozen=True)
class Patch:
    """A run-time replacement in a library: applied only to the library it was written for."""

    unpatched: str  # what the server does without it, for the warning: "A SIGTERM stops Daphne at once"
    library: str  # as people name it: "Daphne"
    module: str  # the module with its ``__version__``: "daphne"
    versions: tuple[str, ...]  # the versions it was written against, as prefixes: ("4.2.",)
    uses: tuple[Private, ...]  # what it replaces or leans on
    benchmark: str  # the measurement that justified it
    apply: Callable[..., object]

    def check(self, given: Mapping[str, object] | None = None) -> None:
        """Raise ``Mismatch`` naming the first thing that is not as the patch expects."""
        given = given or {}
        version = getattr(_resolve(self.module, given), "__version__", "")
        if not version.startswith(self.versions):
            raise Mismatch(f"{self.library} {version or '(unknown version)'} is not one of {self.versions}")
        for private in self.uses:
            private.check(given)

    def install(self, **options) -> bool:
        """``apply(**options)`` when the library is the expected one; otherwise one warning and
        nothing changed. True when applied."""
        try:
            self.check()
        except Mismatch as reason:
            message = f"{self.unpatched}: {reason}."
            warnings.warn(message, RuntimeWarning, stacklevel=3)
            logger.warning(message)
            return False
        self.apply(**options)
        return True


def _resolve(path: str, given: Mapping[str, object]) -> object:
    module, _, qualname = path.partition(":")
    parts = qualname.split(".") if qualname else []
    for i in range(len(parts), -1, -1):  # the longest stand-in given for a prefix of the path
        key = module + (":" + ".".join(parts[:i]) if i else "")
        if key in given:
            found, rest = given[key], parts[i:]
            break
    else:
        try:
            found, rest = importlib.import_module(module), parts
        except ImportError:
            raise Mismatch(f"there is no module {module}") from None
    for part in rest:
        value = _member(found, part)
        if value is _ABSENT:
            raise Mismatch(f"{_label(found)} has no {part}")
        found = value
    return found


def _member(owner: object, name: str) -> object:
    """``owner.name`` as the library defines it (before any patch), or ``_ABSENT``."""
    original = _originals.get((owner, name), None)
    if original is None:
        return getattr(owner, name, _ABSENT)
    if original is not _ABSENT:
        return original
    for base in getattr(owner, "__mro__", ())[1:]:
        if name in vars(base):
            return _member(base, name)
    return _ABSENT


def _own(owner: object, name: str) -> bool:
    original = _originals.get((owner, name), None)
    return original is not _ABSENT if original is not None else name in vars(owner)


def _code_names(function: object) -> set[str]:
    """The names a function's code (nested functions included) uses."""
    codes, names = [inspect.unwrap(function).__code__], set()
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes += [const for const in code.co_consts if inspect.iscode(const)]
    return names


def _label(obj: object) -> str:
    if inspect.ismodule(obj):
        return obj.__name__
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__name__)}"


def _args(names: tuple[str, ...]) -> str:
    return "(" + ", ".join(names) + ")"


def _layer(owner: str, name: str, **expected) -> Private:
    return Private(owner, name, "live/layers.py", **expected)


_SHARD = "channels_redis.pubsub:RedisSingleShardConnection"
_LOOP_LAYER = "channels_redis.pubsub:RedisPubSubLoopLayer"
_PUBSUB_LAYER = "channels_redis.pubsub:RedisPubSubChannelLayer"
_CONSUMER = "channels.consumer:AsyncConsumer"

# The private names of Channels, channels-redis and asgiref the code relies on outside the
# patches (theirs are in each ``Patch.uses``).
PRIVATE: tuple[Private, ...] = (
    # live/layers.py: the in-memory layer sweeps less often; the Redis layer's shards batch.
    _layer("channels.layers:InMemoryChannelLayer", "_clean_expired", params=("self",)),
    _layer("channels.layers:InMemoryChannelLayer", "channels", named_in="channels.layers:InMemoryChannelLayer.__init__"),
    _layer("channels.layers:InMemoryChannelLayer", "groups", named_in="channels.layers:InMemoryChannelLayer.__init__"),
    _layer("channels_redis.utils", "_wrap_close", params=("proxy", "loop")),
    _layer(_PUBSUB_LAYER, "_get_layer", params=("self",)),
    *(_layer(_PUBSUB_LAYER, name, named_in=f"{_PUBSUB_LAYER}.__init__") for name in ("_layers", "_args", "_kwargs")),
    _layer(_LOOP_LAYER, "__init__",
           params=("self", "hosts", "prefix", "on_disconnect", "on_reconnect", "channel_layer", "kwargs")),
    *(_layer(_LOOP_LAYER, name, named_in=f"{_LOOP_LAYER}.__init__")
      for name in ("_shards", "channels", "groups", "channel_layer")),
    _layer(_SHARD, "__init__", params=("self", "host", "channel_layer")),
    *(_layer(_SHARD, name, named_in=f"{_SHARD}.__init__")
      for name in ("host", "channel_layer", "_lock", "_subscribed_to", "_redis", "_pubsub")),
    _layer(_SHARD, "_ensure_redis", params=("self",)),
    _layer(_SHARD, "_ensure_receiver", params=("self",)),
    _layer(_SHARD, "_receive_message", params=("self", "message")),
    _layer(_SHARD, "subscribe", params=("self", "channel")),
    _layer(_SHARD, "unsubscribe", params=("self", "channel")),
    _layer(_SHARD, "publish", params=("self", "channel", "message")),
    # games/runtime/eventloop.py: the event loop that called into a database thread.
    Private("asgiref.sync:SyncToAsync", "threadlocal", "games/runtime/eventloop.py"),
    *(Private("asgiref.sync:SyncToAsync.threadlocal", name, "games/runtime/eventloop.py",
              named_in="asgiref.sync:SyncToAsync.thread_handler") for name in ("main_event_loop", "main_event_loop_pid")),
    # live/sockets.py: Socket.__call__ replaces AsyncConsumer.__call__ and sets what it set.
    Private(_CONSUMER, "__call__", "live/sockets.py", params=("self", "scope", "receive", "send")),
    *(Private(_CONSUMER, name, "live/sockets.py", named_in=f"{_CONSUMER}.__call__")
      for name in ("channel_layer_alias", "channel_receive", "base_send", "dispatch")),
)
