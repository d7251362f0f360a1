"""End every timed match whose clock ran out while no server process was running."""

from django.core.management.base import BaseCommand

from games import services


class Command(BaseCommand):
    help = "Flag every active match whose mover's time ran out (bin/start runs this before serving)."

    def handle(self, *args, **options):
        fallen = services.clock_sweep()
        self.stdout.write(f"{fallen} match{'es' if fallen != 1 else ''} ended on time.")
