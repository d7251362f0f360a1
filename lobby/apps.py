from django.apps import AppConfig


class LobbyConfig(AppConfig):
    name = "lobby"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from lobby.services import pages_signed_out

        user_logged_out.connect(pages_signed_out, dispatch_uid="lobby.pages_signed_out")
