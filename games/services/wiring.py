"""Hand the lower layers the services they call above them (``games.runtime.handoffs``): the
computer's turns, the flag-fall timers, the analyses' runner, the GGP manager and the notifications' delivery are scheduled by
the services, so they cannot import them and receive them here, each as one typed bundle. Run
once per process by the games app's ``ready`` (``games.apps``): in the web server, a worker, a
management command and the tests alike."""

from games.computer import analysis_runs, bots
from games.ggp import manager as ggp_manager
from games.services import flagfall, notices
from games.services.analysis import analysis_claim, analysis_fail, analysis_progress, analysis_takeover_seconds
from games.services.clocks import clock_flag, clock_play_sent, clock_sweep
from games.services.departures import waiting_matches_expire
from games.services.moves import computer_turns_resume, move_submit
from games.services.replaced import ggp_match_call_off, move_replace
from notify import delivery as notify_delivery


def sweep() -> int:
    """The periodic sweep: the clocks (``clock_sweep``), then the waiting matches and private
    invitations whose time is up (``waiting_matches_expire``), whatever page is open."""
    return clock_sweep() + waiting_matches_expire()


def wire() -> None:
    """Set every hand-off (again: nothing changes)."""
    bots.SERVICES.set(bots.BotServices(move_submit=move_submit))
    flagfall.SERVICES.set(flagfall.FlagfallServices(clock_flag=clock_flag, clock_sweep=sweep,
                                                    computer_turns_resume=computer_turns_resume))
    analysis_runs.SERVICES.set(analysis_runs.AnalysisServices(
        analysis_claim=analysis_claim, analysis_progress=analysis_progress, analysis_fail=analysis_fail,
        analysis_takeover_seconds=analysis_takeover_seconds))
    ggp_manager.SERVICES.set(ggp_manager.ManagerServices(
        move_submit=move_submit, move_replace=move_replace, ggp_match_call_off=ggp_match_call_off,
        clock_play_sent=clock_play_sent))
    # The notifications read what they need of a match: the pages open on it, moves made in it.
    notify_delivery.use(notices.READS)
