"""ASGI entry point: HTTP through Django, websockets through Channels."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from channels.routing import ChannelNameRouter, ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from config.accesslog import hide_secrets  # noqa: E402
from config.bodylimit import limit_bodies  # noqa: E402
from config.closehandshake import wait_for_closing_clients  # noqa: E402
from config.drain import TrackHandling, drain_on_sigterm  # noqa: E402
from config.embedsockets import OpenToAnyOrigin  # noqa: E402
from config.errorpages import too_large_answer  # noqa: E402
from config.handshake import lazy_pformat  # noqa: E402
from config.headlimit import answer_long_heads  # noqa: E402
from config.origins import SameOriginValidator  # noqa: E402
from config.routing import embed_websocket_urlpatterns, websocket_urlpatterns  # noqa: E402
from config.slowclients import raise_open_files, request_deadlines  # noqa: E402
from config.socketauth import SocketUserMiddleware  # noqa: E402
from config.tcpwrite import write_at_once  # noqa: E402
from games.computer.workers import ComputerWorker  # noqa: E402
from games.ggp.workers import GGPWorker  # noqa: E402
from games.runtime.starting import RunStartHooks  # noqa: E402

lazy_pformat()
write_at_once()
hide_secrets()
wait_for_closing_clients()
limit_bodies(max_bytes=settings.REQUEST_MAX_BYTES, page=too_large_answer)
answer_long_heads()
request_deadlines(head_seconds=settings.REQUEST_HEAD_SECONDS, body_seconds=settings.REQUEST_BODY_SECONDS)
drain_on_sigterm()
raise_open_files()


def load_ahead() -> None:
    """Import now what the first sockets would otherwise import on the event loop: the channel
    layer's library, the session engine and its serializer, the authentication backends and, on
    PostgreSQL, the connection pool. Right after a start, when every page reconnects at once,
    those imports held up all of them (and loaded now, they are frozen below with the rest)."""
    from importlib import import_module  # noqa: PLC0415

    from channels.layers import get_channel_layer  # noqa: PLC0415
    from django.contrib.auth import get_backends  # noqa: PLC0415
    from django.utils.module_loading import import_string  # noqa: PLC0415

    get_channel_layer()
    import_module(settings.SESSION_ENGINE)
    import_string(settings.SESSION_SERIALIZER)
    get_backends()
    if "pool" in settings.DATABASES["default"].get("OPTIONS", {}):
        import_module("psycopg_pool")


load_ahead()

# When it starts serving, a process runs the start hooks its modules registered
# (games/runtime/starting.py): the clock sweep for deadlines missed while no process watched
# (games/services/flagfall.py), the post-game analyses queued before a start (games/computer/analysis_runs.py).
application = RunStartHooks(ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Browsers send cookies on cross-site websockets: the origin check is the CSRF defence;
        # the embedded board's read-only socket alone takes any origin, and no cookie
        # (config/embedsockets.py). A SIGTERM closes each socket between two messages
        # (config/drain.py's TrackHandling).
        "websocket": OpenToAnyOrigin(
            embedded=TrackHandling(URLRouter(embed_websocket_urlpatterns)),
            guarded=SameOriginValidator(TrackHandling(SocketUserMiddleware(URLRouter(websocket_urlpatterns))),
                                        settings.ALLOWED_ORIGINS)),
        # Worker processes (manage.py runworker computer / ggp): the computer's turns and the calls
        # to GGP players when scaled.
        "channel": ChannelNameRouter({"computer": ComputerWorker.as_asgi(), "ggp": GGPWorker.as_asgi()}),
    }
))

# What is loaded by now (Django, the apps, the libraries) lives as long as the process: keep it
# out of the garbage collector's full collections, whose pauses held every socket of a loaded
# server for up to 90 ms (measured under load: commit 3961bc6).
gc.freeze()
