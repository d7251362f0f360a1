"""Following and blocking: the Following page, and the buttons of a player's page."""
from django.urls import path

from social import views

app_name = "social"
urlpatterns = [
    path("following/", views.following, name="following"),
    path("players/<int:player_id>/follow/", views.follow, name="follow"),
    path("players/<int:player_id>/unfollow/", views.unfollow, name="unfollow"),
    path("players/<int:player_id>/block/", views.block, name="block"),
    path("players/<int:player_id>/unblock/", views.unblock, name="unblock"),
]
