"""Hand the lower layers the services they call above them (``games.runtime.handoffs``): the
computer's turns and the flag-fall timers are scheduled by the services, so they cannot import
them and receive them here, each as one typed bundle. Run once per process by the games app's
``ready`` (``games.apps``): in the web server, a worker, a management command and the tests
alike."""

from games.computer import bots
from games.services import flagfall
from games.services.clocks import clock_flag, clock_sweep
from games.services.moves import computer_turns_resume, move_submit


def wire() -> None:
    """Set every hand-off (again: nothing changes)."""
    bots.SERVICES.set(bots.BotServices(move_submit=move_submit))
    flagfall.SERVICES.set(flagfall.FlagfallServices(clock_flag=clock_flag, clock_sweep=clock_sweep,
                                                    computer_turns_resume=computer_turns_resume))
