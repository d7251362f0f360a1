"""Websocket routes."""

from django.urls import path

from games.consumers import MatchConsumer
from lobby.consumers import LobbyConsumer, SiteConsumer

websocket_urlpatterns = [
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/site/", SiteConsumer.as_asgi()),
]
