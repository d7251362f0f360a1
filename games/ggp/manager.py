"""Boardhall as the GGP game manager of a match with GGP seats: START, PLAY, STOP, ABORT.

Every committed change of such a match (it started, a move, it finished or was called off)
asks for ``ggp_match_changed`` off the request path (``offpath``). One task at a time serves
a match, in any process, so each player hears the steps in order: the match's ``GGPProgress``
row says what was sent and which task holds the match (``claim``, until ``held_until``). A
change that comes while another task holds the match only counts itself (``asked``): the
holder serves again before it lets go, so no change is lost and no task waits on another's
play clock. A holder that fell silent (its process died) loses the match when its time is up.
What the task does, from the match as it is now:

- a match that just started: ``(START <id> <role> (<gdl>) <startclock> <playclock>)`` to each
  GGP seat at once, with the start clock to answer ``ready``. A player that answers ``busy``
  is in another match: the match is called off (it never began), the player shown busy, and
  the other GGP seats (they may have taken the match on) hear ABORT. One that gives no valid
  answer in time is shown away, and a rated match is called off too (ABORT); a casual one goes
  on.
- each step: ``(PLAY <id> <previous joint move>)`` to every GGP seat (``nil`` first, ``noop``
  for a role that had no choice), with the play clock; the next step goes out once every
  answer came (a noop answer may take the whole play clock), as GGP managers do. The answer of
  the seat to move is its move: played through ``move_submit`` like anyone's; an answer later
  than the play clock, not legal, or none by the play clock plus ``GGP_GRACE_SECONDS`` is
  replaced by a random legal move, recorded with the reason (``move_replace``). The play clock
  runs from the seat's own PLAY (``sent_at``), not from the move before it: the flag waits for
  it (``flag_deadline``), the move path leaves the seat's time to this judgement, and the pages
  hear the state again as the PLAY leaves, its clock counted from then (``play_sent``).
- the end: ``(STOP <id> <last joint move>)``, or ``(ABORT <id>)`` for a match called off.

No database connection or lock is held while a player thinks (the claim is a row's value,
not a lock). A step is recorded as sent before it goes out, so players hear each step once:
when the task that sent it died before its answers came in (a worker restarted), the next task
to serve the match plays the GGP mover's turn at random as "answer lost" and carries on. Every
process that serves GGP tasks (each ``runworker ggp``, or the embedded server) looks for such
matches every ``GGP_RESUME_SECONDS`` (``resume_stalled``), so a match whose task died moves on
without waiting for anyone's next move. A match of rules this site no longer has is skipped
while active (``rules_or_skip``: one warning), until the clock sweep calls it off
(``services.clock_flag``); its programs hear ABORT then.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import DatabaseError, transaction
from django.db.models import F, Q
from django.utils import timezone

from games.ggp import client, offpath, protocol
from games.ggp.gdl import kif
from games.ggp.gdl.moves import from_gdl, to_gdl
from games.ggp.gdl.sheets import sheet_text
from games.match import clocks
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.rulesets import known_rules, rules_or_skip
from games.models import GGPPlayer, GGPProgress, Match, Move, Seat
from games.runtime import eventloop, outages, starting
from games.runtime.dbthreads import db
from games.runtime.handoffs import Handoff

logger = logging.getLogger(__name__)

NOOP = "noop"
MAX_SUBMITS = 5  # a move refused as stale (an offer moved the version meanwhile) is sent again
HOLD_MARGIN = 30.0  # seconds a task holds a match beyond the call it is about to make

Answer = tuple[int, str | None, str, str]  # the GGP mover's: plies, action or None, reason, text


class MoveSubmit(Protocol):
    def __call__(self, *, match_id: int, user: AbstractBaseUser, action: str, version: int) -> object: ...


class MoveReplace(Protocol):
    def __call__(self, *, match_id: int, version: int, role: str, reason: str, answer: str = "") -> object: ...


class MatchCallOff(Protocol):
    def __call__(self, *, match_id: int, reason: str) -> object: ...


class ClockPlaySent(Protocol):
    def __call__(self, *, match_id: int) -> None: ...


@dataclass(frozen=True)
class ManagerServices:
    """The services the manager calls (they tell it of every change, so it cannot import them):
    ``move_submit`` plays a GGP seat's answer like anyone's move, ``move_replace`` a random
    legal move in its place, ``ggp_match_call_off`` ends a match that never began, and
    ``clock_play_sent`` shows the pages the GGP mover's clock counted from its PLAY."""

    move_submit: MoveSubmit
    move_replace: MoveReplace
    ggp_match_call_off: MatchCallOff
    clock_play_sent: ClockPlaySent


