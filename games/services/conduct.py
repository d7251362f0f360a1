"""Match conduct: aborting a match that never really began, draws by agreement, takebacks.

Offers live on the match row (``games.match.conduct``) and reach every page with its state;
answers that leave no trace in the state (a declined offer) reach the pages as a notice.
"""

from __future__ import annotations

from django.db import transaction

from games.ggp import manager as ggp_manager
from games.match import clocks, conduct, invites
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.rulesets import stored_rules
from games.models import Match, Move, ReplacedMove, Seat
from games.services import broadcast, flagfall
from games.services.guards import lock_match, lock_playing_seat, require_version
from games.services.invites import invite_ending
from games.services.lifecycle import call_off, every_seat_moved, finish_drawn
from games.services.moves import forget

# The time controls whose clocks run while a request waits for an answer.
TAKEBACKS_OFF = ("real_time", "per_move")


def match_abort(*, match_id: int, user) -> Match:
    """Call off a match that has not really begun: still waiting for players (its creator or
    any seated player), or started but not every seat has moved yet (any of its players). It
    ends with no result and counts nowhere."""
    with transaction.atomic():
        match = lock_match(match_id)
        seated = user.is_authenticated and match.seats.filter(player=user).exists()
        if not (seated or (user.is_authenticated and match.created_by_id == user.pk)):
            raise ServiceError("not_seated", "Only a player of this match can abort it.")
        reason = ""
        if match.status == Match.Status.ACTIVE:
            if every_seat_moved(match):
                raise ServiceError("match_under_way", "Every player has moved: the match can no longer be "
                                                      "aborted. Resign, or offer a draw.")
            seat = match.seats.filter(player=user).first()
            reason = f"{seat.role} aborted it before every player had moved" if seat else ""
        elif match.status != Match.Status.WAITING:
            raise ServiceError("match_over", "This match is over.")
        ended = None
        if match.status == Match.Status.WAITING and match.is_private and match.rematch_of_id is None:
            ended = invite_ending(match, invites.CALLED_OFF)
        call_off(match, reason=invites.reason(invites.CALLED_OFF) if ended else reason, invite_ended=ended)
        transaction.on_commit(lambda: forget(match.pk))
    return match


def draw_offer(*, match_id: int, user) -> Match:
    """Offer a draw, or accept the one on the table. It is agreed once every player still
    playing has offered or accepted: those players score 50 (a resigned seat 0). Another
    player's move lets the offer lapse (``games.match.conduct.after_move``). The computer takes no
    draws, so there are none while it plays."""
    return _join_draw(match_id, user, answering=False)


def draw_accept(*, match_id: int, user) -> Match:
    """Accept the draw another player offered."""
    return _join_draw(match_id, user, answering=True)


def _join_draw(match_id: int, user, *, answering: bool) -> Match:
    with transaction.atomic():
        match, seats, seat = lock_playing_seat(match_id, user)
        offers = conduct.parse(match.offers)
        if seat.role in offers["draw"]:
            raise ServiceError("already_offered", "You have offered a draw: wait for the answer.")
        if answering and not offers["draw"]:
            raise ServiceError("no_offer", "There is no draw offer for you to answer.")
        if not offers["draw"] and seat.role in offers["declined"]:
            raise ServiceError("draw_declined", "Your draw offer was declined: you may offer again after your next move.")
        playing = [s for s in seats if not s.resigned]
        if any(s.player.is_computer for s in playing):
            raise ServiceError("computer_plays_on", "The computer does not take draw offers: play on, or resign.")
        if not every_seat_moved(match):
            raise ServiceError("draw_too_early", "No draw before every player has moved: "
                                                 "abort the match instead (it is not rated).")
        offers["draw"].append(seat.role)
        if {s.role for s in playing} <= set(offers["draw"]):
            _agree_draw(match, seats)
        else:
            _save_offers(match, offers)
    return match


def draw_decline(*, match_id: int, user) -> Match:
    """Decline the draw on the table: the offer is gone, and everyone is told. Who offered it
    may offer again only after their next move; who only accepted it may offer at once."""
    return _decline(match_id, user, "draw", "declined the draw")


