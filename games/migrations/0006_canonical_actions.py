"""Store every recorded action in its one spelling (games.rules canonical_action): moves stored
before the rules refused odd spellings keep their meaning and become labelable again. An action
the rules cannot read is left as it is (replay and export already report it). The spelling is
this migration's own frozen copy of the rules' (``frozen_canonical_action``), so that what it
does never changes with the app's code."""

import re

from django.db import migrations

MAX_ACTION_LENGTH = 40
GDL_SPACE = re.compile(r"[ \t\r\n]+")
# Each rule set's actions in their one spelling. The rules' numbers (ASCII digits, no leading
# zero) within their ranges are exactly these digits; the nine-board mark is x or o.
NINE_BOARD = r"\(play [1-3] [1-3] [1-3] [1-3] [xo]\)"
THREE_PLAYER = r"\(mark [1-5] [1-5]\)"
QUARTO = r"\(select p[01]{4}\)|\(place p[01]{4} [1-4] [1-4]\)"
SPELLINGS = {slug: re.compile(pattern) for slug, pattern in {
    "nine-board-tictactoe": NINE_BOARD,
    "tictactoe-x9": r"\(mark [1-3] [1-3] [1-3] [1-3]\)",
    "nine-board-tictactoe-pie": rf"{NINE_BOARD}|swap",
    "tictactoe-3player": THREE_PLAYER,
    "tictactoe-3player-torus": THREE_PLAYER,
    "quarto-misere": QUARTO,
    "quarto-misere-classic": QUARTO,
}.items()}


def frozen_canonical_action(game_slug, action):
    """``games.rules.get_game(game_slug).canonical_action(action)`` frozen as it was when this
    migration was written (commit afe6357, 23 November 2026): GDL's latitude folded (ASCII
    whitespace runs as one space, none inside the brackets' edges or at the ends, lower case),
    or None where the rules raised (not ASCII text of at most 40 characters, not an action of the
    game, an unknown game). tests/games/test_migrations.py checks that both still agree: a
    deliberate change of the spelling (which needs a migration of its own for the stored moves)
    changes that test, never this copy."""
    pattern = SPELLINGS.get(game_slug)
    if pattern is None or not isinstance(action, str) or len(action) > MAX_ACTION_LENGTH or not action.isascii():
        return None
    text = GDL_SPACE.sub(" ", action).strip(" ").lower().replace("( ", "(").replace(" )", ")")
    return text if pattern.fullmatch(text) else None


def canonical(apps, schema_editor):
    Move = apps.get_model("games", "Move")
    changed = []
    for move in Move.objects.select_related("match").only("id", "action", "match__game").iterator(chunk_size=2000):
        spelling = frozen_canonical_action(move.match.game, move.action)
        if spelling is not None and spelling != move.action:
            move.action = spelling
            changed.append(move)
    Move.objects.bulk_update(changed, ["action"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("games", "0005_drop_presence_rows")]
    operations = [migrations.RunPython(canonical, migrations.RunPython.noop)]
