"""Websocket routes. A path that names no socket is refused at the handshake (HTTP 403), as
Channels' ``WebsocketDenier`` does, instead of failing inside the router."""

from channels.security.websocket import WebsocketDenier
from django.urls import path, re_path

from live.consumers.embed import EmbedConsumer
from live.consumers.lobby import LobbyConsumer, SiteConsumer
from live.consumers.match import MatchConsumer
from live.consumers.tournament import TournamentConsumer

websocket_urlpatterns = [
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/site/", SiteConsumer.as_asgi()),
    path("ws/tournaments/<int:tournament_id>/", TournamentConsumer.as_asgi()),
    re_path(r"", WebsocketDenier.as_asgi()),
]

# The embedded board's socket, open to any origin and without cookies (config/embedsockets.py).
embed_websocket_urlpatterns = [
    path("ws/embed/<int:match_id>/", EmbedConsumer.as_asgi()),
    re_path(r"", WebsocketDenier.as_asgi()),
]