SERVICES = Handoff(ManagerServices, needed_by="games.ggp.manager (the GGP game manager)")


ACCOUNT_PREFIX = "ggp-"  # the user names of GGP players' accounts (players.ggp_player_register)


def is_ggp(user) -> bool:
    """Whether ``user`` is a registered GGP player's account (no query: its user name says so)."""
    return user is not None and user.is_bot and user.username.startswith(ACCOUNT_PREFIX)


def is_served(user) -> bool:
    """Whether the manager calls ``user`` in its matches: a GGP player's account whose player
    was not removed (a removed one's turns are left to the flag). Reads the player's row
    unless it came with ``user``."""
    return is_ggp(user) and hasattr(user, "ggp_player") and user.ggp_player.removed_at is None


def after_commit(match_id: int, seats=None) -> None:
    """After this transaction commits, let the manager see ``match_id`` if a GGP player holds
    one of its seats (``seats`` with their players; None: look them up)."""
    if seats is None:
        has = Seat.objects.filter(match_id=match_id, player__username__startswith=ACCOUNT_PREFIX,
                                  player__is_bot=True).exists()
    else:
        has = any(is_ggp(s.player) for s in seats)
    if has:
        transaction.on_commit(lambda: _changed(match_id), robust=True)


def _changed(match_id: int) -> None:
    """Right after the change committed, in the thread that committed it: count it, then hand
    the task over. Counted here, not when the task runs: a task that holds the match (the one
    that played this move, or one waiting on a player's answer) sees the count grown when it
    comes to let go, and serves again, instead of letting go while this task is still on its
    way. Between the two nobody would hold the match, and the flag-fall timer (armed by the
    same commit, at once when the turn's clock ran out while the manager waited on the steps
    before) would take the turn of a GGP seat whose PLAY had not gone out yet as lost."""
    try:
        _ask(match_id)
        counted = True
    except DatabaseError as err:  # the task counts it then, as before; it must be asked for all the same
        outages.report_or_log("counting a GGP match's change (its task counts it)", err, logger)
        counted = False
    offpath.run("ggp_match_changed", match_id, counted)


def _ask(match_id: int) -> None:
    """Count one change of ``match_id`` (its progress row made at the first)."""
    if not GGPProgress.objects.filter(pk=match_id).update(asked=F("asked") + 1):  # the match's first change
        GGPProgress.objects.get_or_create(match_id=match_id)
        GGPProgress.objects.filter(pk=match_id).update(asked=F("asked") + 1)


@offpath.task
def ggp_match_changed(match_id: int, counted: bool = False) -> None:
    """Serve ``match_id`` unless another task holds it; ``counted``: the change was counted
    as it committed (``_changed``), else it is counted here (``resume_stalled``)."""
    claim = _claim(match_id, counted)
    if claim is None:
        return  # another task holds the match: it serves this change too before it lets go
    try:
        while True:
            # read before the match: a change committed after this read bumps ``asked``
            progress = GGPProgress.objects.filter(pk=match_id).first()
            if progress is None:
                return
            _serve(match_id, claim, progress)
            if _let_go(match_id, claim, progress.asked):
                return
    except BaseException:
        GGPProgress.objects.filter(pk=match_id, claim=claim).update(claim="", held_until=None)
        raise


def _claim(match_id: int, counted: bool = False) -> str | None:
    """Count this change (unless it was ``counted`` as it committed), then take the match for
    this task unless another holds it (and its time is not up): the claim, or None. Counting
    first means a holder that lets go after this task looked either sees the count grow (and
    serves again) or leaves the match free for this task to take."""
    if not Match.objects.filter(pk=match_id).exists():
        return None
    if not counted:
        _ask(match_id)
    claim, now = secrets.token_hex(8), timezone.now()
    taken = (GGPProgress.objects.filter(pk=match_id).filter(Q(claim="") | Q(held_until__lt=now))
             .update(claim=claim, held_until=now + timedelta(seconds=HOLD_MARGIN)))
    return claim if taken else None


def _let_go(match_id: int, claim: str, asked: int) -> bool:
    """Let the match go if no change was asked for since ``asked``: True when done (let go,
    or no longer this task's), False when it must serve again."""
    if GGPProgress.objects.filter(pk=match_id, claim=claim, asked=asked).update(claim="", held_until=None):
        return True
    return not GGPProgress.objects.filter(pk=match_id, claim=claim).exists()


