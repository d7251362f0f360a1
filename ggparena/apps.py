from django.apps import AppConfig


class GGPArenaConfig(AppConfig):
    name = "ggparena"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Server processes tick the arena on a timer; one of them at a time owns it (a claim).
        from ggparena import runner  # noqa: PLC0415 (the models load once the apps are ready)

        runner.wire()
