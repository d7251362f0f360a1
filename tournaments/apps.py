from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A finished tournament game moves its tournament on (games.services.finishing hands the
        # match over after commit); server processes start due tournaments on a timer.
        from tournaments import sweep  # noqa: PLC0415 (the models load once the apps are ready)

        sweep.wire()
