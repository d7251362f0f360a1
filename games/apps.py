from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every process (server, worker, management command, test) hands the lower layers the
        # services they call, before anything can ask for them.
        from games.services import wiring  # noqa: PLC0415 (the models load once the apps are ready)

        wiring.wire()
