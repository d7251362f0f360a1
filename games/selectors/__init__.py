"""Every read the pages and sockets need, shaped for output. No writes here."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games.match import clocks
from games.match.clocks import TimeControl
from games.match.rulesets import known_rules, rules_or_skip, ruleset_name, stored_rules
from games.models import Challenge, ChatMessage, GGPProgress, Match, Move, Seat
from games.rules import SLUGS, Game
from games.runtime import presence
from games.selectors import rows, snapshots
from games.selectors.snapshots import player_json, seat_rating_json

LOBBY_LIMIT = 50
ONLINE_LIMIT = 100  # players listed as online in the lobby
CHAT_HISTORY = 100  # lines sent to a page when it connects


def chat_json(message: ChatMessage) -> dict[str, Any]:
    return {"id": message.pk, "author": player_json(message.author), "text": message.text,
            "at": message.created_at.isoformat()}


def match_chat(*, match_id: int) -> list[dict[str, Any]]:
    """The last lines of the match's chat, oldest first (one query)."""
    return [chat_json(line) for line in reversed(rows.last_chat_lines(match_id, CHAT_HISTORY))]


def match_seats(match_id: int) -> list[Seat]:
    """Every seat of the match with its player (and the player a rematch seat is kept for): one query."""
    return rows.seats_with_players(match_id)


def match_snapshot(*, match: Match, seats: list[Seat] | None = None) -> dict[str, Any]:
    """The full public state of a match, the same for every viewer: one query for the seats
    (unless given, with their players), the moves unless this process remembers them, and the
    rematch of a finished match. Rules this site no longer has are refused (``stored_rules``)."""
    game = stored_rules(match.game)
    if seats is None:
        seats = match_seats(match.pk)
    rematches = list(match.rematches.select_related("created_by")) if match.status == Match.Status.FINISHED else []
    rematch = next((m for m in rematches if m.status != Match.Status.ABORTED), None)
    state = game.state_from_json(match.state)
    return snapshots.build(match=match, game=game, state=state, seats=seats,
                           moves=snapshots.move_list(match_id=match.pk, version=match.version, plies=match.plies,
                                                     game=game),
                           rematch=rematch,
                           rematch_declined=[m.created_by_id for m in rematches if (m.result or {}).get("declined")],
                           ggp_play=ggp_play(match, game, state, seats))


def ggp_play(match: Match, game, state, seats: list[Seat]) -> tuple[str, datetime] | None:
    """Where the PLAY of this step to the GGP seat to move stands, which decides how its clock
    shows (``snapshots.build``): ``("sent", when)`` once it went out (``GGPProgress.sent_at``;
    the play clock runs from then), ``("held", now)`` while the GGP game manager is at the
    match and has yet to send it (a step goes out once every answer to the one before has
    come; the clock stands whole until then, as the flag waits), else None: not a served GGP
    seat's turn in an active per-move match, or no manager at it (the turn's clock as it is).
    A query only on a program's turn (GGP players' accounts are bots)."""
    if match.status != Match.Status.ACTIVE or not match.clock_play or game.is_terminal(state):
        return None
    mover = next((s for s in seats if s.role == game.to_move(state)), None)
    if mover is None or mover.player is None or not mover.player.is_bot:
        return None
    progress = (GGPProgress.objects.filter(match_id=match.pk, match__seats__role=mover.role,
                                           match__seats__player__ggp_player__isnull=False,
                                           match__seats__player__ggp_player__removed_at__isnull=True)
                .only("sent", "sent_at", "claim", "held_until").first())
    stands = "" if progress is None else progress.play_stands(match.plies)
    if stands == "sent":
        return "sent", progress.sent_at
    return ("held", clocks.now()) if stands == "held" else None


def match_snapshot_by_id(*, match_id: int) -> dict[str, Any]:
    return match_snapshot(match=Match.objects.get(pk=match_id))


def viewer_roles(*, snapshot: dict[str, Any], user) -> list[str]:
    """The roles ``user`` holds in the match of ``snapshot``."""
    if user is None or not user.is_authenticated:
        return []
    return [s["role"] for s in snapshot["seats"] if s["player"] and s["player"]["id"] == user.pk]


@dataclass(frozen=True)
class ComputerTurn:
    """What the computer needs to play its turn: the position, its seat's account, a seed, and
    how long it may think (``COMPUTER_SECONDS``, less when the match's clock says so)."""

    match_id: int
    version: int
    game: Game
    state: Any
    user: Any
    seed: str
    seconds: float