def takeback_offer(*, match_id: int, user, version: int) -> Match:
    """Ask to take back your last move (and everything played after it) as the match stands at
    ``version``, the one the page shows (else ``stale_version``: a stale page would undo a turn
    it never saw). The other players still playing must accept; the computer always does, at
    once, and a GGP program never can, so none is asked while one plays on. Not in real-time or
    per-move matches (a clock runs while the others answer), except a casual one against the
    computer alone (as on lichess)."""
    with transaction.atomic():
        match, seats, seat = lock_playing_seat(match_id, user)
        require_version(match, version)
        if any(ggp_manager.is_ggp(s.player) for s in seats if s.pk != seat.pk and not s.resigned):
            raise ServiceError("program_plays_on", "A GGP program plays in this match and cannot answer a takeback "
                                                   "request: play on, or resign.")
        if TimeControl.of(match).kind in TAKEBACKS_OFF and not _against_the_computer_alone(match, seats, seat):
            raise ServiceError("takebacks_off", "Takebacks are off in real-time and per-move matches, except casual "
                                                "ones against the computer.")
        if not match.moves.filter(role=seat.role).exists():
            raise ServiceError("nothing_to_take_back", "You have not moved yet: there is nothing to take back.")
        offers = conduct.parse(match.offers)
        if offers["takeback"]:
            raise ServiceError("takeback_pending", "A takeback has been asked for already: it waits for an answer.")
        if seat.role in offers["takeback_declined"]:
            raise ServiceError("takeback_declined", "Your takeback request was declined: you may ask again "
                                                    "after your next move.")
        offers["takeback"] = [seat.role]
        _settle_takeback(match, seats, offers)
    return match


def _against_the_computer_alone(match: Match, seats: list[Seat], seat: Seat) -> bool:
    """Whether ``seat`` plays a casual match in which every other seat is the computer's."""
    return not match.rated and all(s.player is not None and s.player.is_computer for s in seats if s.pk != seat.pk)


def takeback_accept(*, match_id: int, user, version: int) -> Match:
    """Accept another player's takeback request, as the match stands at ``version`` (else
    ``stale_version``); the last acceptance undoes the actions."""
    with transaction.atomic():
        match, seats, seat = lock_playing_seat(match_id, user)
        require_version(match, version)
        offers = conduct.parse(match.offers)
        if not offers["takeback"] or seat.role in offers["takeback"]:
            raise ServiceError("no_offer", "There is no takeback request for you to answer.")
        offers["takeback"].append(seat.role)
        _settle_takeback(match, seats, offers)
    return match


def takeback_decline(*, match_id: int, user) -> Match:
    return _decline(match_id, user, "takeback", "declined the takeback")


def _decline(match_id: int, user, kind: str, verb: str) -> Match:
    with transaction.atomic():
        match, seats, seat = lock_playing_seat(match_id, user)
        offers = conduct.parse(match.offers)
        if not offers[kind] or seat.role in offers[kind]:
            raise ServiceError("no_offer", f"There is no {kind} offer for you to answer.")
        # who offered (the first: the others only accepted) may not offer again before moving
        declined = "declined" if kind == "draw" else "takeback_declined"
        offers[declined] = sorted(set(offers[declined]) | {offers[kind][0]})
        offers[kind] = []
        _save_offers(match, offers)
        broadcast.match_notice_on_commit(match.pk, f"{seat.player} {verb}.")
    return match


def _save_offers(match: Match, offers: dict[str, list[str]]) -> None:
    match.offers = conduct.format(offers)
    match.save(update_fields=["offers"])
    _changed(match)


def _changed(match: Match) -> None:
    transaction.on_commit(lambda: forget(match.pk))
    broadcast.match_changed_on_commit(match.pk)


def _agree_draw(match: Match, seats: list[Seat]) -> None:
    finish_drawn(match, seats, "drawn by agreement")
    transaction.on_commit(lambda: forget(match.pk))


def _settle_takeback(match: Match, seats: list[Seat], offers: dict[str, list[str]]) -> None:
    """Undo the requester's last move (its last turn: the run of its own actions that ended
    last, so a Quarto turn's placing and choosing go together) and everything after it, if
    every other human still playing accepted; else keep the request on the table. The
    version goes up: a computer's answer thought about meanwhile is refused as stale. A move
    taken back that was played at random (``ReplacedMove``) goes with its mark. The clocks:
    ``clocks.take_back``."""
    requester = offers["takeback"][0]
    waiting_for = {s.role for s in seats if not s.resigned and not s.player.is_computer} - set(offers["takeback"])
    if waiting_for:
        _save_offers(match, offers)
        return
    game = stored_rules(match.game)
    moves = list(match.moves.order_by("ply"))
    cut = max(m.ply for m in moves if m.role == requester)
    while cut > 1 and moves[cut - 2].role == requester:
        cut -= 1
    state = game.initial_state()
    for move in moves[:cut - 1]:
        state = game.play(state, move.role, move.action)
    Move.objects.filter(match=match, ply__gte=cut).delete()
    ReplacedMove.objects.filter(match=match, ply__gte=cut).delete()  # a ply played again is its mover's own
    match.state, match.plies, match.version, match.offers = game.state_to_json(state), cut - 1, match.version + 1, ""
    moved = {m.role for m in moves[:cut - 1]}
    match.clock, match.deadline = clocks.take_back(TimeControl.of(match), match.clock, after=game.to_move(state),
                                                   unmoved=[r for r in game.roles if r not in moved], at=clocks.now())
    match.save(update_fields=["state", "plies", "version", "offers", "clock", "deadline"])
    flagfall.arm_on_commit(match.pk, match.deadline)
    _changed(match)
