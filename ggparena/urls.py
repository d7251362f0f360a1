from django.urls import path

from ggparena import views

app_name = "ggparena"

urlpatterns = [
    path("ggp/arena/", views.arena_page, name="page"),
    path("ggp/arena/<int:player_id>/opt/", views.arena_opt, name="opt"),
]
