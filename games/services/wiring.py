"""Hand the lower layers the services they call above them (``games.runtime.handoffs``): the
computer's turns are scheduled by the services, so they cannot import them and receive them
here, as one typed bundle. Run once per process by the games app's ``ready`` (``games.apps``):
in the web server, a worker, a management command and the tests alike."""

from games.computer import bots
from games.services.moves import move_submit


def wire() -> None:
    """Set every hand-off (again: nothing changes)."""
    bots.SERVICES.set(bots.BotServices(move_submit=move_submit))
