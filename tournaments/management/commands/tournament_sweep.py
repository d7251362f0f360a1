"""Start the tournaments whose time has come, and move the running ones on."""

from django.core.management.base import BaseCommand

from tournaments import formats


class Command(BaseCommand):
    help = "Start (or cancel) every tournament due to start, and create the games running ones still miss."

    def handle(self, *args, **options):
        started = formats.tournaments_sweep()
        self.stdout.write(f"{started} tournament{'s' if started != 1 else ''} due to start.")
