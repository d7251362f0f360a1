"""End the guest accounts whose browser sessions have all ended (lobby.services.guests_expire)."""

from django.core.management.base import BaseCommand

from lobby import services


class Command(BaseCommand):
    help = ("End every guest that no unexpired session signs in, as its logging out would: its name is "
            "free again and its unfinished matches are settled. bin/start runs it; run it daily beside "
            "clearsessions on a server that stays up.")

    def handle(self, *args, **options):
        ended = services.guests_expire()
        self.stdout.write(f"{ended} guest{'s' if ended != 1 else ''} ended.")
