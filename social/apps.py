from django.apps import AppConfig


class SocialConfig(AppConfig):
    name = "social"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.services import blocks, notices  # noqa: PLC0415 (the models load once the apps are ready)
        from social.selectors import blocks_among, followers_among  # noqa: PLC0415 (likewise)

        # The challenge and pairing services ask through this hand-off who blocked whom.
        blocks.install(blocks.BlockReads(among=blocks_among))
        # A starting match's players' followers hear of it through this one.
        notices.followers_install(notices.FollowerReads(among=followers_among))
