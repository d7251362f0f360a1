"""Accounts: a guest is a real account tied to a browser session, until it signs up."""

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower


class Users(UserManager):
    def get_by_natural_key(self, username):
        """Signing in (and ``createsuperuser``) finds the account whatever the case typed: no
        two user names differ only in case (``username_unique_ignoring_case``)."""
        return self.get(username__iexact=username)


class User(AbstractUser):
    display_name = models.CharField(max_length=30)
    # games.match.text.name_key(display_name): two players may not go by names with the same key.
    name_key = models.CharField(max_length=120, blank=True, db_index=True)
    is_guest = models.BooleanField(default=False)
    is_computer = models.BooleanField(default=False, help_text="the computer player's account")
    computer_level = models.PositiveSmallIntegerField(null=True, blank=True,
                                                      help_text="the computer's strength, 1 to 4 (games.computer.search.LEVELS)")
    # A program playing through the bot API (botapi.services.bot_upgrade): for good, marked
    # "bot" wherever its name shows, never in the quick-game pool.
    is_bot = models.BooleanField(default=False, help_text="a program's account, playing through the bot API")
    # The language the player chose in the footer's menu (a code of settings.LANGUAGES), blank
    # until chosen: their pages, sockets, emails and notifications use it (lobby.language).
    language = models.CharField(max_length=16, blank=True, default="")

    objects = Users()

    class Meta(AbstractUser.Meta):
        constraints = [models.UniqueConstraint(fields=["name_key"], condition=~models.Q(name_key=""),
                                               name="display_name_unique"),
                       # Sign-up checks this too (lobby.services); two sign-ups at once are held here.
                       models.UniqueConstraint(Lower("username"), name="username_unique_ignoring_case")]

    def __str__(self) -> str:
        return self.display_name or self.username
