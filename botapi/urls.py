from django.urls import path

from botapi import views

app_name = "botapi"
urlpatterns = [
    path("account/", views.account, name="account"),
    path("account/tokens/<int:token_id>/revoke/", views.token_revoke, name="token_revoke"),
    path("account/bot/", views.bot_upgrade, name="bot_upgrade"),
    path("ggp/", views.ggp_players, name="ggp_players"),
    path("ggp/<int:player_id>/play/", views.ggp_player_play, name="ggp_player_play"),
    path("ggp/<int:player_id>/check/", views.ggp_player_recheck, name="ggp_player_recheck"),
    path("ggp/<int:player_id>/remove/", views.ggp_player_remove, name="ggp_player_remove"),
]
