"""Every write to a match happens here, each in one transaction, broadcast only after commit.

One module per entity: ``moves`` (the hot path), ``matches`` (create), ``seats`` (join, give a
free seat to the computer), ``endings`` (resign, claim), ``rematches``, ``conduct`` (abort, draw
offers, takebacks), ``clocks`` (flag fall, the sweep), ``presence`` (pages opening and closing),
``chat``, ``ratings`` (updated where a match finishes), ``pairing`` (the quick-game pool),
``challenges``, ``playing`` (one real-time match at a time: what every start checks and
withdraws); ``common`` holds the steps they share. What a commit sets going lives here too:
``broadcast`` (the messages, after commit) and ``flagfall`` (the timers of running clocks).
``analysis`` queues post-game analyses and stores what the worker finds. Callers import from the
package: ``services.move_submit(...)``.
"""

from games.services import flagfall
from games.computer import analysis_runs, bots
from games.match.errors import ServiceError
from games.services.analysis import (
    analysis_claim,
    analysis_fail,
    analysis_progress,
    analysis_request,
    analysis_takeover_seconds,
)
from games.services.challenges import (
    can_answer_challenges,
    challenge_accept,
    challenge_cancel,
    challenge_create,
    challenge_decline,
    challenge_expire,
    challenge_expire_later,
)
from games.services.chat import chat_post
from games.ggp.players import MAX_PER_OWNER as GGP_MAX_PER_OWNER
from games.ggp.players import REMOVED_COUNTS_DAYS as GGP_REMOVED_COUNTS_DAYS
from games.ggp.players import (
    ggp_player_recheck,
    ggp_player_register,
    ggp_player_remove,
    ggp_players_listed,
    ggp_players_of,
)
from games.services.clocks import clock_flag, clock_play_sent, clock_sweep
from games.services.conduct import (
    draw_accept,
    draw_decline,
    draw_offer,
    match_abort,
    takeback_accept,
    takeback_decline,
    takeback_offer,
)
from games.services.departures import player_depart, waiting_matches_expire
from games.services.endings import match_claim, match_claim_draw, match_resign
from games.services.matches import computer_user, match_create
from games.services.moves import computer_turn_resume, computer_turns_resume, move_memory_prime, move_submit, move_submit_many
from games.services.pairing import pool_enter, pool_leave, pool_pair
from games.services.presence import online_enter, online_leave, presence_enter, presence_leave, presence_touch
from games.services.ratings import ratings_recompute
from games.services.rematches import rematch_decline, rematch_offer
from games.services.replaced import ggp_match_call_off, move_replace
from games.services.seats import seat_give_to_computer, seat_join
from games.ggp import manager as ggp_manager

# The computer's turns end like anyone's, through move_submit: bots receives it here, so it
# never imports the services that schedule it.
bots.use_submit(move_submit)
# Likewise the flag-fall timers receive the clock services they call, and the computer's turns
# their sweep asks for again.
flagfall.use(flag=clock_flag, sweep=clock_sweep, resume=computer_turns_resume)
# And the analyses' runner the queue's steps.
analysis_runs.use(claim=analysis_claim, progress=analysis_progress, fail=analysis_fail,
                  takeover_seconds=analysis_takeover_seconds)
# And the GGP manager the services that play or replace a GGP seat's move, call a match off, or
# show a GGP seat's clock from its PLAY.
ggp_manager.use(submit=move_submit, replace=move_replace, call_off=ggp_match_call_off, play_sent=clock_play_sent)

__all__ = [
    "GGP_MAX_PER_OWNER", "GGP_REMOVED_COUNTS_DAYS", "ServiceError", "analysis_claim", "analysis_fail", "analysis_progress", "analysis_request",
    "analysis_takeover_seconds", "can_answer_challenges", "challenge_accept", "challenge_cancel", "challenge_create", "challenge_decline",
    "challenge_expire", "challenge_expire_later", "chat_post", "clock_flag", "clock_play_sent", "clock_sweep", "computer_turn_resume", "computer_turns_resume",
    "computer_user",
    "draw_accept", "draw_decline", "draw_offer", "ggp_match_call_off", "ggp_player_recheck", "ggp_player_register", "ggp_player_remove",
    "ggp_players_listed", "ggp_players_of", "match_abort", "match_claim", "match_claim_draw", "match_create", "match_resign",
    "move_memory_prime", "move_replace", "move_submit", "move_submit_many", "online_enter", "online_leave", "player_depart", "pool_enter", "pool_leave",
    "pool_pair", "presence_enter", "presence_leave", "presence_touch", "ratings_recompute", "rematch_decline", "rematch_offer",
    "seat_give_to_computer",
    "seat_join",
    "takeback_accept", "takeback_decline", "takeback_offer", "waiting_matches_expire",
]
