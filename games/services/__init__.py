"""Every write to a match happens here, each in one transaction, broadcast only after commit.

One module per entity: ``moves`` (the hot path), ``matches`` (create, join, resign, claim,
abort, rematch), ``presence`` (pages opening and closing), ``chat``; ``common`` holds the
steps they share. Callers import from the package: ``services.move_submit(...)``.
"""

from games import bots
from games.errors import ServiceError
from games.services.chat import chat_post
from games.services.matches import (
                                    computer_user,
                                    match_abort,
                                    match_claim,
                                    match_create,
                                    match_resign,
                                    rematch_offer,
                                    seat_join,
)
from games.services.moves import computer_turn_resume, move_submit
from games.services.presence import presence_enter, presence_leave, presence_touch

# The computer's turns end like anyone's, through move_submit: bots receives it here, so it
# never imports the services that schedule it.
bots.use_submit(move_submit)

__all__ = ["ServiceError", "chat_post", "computer_turn_resume", "computer_user", "match_abort", "match_claim",
           "match_create", "match_resign", "move_submit", "presence_enter", "presence_leave", "presence_touch",
           "rematch_offer", "seat_join"]
