"""Write the tests' pseudo-locale (lobby.translations.write_pseudo_locale)."""

from django.core.management.base import BaseCommand

from lobby import translations


class Command(BaseCommand):
    help = ("Write locale/xx/ (git-ignored): every string makemessages finds, accented and bracketed, "
            "compiled. The tests render pages in it to find English left untranslated.")

    def handle(self, *args, **options):
        folder = translations.write_pseudo_locale()
        self.stdout.write(f"Pseudo-locale written to {folder}.")
