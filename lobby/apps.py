from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_in, user_logged_out

from lobby.language import language_on_login


class LobbyConfig(AppConfig):
    name = "lobby"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from lobby.services import pages_signed_out  # noqa: PLC0415 (the models load once the apps are ready)

        user_logged_out.connect(pages_signed_out, dispatch_uid="lobby.pages_signed_out")
        user_logged_in.connect(language_on_login, dispatch_uid="lobby.language_on_login")
