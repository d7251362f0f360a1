"""Finished matches: history lists, player records, replays, and GGP match-format export/import."""
from django.urls import path

from games.history import views

app_name = "history"
urlpatterns = [
    path("history/", views.history_list, name="list"),
    path("history/import/", views.history_import, name="import"),
    path("players/<int:user_id>/", views.player_page, name="player"),
    path("leaderboards/", views.leaderboard, name="leaderboard"),
    path("matches/<int:match_id>/replay/", views.match_replay, name="replay"),
    path("matches/<int:match_id>/export.json", views.match_export, name="export"),
    path("matches/<int:match_id>/analysis/", views.analysis_ask, name="analysis"),
    path("matches/<int:match_id>/analysis.json", views.analysis_json, name="analysis_json"),
]
