"""manage.py ratings_recompute: rebuild every rating by replaying the rated matches in order."""

from django.core.management.base import BaseCommand

from games.services.ratings import ratings_recompute


class Command(BaseCommand):
    help = "Rebuild every rating from the match log (every finished rated match, in the order it finished)."

    def handle(self, *args, **options) -> None:
        matches, differences = ratings_recompute()
        self.stdout.write(f"Replayed {matches} rated matches; {differences} stored values differed and were corrected.")