def _hold(match_id: int, claim: str, seconds: float) -> bool:
    """Keep the match for a call of up to ``seconds``; False when it is no longer this task's
    (its time ran out and another took it): it must not send anything more."""
    until = timezone.now() + timedelta(seconds=seconds + HOLD_MARGIN)
    return bool(GGPProgress.objects.filter(pk=match_id, claim=claim).update(held_until=until))


def _note(match_id: int, claim: str, **progress: object) -> None:
    GGPProgress.objects.filter(pk=match_id, claim=claim).update(**progress)


@dataclass
class _View:
    match: Match
    game: object  # None: rules this site no longer has (``_serve`` can only end the match)
    control: TimeControl
    states: list  # the state before each ply, and the current one last
    actions: list[tuple[str, str]]  # (role, action) of each ply
    seats: dict[str, GGPPlayer] = field(default_factory=dict)  # role -> GGP player


def _read(match_id: int) -> _View | None:
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return None
    seats = {s.role: s.player.ggp_player for s in Seat.objects.filter(match_id=match_id)
             .select_related("player__ggp_player") if is_served(s.player)}
    game = known_rules(match.game)
    if game is None:
        return _View(match, None, TimeControl.of(match), [], [], seats)
    actions = list(Move.objects.filter(match_id=match_id).order_by("ply").values_list("role", "action"))
    states = [game.initial_state()]
    for role, action in actions:
        states.append(game.play(states[-1], role, action))
    return _View(match, game, TimeControl.of(match), states, actions, seats)


def _serve(match_id: int, claim: str, progress: GGPProgress) -> None:
    """Send what the match as it is now asks for, from what ``progress`` says was sent."""
    view = _read(match_id)
    if progress.ended or view is None or not view.seats:
        return
    if not progress.started and view.match.status != Match.Status.ACTIVE:
        return  # never started (or called off before it began): nobody to tell
    mid = protocol.match_id(match_id)
    if view.game is None:
        # its rules are gone (a rule set removed since, or a damaged row): no step can be
        # written; skipped while active (one warning); once it is over its seats hear ABORT
        if view.match.status == Match.Status.ACTIVE:
            rules_or_skip(match_id=match_id, slug=view.match.game)
        else:
            _end(view, claim, mid)
        return
    if not progress.started:
        start = (view.control.start or 0) + settings.GGP_GRACE_SECONDS
        if not _hold(match_id, claim, start):
            return
        _note(match_id, claim, started=True)
        if view.match.status == Match.Status.ACTIVE and not _start(view, mid, claim):
            return
    plies, active = len(view.actions), view.match.status == Match.Status.ACTIVE
    answer: Answer | None = None
    # every step in order, the ones missed included (the computer or a resigned seat's
    # random turns can move on before a PLAY went out); the last one's answer counts
    for step in range(progress.sent + 1, plies + (1 if active else 0)):
        seconds = _clock(view) + settings.GGP_GRACE_SECONDS
        if not _hold(match_id, claim, seconds):
            return
        _note(match_id, claim, sent=step, sent_at=clocks.now())
        if step == plies and active and _ggp_mover(view) is not None:
            SERVICES.get().clock_play_sent(match_id=match_id)  # its clock runs from now: the pages show it so
        answers = _send_all(view, protocol.play(mid, _joint(view, step)), seconds)
        if step == plies:
            answer = _judge(view, answers)
    if active and progress.sent == plies:
        # this step went out before, and the task that sent it let go without playing its
        # answer: it died while the players thought (or the answer could not be played)
        answer = _unanswered(view)
    if active:
        _play_answer(match_id, answer)
        return
    _end(view, claim, mid)


def _end(view: _View, claim: str, mid: str) -> None:
    """The match is over: STOP with the last joint move if it finished, else ABORT (called
    off; or its rules are gone, so its last joint move cannot be written)."""
    match_id = view.match.pk
    if not _hold(match_id, claim, _clock(view)):
        return
    _note(match_id, claim, ended=True)
    if view.match.status == Match.Status.FINISHED and view.game is not None:
        _send_all(view, protocol.stop(mid, _joint(view, len(view.actions))), _clock(view))
    else:
        _send_all(view, protocol.abort(mid), _clock(view))


def _clock(view: _View) -> float:
    return float(view.control.play or settings.GGP_INFO_SECONDS)