def computer_turn(*, match_id: int, version: int) -> ComputerTurn | None:
    """The computer's turn at ``version`` of an active match, or None when it is not the computer's
    (or the match's rules are gone: ``rules_or_skip``)."""
    match = Match.objects.filter(pk=match_id, status=Match.Status.ACTIVE, version=version).first()
    game = None if match is None else rules_or_skip(match_id=match.pk, slug=match.game)
    if game is None:
        return None
    state = game.state_from_json(match.state)
    seat = (match.seats.filter(role=game.to_move(state), player__is_computer=True, resigned=False)
            .select_related("player").first())
    if seat is None:
        return None
    seconds = clocks.think_seconds(TimeControl.of(match), match.clock, seat.role, clocks.now(), settings.COMPUTER_SECONDS)
    return ComputerTurn(match.pk, version, game, state, seat.player, f"{match.random_token}:{version}", seconds)


def player_active(*, user_id: int) -> bool:
    """Whether the account ``user_id`` may still act: a guest that logged out (or expired) and a
    closed account may not. One query."""
    return get_user_model().objects.filter(pk=user_id, is_active=True).exists()


def players_active(*, user_ids: set[int]) -> set[int]:
    """Which of the accounts ``user_ids`` may still act (``player_active``). One query."""
    return set(get_user_model().objects.filter(pk__in=user_ids, is_active=True).values_list("pk", flat=True))


def _holds_a_seat(user) -> Q:
    """On Seat: seated as ``user``, or kept for them (a rematch seat they have not taken yet)."""
    return Q(player=user) | Q(reserved_for=user)


def match_visible_q(*, user, prefix: str = "") -> Q:
    """``match_can_view`` without an invite link, as a condition on Match (or on a relation via
    ``prefix``), for the lists: they name no match, so a link opens none of theirs."""
    public = Q(**{f"{prefix}is_private": False})
    if user is None or not user.is_authenticated:
        return public
    return public | Q(**{f"{prefix}pk__in": Seat.objects.filter(_holds_a_seat(user)).values("match_id")})


def match_can_view(*, match: Match, user, invite_token: str | None = None) -> bool:
    """Who may see a match, on every page and call that shows one (the match page, its replay,
    export and analysis, the sockets, the bot API): a public match, anyone; a private one, its
    players, a player a rematch seat is kept for, and the holders of its invite link or of the
    link of a match it is a rematch of (however many rematches back: those who watched a match
    follow its players to their rematches, as on lichess)."""
    if not match.is_private or (invite_token and invite_token == match.invite_token):
        return True
    if user is not None and user.is_authenticated and match.seats.filter(_holds_a_seat(user)).exists():
        return True
    return bool(invite_token) and _rematch_of_invited(match, invite_token)


REMATCH_CHAIN_MAX = 100  # how many rematches back an invite link still shows a match


def _rematch_of_invited(match: Match, invite_token: str) -> bool:
    """Whether ``invite_token`` is the link of a match ``match`` is a rematch of (one query a step)."""
    earlier = match.rematch_of_id
    for _ in range(REMATCH_CHAIN_MAX):
        if earlier is None:
            return False
        row = Match.objects.filter(pk=earlier).values_list("invite_token", "rematch_of_id").first()
        if row is None:
            return False
        if row[0] == invite_token:
            return True
        earlier = row[1]
    return False


def lobby_lists() -> dict[str, list[dict[str, Any]]]:
    """Public matches waiting for players, and public matches being played (two queries each):
    only those with a person still at the table (a page open, ``Seat.away_since`` unset), so
    the lobby never offers a match nobody will play; a waiting match, only while its creator
    is at it. A waiting match of rules this site no longer has is left out: nobody could open or
    join it (its creator still finds it in ``matches_of_player``, and may abort it); a match being
    played under them is named by its slug (``ruleset_name``)."""
    _someone_here = Seat.objects.filter(match=OuterRef("pk"), player__isnull=False, player__is_computer=False,
                                        resigned=False, away_since__isnull=True)
    # A waiting match is listed while its creator has its page open (seated from creation,
    # away until the page opens): matches posted and never looked at are not offered.
    _creator_here = _someone_here.filter(player=OuterRef("created_by"))

    def listed(status: str, order: str) -> list[dict[str, Any]]:
        matches = Match.objects.filter(status=status, is_private=False).filter(Exists(_someone_here))
        if status == Match.Status.WAITING:
            matches = matches.filter(rematch_of__isnull=True)  # their seats are kept for the old players
            matches = matches.filter(Exists(_creator_here), game__in=SLUGS)
        matches = (matches.order_by(order).prefetch_related("seats__player")[:LOBBY_LIMIT])
        out = []
        for m in matches:
            seats = list(m.seats.all())
            out.append({
                "id": m.pk, "game": m.game, "game_name": ruleset_name(m.game), "rated": m.rated,
                "seats": [{"role": s.role, "player": player_json(s.player), **seat_rating_json(s)} for s in seats],
                "free": [s.role for s in seats if s.player_id is None],
                "created_at": m.created_at.isoformat(),
                "clock": TimeControl.of(m).label,
            })
        return out

    return {"open": listed(Match.Status.WAITING, "-created_at"), "live": listed(Match.Status.ACTIVE, "-started_at"),
            "online": online_players()}


