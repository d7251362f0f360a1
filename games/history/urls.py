from django.urls import path

app_name = "history"
urlpatterns: list = []