def _start(view: _View, mid: str, claim: str) -> bool:
    """START to every GGP seat; False when the match is called off. A seat that answers
    ``busy`` is in another match: the match never began, that seat hears nothing more and the
    others (ready, or maybe so: a late or garbled answer) hear ABORT, as the protocol ends a
    match a player accepted. A seat that
    gives no valid answer in time (none, an error, not ``ready``, or after the start clock) is
    shown away: a rated match is called off then (it never began: a side that never moves
    makes no rated result, as on lichess) and its seats hear ABORT; a casual one goes on, that
    seat's turns played at random unless it answers PLAY."""
    gdl = _gdl(view.game.slug)
    start, play = view.control.start or 0, view.control.play or int(settings.GGP_INFO_SECONDS)
    answers = _send_each(view, lambda role: protocol.start(mid, role, gdl, start, play),
                         start + settings.GGP_GRACE_SECONDS)
    said = {role: _started(answer, start) for role, answer in answers.items()}
    for role, (word, note) in said.items():
        status = {"ready": GGPPlayer.Status.ONLINE, "busy": GGPPlayer.Status.BUSY}.get(word, GGPPlayer.Status.AWAY)
        GGPPlayer.objects.filter(pk=view.seats[role].pk).update(status=status, note=note[:200])
    busy = [role for role, (word, _) in said.items() if word == "busy"]
    if busy:
        _note(view.match.pk, claim, ended=True)  # it never began: ABORT below is the last message
        SERVICES.get().ggp_match_call_off(match_id=view.match.pk,
                                          reason=f"{view.seats[busy[0]].account} is busy in another match")
        took_it_on = [role for role in view.seats if role not in busy]  # a busy player never took the match on
        if took_it_on and _hold(view.match.pk, claim, _clock(view)):
            _send_all(view, protocol.abort(mid), _clock(view), roles=took_it_on)
        return False
    unready = [str(view.seats[role].account) for role, (word, _) in said.items() if word != "ready"]
    if unready and view.match.rated:
        SERVICES.get().ggp_match_call_off(match_id=view.match.pk,
                                          reason=f"{' and '.join(unready)} did not answer START ready in time")
        return False
    return True


def _started(answer: client.Answer, start: float) -> tuple[str | None, str]:
    """What a START ``answer`` said (``ready``, ``busy``, or None for no valid answer within
    the ``start`` clock) and the player's note on it."""
    if not answer.ok:
        return None, f"START: {answer.failure}"
    try:
        word = protocol.read_word(answer.text, "ready", "busy")
    except protocol.AnswerError as err:
        return None, f"START answered, not as the protocol says: {err}"
    if word == "ready" and answer.seconds > start:
        return None, f"START answered after its start clock ({answer.seconds:.1f} s of {start} s)"
    return word, "answered START busy" if word == "busy" else ""


def _gdl(slug: str) -> str:
    """The rule set's GDL sheet as sent in START: its sentences in canonical KIF, one line,
    without the sheet's comments (a comment would swallow the message's closing parenthesis)."""
    return " ".join(kif.to_text(sentence) for sentence in kif.parse(sheet_text(slug)))


def _joint(view: _View, step: int) -> list[str] | None:
    """The joint move that led to ``step`` plies (None before the first), in the roles' order."""
    if step == 0:
        return None
    mover, action = view.actions[step - 1]
    before = view.states[step - 1]
    return [to_gdl(view.game.slug, before, role, action if role == mover else None) for role in view.game.roles]


def _send_each(view: _View, message: Callable[[str], str], seconds: float,
               roles: list[str] | None = None) -> dict[str, client.Answer]:
    """``message(role)`` to each GGP seat (of ``roles``: by default all) at once; their answers."""
    roles = list(view.seats) if roles is None else roles
    with ThreadPoolExecutor(max_workers=len(roles)) as pool:
        futures = {role: pool.submit(client.call, view.seats[role].url, message(role), seconds=seconds)
                   for role in roles}
    return {role: future.result() for role, future in futures.items()}


def _send_all(view: _View, message: str, seconds: float, roles: list[str] | None = None) -> dict[str, client.Answer]:
    return _send_each(view, lambda role: message, seconds, roles)


def _judge(view: _View, answers: dict[str, client.Answer]) -> Answer | None:
    """The GGP mover's answer to this step: (plies, action or None, reason, answer text)."""
    mover = _ggp_mover(view)
    if mover is None:
        return None
    state = view.states[-1]
    plies, answer = len(view.actions), answers[mover]
    if not answer.ok:
        return plies, None, "silent", answer.failure or ""
    # what it answered is recorded (and shown) only when it reads as a move: the text of
    # anything else that answered at the address is never echoed
    try:
        move = protocol.read_move(answer.text)
    except protocol.AnswerError:
        move = None
    if answer.seconds > _clock(view):
        return plies, None, "late", move or ""
    if move is None:
        return plies, None, "illegal", ""
    action = from_gdl(view.game.slug, state, mover, move)
    return (plies, action, "", move) if action is not None else (plies, None, "illegal", move)


