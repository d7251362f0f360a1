from django.contrib.auth import views as auth_views
from django.urls import path

from lobby import forms, views

app_name = "lobby"
urlpatterns = [
    path("", views.home, name="home"),
    path("guest/", views.guest, name="guest"),
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(authentication_form=forms.LoginForm), name="login"),
    path("logout/", views.logout_page, name="logout"),
    path("matches/new/", views.match_create, name="match_create"),
    path("play/computer/", views.computer_play, name="computer_play"),
    path("play/friend/", views.friend_play, name="friend_play"),
    path("language/", views.language_set, name="set_language"),
]