def online_players() -> list[dict[str, Any]]:
    """Signed-in players with a page of the site open, by name (one query)."""
    ids = presence.online_player_ids()
    users = get_user_model().objects.filter(pk__in=ids).order_by("display_name", "pk")[:ONLINE_LIMIT]
    return [player_json(u) for u in users]


def challenge_json(challenge: Challenge) -> dict[str, Any]:
    """A challenge as both players' pages show it (its players loaded)."""
    return {"id": challenge.pk, "from": player_json(challenge.challenger), "to": player_json(challenge.challenged),
            "settings": challenge.settings, "game_name": ruleset_name(challenge.settings["game"]),
            "clock": TimeControl.parse(challenge.settings["clock"]).label, "status": challenge.status,
            "expires_at": challenge.expires_at.isoformat(), "match": challenge.match_id}


def challenges_open(*, user) -> list[dict[str, Any]]:
    """The challenges ``user`` made or received that still wait for an answer, oldest first."""
    pending = (Challenge.objects.filter(status=Challenge.Status.PENDING, expires_at__gt=timezone.now())
               .filter(Q(challenger=user) | Q(challenged=user)).select_related("challenger", "challenged").order_by("pk"))
    return [challenge_json(c) for c in pending]


def matches_of_player(*, user, statuses: tuple[str, ...] = (Match.Status.WAITING, Match.Status.ACTIVE)) -> list[dict[str, Any]]:
    """A player's own matches in the given states, newest first, for the lobby: with the time
    control, whether it is the player's turn, and until when the mover's clock runs. A match of
    rules this site no longer has is named by its slug (``ruleset_name``), never the player's turn."""
    if user is None or not user.is_authenticated:
        return []
    matches = (Match.objects.filter(status__in=statuses)
               .filter(seats__player=user) | Match.objects.filter(status__in=statuses, seats__reserved_for=user))
    matches = matches.distinct().order_by("-created_at").prefetch_related("seats__player")[:LOBBY_LIMIT]
    return [{
        "id": m.pk, "game": m.game, "game_name": ruleset_name(m.game), "status": m.status,
        "seats": [{"role": s.role, "player": player_json(s.player), **seat_rating_json(s)} for s in m.seats.all()],
        "clock": TimeControl.of(m).label, "clock_words": TimeControl.of(m).short_words, "deadline": m.deadline,
        "your_turn": m.status == Match.Status.ACTIVE and _to_move(m) in
        {s.role for s in m.seats.all() if s.player_id == user.pk},
    } for m in matches]


def _to_move(match: Match) -> str | None:
    """The role to move, or None when the match's rules are gone (``known_rules``)."""
    game = known_rules(match.game)
    return None if game is None else game.to_move(game.state_from_json(match.state))


def players_now(*, player_ids: Collection[int], viewer) -> dict[int, dict[str, Any]]:
    """For each of ``player_ids``: whether they have a page of the site open (``online``) and the
    match they are playing now that ``viewer`` may see (``playing``: id, game name, clock; the
    latest started, else None). One query, and the presence store."""
    ids = set(player_ids)
    online = presence.online_player_ids() & ids
    playing: dict[int, dict[str, Any]] = {}
    seats = (Seat.objects.filter(player_id__in=ids, resigned=False, match__status=Match.Status.ACTIVE)
             .filter(match_visible_q(user=viewer, prefix="match__"))
             .select_related("match").order_by("-match__started_at", "-match_id"))
    for seat in seats:
        m = seat.match
        playing.setdefault(seat.player_id, {"id": m.pk, "game_name": ruleset_name(m.game), "clock": TimeControl.of(m).label})
    return {i: {"online": i in online, "playing": playing.get(i)} for i in ids}
def seat_scores(match_ids) -> dict[int, dict[int, int]]:
    """For each of ``match_ids``, each seated player's score (goal value; 0 while unset): what a
    three-player tournament ranks its tables' places by (one query)."""
    found: dict[int, dict[int, int]] = {}
    for match_id, player_id, score in (Seat.objects.filter(match_id__in=list(match_ids), player__isnull=False)
                                       .values_list("match_id", "player_id", "score")):
        found.setdefault(match_id, {})[player_id] = score or 0
    return found


def players_who_moved(match_ids) -> dict[int, set[int]]:
    """For each of ``match_ids``, the players who made at least one move in it (two queries):
    in a match aborted before it began, the others are the ones who never moved."""
    ids = list(match_ids)
    moved = set(Move.objects.filter(match_id__in=ids).values_list("match_id", "role").distinct())
    found: dict[int, set[int]] = {}
    for match_id, role, player_id in Seat.objects.filter(match_id__in=ids).values_list("match_id", "role", "player_id"):
        if (match_id, role) in moved:
            found.setdefault(match_id, set()).add(player_id)
    return found
