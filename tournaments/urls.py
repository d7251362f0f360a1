from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("tournaments/", views.tournament_list, name="list"),
    path("tournaments/new/", views.tournament_create, name="create"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="page"),
    path("tournaments/<int:tournament_id>/join/", views.tournament_join, name="join"),
    path("tournaments/<int:tournament_id>/withdraw/", views.tournament_withdraw, name="withdraw"),
    path("tournaments/<int:tournament_id>/start/", views.tournament_start, name="start"),
    path("tournaments/<int:tournament_id>/download.json", views.tournament_download, name="download"),
    path("tournaments/<int:tournament_id>/pause/", views.arena_pause, name="pause"),
    path("tournaments/<int:tournament_id>/berserk/<int:match_id>/", views.arena_berserk, name="berserk"),
]
