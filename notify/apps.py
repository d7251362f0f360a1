from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "notify"
    verbose_name = "Notifications"
    default_auto_field = "django.db.models.BigAutoField"