def _unanswered(view: _View) -> Answer | None:
    """The GGP mover's turn of a step whose answers Boardhall lost: played at random, recorded as
    lost (the player is not to blame)."""
    return (len(view.actions), None, "lost", "") if _ggp_mover(view) is not None else None


def _ggp_mover(view: _View) -> str | None:
    """The role to move now if a GGP seat holds it (None: another's turn, or the game is over)."""
    state = view.states[-1]
    mover = None if view.game.is_terminal(state) else view.game.to_move(state)
    return mover if mover in view.seats else None


def flag_deadline(match: Match, at: datetime) -> datetime:
    """When the flag may fall at ``at`` on the turn of a GGP seat of ``match`` (per move). The
    turn began when the move before it committed, but the seat's PLAY may go out later: a step
    goes out once every answer to the one before has come (a noop answer may take the whole play
    clock). The manager judges the seat's answer against the play clock from that PLAY, so the
    flag waits for the same: the play clock from when the PLAY went out, or from ``at`` while a
    task holds the match before sending it (it will), and never less than the match's own
    deadline; then twice the grace, for the manager to act first. The flag falls only when the
    manager cannot (its process went away)."""
    progress = GGPProgress.objects.filter(pk=match.pk).only("sent", "sent_at", "claim", "held_until").first()
    stands = "" if progress is None else progress.play_stands(match.plies)
    play_from = progress.sent_at if stands == "sent" else at if stands == "held" else None
    turn_ends = match.deadline
    if play_from is not None:
        turn_ends = max(turn_ends, play_from + timedelta(seconds=match.clock_play or 0))
    return turn_ends + timedelta(seconds=2 * settings.GGP_GRACE_SECONDS)


def resume_stalled() -> int:
    """Ask the manager for every active match with GGP seats that no task holds (or whose
    holder's time is up): one whose task died moves on. How many were asked for."""
    stalled = list(GGPProgress.objects.filter(match__status=Match.Status.ACTIVE, started=True, ended=False)
                   .filter(Q(claim="") | Q(held_until__lt=timezone.now())).values_list("match_id", flat=True))
    for match_id in stalled:
        offpath.run("ggp_match_changed", match_id)
    return len(stalled)


async def _resume_forever() -> None:
    while True:
        await asyncio.sleep(settings.GGP_RESUME_SECONDS)
        try:
            await db(resume_stalled)()
        except Exception as err:
            outages.report_or_log(f"looking for stalled GGP matches (again in {settings.GGP_RESUME_SECONDS} s)",
                                  err, logger)


def _resume_here() -> None:
    if settings.GGP_RESUME_SECONDS > 0:
        eventloop.start(_resume_forever())


def _resume_in_the_embedded_server() -> None:
    if settings.COMPUTER_WORKERS != "channel":  # with workers, each ``runworker ggp`` looks instead
        _resume_here()


def _resume_in_this_worker() -> None:
    if settings.COMPUTER_WORKERS == "channel":
        _resume_here()


# Where the tasks run: the embedded server (from its first scope), or each worker on the GGP
# channel (as it starts, before any message); the claims keep several workers' asks apart.
starting.on_start("the GGP resume", _resume_in_the_embedded_server, scopes=starting.EVERY_SCOPE)
starting.on_worker_start("the GGP resume", _resume_in_this_worker, channel=offpath.GGP_CHANNEL)


def _play_answer(match_id: int, answer: Answer | None) -> None:
    """Play the GGP mover's answer (or a random legal move for it) at the match's version now,
    if the match still waits for that move; again if an offer moved the version meanwhile."""
    if answer is None:
        return
    plies, action, reason, text = answer
    for _ in range(MAX_SUBMITS):
        match = Match.objects.filter(pk=match_id).only("status", "plies", "version", "game", "state").first()
        if match is None or match.status != Match.Status.ACTIVE or match.plies != plies:
            break
        game = rules_or_skip(match_id=match_id, slug=match.game)
        if game is None:
            break
        mover = game.to_move(game.state_from_json(match.state))
        seat = Seat.objects.select_related("player").filter(match_id=match_id, role=mover).first()
        if seat is None or not is_ggp(seat.player):
            break
        if action is None:
            SERVICES.get().move_replace(match_id=match_id, version=match.version, role=mover, reason=reason,
                                        answer=text)
            break
        try:
            SERVICES.get().move_submit(match_id=match_id, user=seat.player, action=action, version=match.version)
            break
        except ServiceError as err:
            if err.code == "illegal_action":
                action, reason = None, "illegal"
            elif err.code not in {"stale_version", "not_your_turn"}:
                break
