from django.urls import path

from notify import views

app_name = "notify"
urlpatterns = [
    path("sw.js", views.service_worker, name="service_worker"),
    path("account/notifications/", views.settings_page, name="settings"),
    path("account/notifications/push/", views.push_subscribe, name="push_subscribe"),
    path("account/notifications/push/remove/", views.push_unsubscribe, name="push_unsubscribe"),
    path("notifications/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("notifications/confirm/<str:token>/", views.confirm, name="confirm"),
]
