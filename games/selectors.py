"""Every read the pages and sockets need, shaped for output. No writes here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.models import ChatMessage, Match, Presence, Seat
from games.rules import Game, get_game

LOBBY_LIMIT = 50


def player_json(user) -> dict[str, Any] | None:
    if user is None:
        return None
    return {"id": user.pk, "name": user.display_name or user.username, "guest": user.is_guest,
            "computer": user.is_computer}


CHAT_HISTORY = 100  # lines sent to a page when it connects


def chat_json(message: ChatMessage) -> dict[str, Any]:
    return {"id": message.pk, "author": player_json(message.author), "text": message.text,
            "at": message.created_at.isoformat()}


def match_chat(*, match_id: int) -> list[dict[str, Any]]:
    """The last lines of the match's chat, oldest first (one query)."""
    lines = ChatMessage.objects.filter(match_id=match_id).select_related("author").order_by("-pk")[:CHAT_HISTORY]
    return [chat_json(line) for line in reversed(lines)]


def match_snapshot(*, match: Match) -> dict[str, Any]:
    """The full public state of a match, the same for every viewer (2 queries)."""
    game = get_game(match.game)
    seats = list(match.seats.select_related("player", "reserved_for"))
    moves = list(match.moves.values_list("ply", "role", "action"))
    state = game.state_from_json(match.state)
    rematch = next((m for m in match.rematches.select_related("created_by") if m.status != Match.Status.ABORTED),
                   None) if match.status == Match.Status.FINISHED else None
    return {
        "id": match.pk,
        "game": game.slug,
        "game_name": game.name,
        "family": game.info.family,
        "status": match.status,
        "private": match.is_private,
        "version": match.version,
        "seats": [
            {"role": s.role, "player": player_json(s.player), "reserved_for": player_json(s.reserved_for),
             "resigned": s.resigned, "score": s.score}
            for s in seats
        ],
        "view": game.view(state),
        "moves": [{"ply": ply, "role": role, "action": action, "label": game.action_label(action)}
                  for ply, role, action in moves],
        "result": match.result,
        "rematch_of": match.rematch_of_id,
        "rematch": rematch.pk if rematch else None,
        "rematch_by": player_json(rematch.created_by) if rematch else None,
    }


def match_snapshot_by_id(*, match_id: int) -> dict[str, Any]:
    return match_snapshot(match=Match.objects.get(pk=match_id))


def viewer_roles(*, snapshot: dict[str, Any], user) -> list[str]:
    """The roles ``user`` holds in the match of ``snapshot``."""
    if user is None or not user.is_authenticated:
        return []
    return [s["role"] for s in snapshot["seats"] if s["player"] and s["player"]["id"] == user.pk]


def viewer_legal(*, snapshot: dict[str, Any], roles: list[str]) -> dict[str, list[str]]:
    """The legal actions of each of ``roles`` in an active match (none for spectators)."""
    if snapshot["status"] != Match.Status.ACTIVE:
        return {}
    view = snapshot["view"]
    return {role: _mover_actions(view) for role in roles if view["to_move"] == role}


def _mover_actions(view: dict[str, Any]) -> list[str]:
    actions = list(view["cell_actions"].values())
    actions += [a["action"] for a in view.get("other_actions", [])]
    actions += list(view.get("piece_actions", {}).values())
    return actions


@dataclass(frozen=True)
class ComputerTurn:
    """What the computer needs to play its turn: the position, its seat's account, a seed."""

    match_id: int
    version: int
    game: Game
    state: Any
    user: Any
    seed: str


def computer_turn(*, match_id: int, version: int) -> ComputerTurn | None:
    """The computer's turn at ``version`` of an active match, or None when it is not the computer's."""
    match = Match.objects.filter(pk=match_id, status=Match.Status.ACTIVE, version=version).first()
    if match is None:
        return None
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    seat = (match.seats.filter(role=game.to_move(state), player__is_computer=True, resigned=False)
            .select_related("player").first())
    if seat is None:
        return None
    return ComputerTurn(match.pk, version, game, state, seat.player, f"{match.random_token}:{version}")


def match_can_view(*, match: Match, user, invite_token: str | None) -> bool:
    """Public matches are open to all; a private one to its players and holders of its link."""
    if not match.is_private:
        return True
    if invite_token and invite_token == match.invite_token:
        return True
    if user is not None and user.is_authenticated:
        return match.seats.filter(player=user).exists() or match.seats.filter(reserved_for=user).exists()
    return False


def match_presence(*, match_id: int) -> dict[str, Any]:
    """Spectators watching, which seated players have the page open, and for how many whole
    seconds each absent player has been gone (``away``; computer and resigned seats are never
    away). ``claim_after``: the seconds after which the others may claim the match from an
    absent player whose turn it is. Two queries."""
    now = timezone.now()
    since = now - timedelta(seconds=settings.PRESENCE_TIMEOUT_SECONDS)
    rows = list(Presence.objects.filter(match_id=match_id).values_list("user_id", "last_seen"))
    present = [user_id for user_id, seen in rows if seen >= since]
    stale = {}  # a page that stopped answering without closing: gone since its last ping
    for user_id, seen in rows:
        if seen < since:
            stale[user_id] = max(seen, stale.get(user_id, seen))
    seats = list(Seat.objects.filter(match_id=match_id, player__isnull=False)
                 .values_list("player_id", "role", "away_since", "joined_at", "resigned", "player__is_computer"))
    by_player = {seat[0]: seat[1] for seat in seats}
    online = {role: False for role in by_player.values()}
    spectators = 0
    for user_id in present:
        if user_id in by_player:
            online[by_player[user_id]] = True
        else:
            spectators += 1
    away = {}
    for player_id, role, away_since, joined_at, resigned, is_computer in seats:
        if not online[role] and not resigned and not is_computer:
            gone = away_since or stale.get(player_id) or joined_at or now
            away[role] = max(0, int((now - gone).total_seconds()))
    return {"spectators": spectators, "online": online, "away": away, "claim_after": settings.ABANDON_SECONDS}


def lobby_lists() -> dict[str, list[dict[str, Any]]]:
    """Public matches waiting for players, and public matches being played (two queries each)."""
    def rows(status: str, order: str) -> list[dict[str, Any]]:
        matches = Match.objects.filter(status=status, is_private=False)
        if status == Match.Status.WAITING:
            matches = matches.filter(rematch_of__isnull=True)  # their seats are kept for the old players
        matches = (matches.order_by(order).prefetch_related("seats__player")[:LOBBY_LIMIT])
        out = []
        for m in matches:
            game = get_game(m.game)
            seats = list(m.seats.all())
            out.append({
                "id": m.pk, "game": m.game, "game_name": game.name,
                "seats": [{"role": s.role, "player": player_json(s.player)} for s in seats],
                "free": [s.role for s in seats if s.player_id is None],
                "created_at": m.created_at.isoformat(),
            })
        return out

    return {"open": rows(Match.Status.WAITING, "-created_at"), "live": rows(Match.Status.ACTIVE, "-started_at")}


def matches_of_player(*, user, statuses: tuple[str, ...] = (Match.Status.WAITING, Match.Status.ACTIVE)) -> list[dict[str, Any]]:
    """A player's own matches in the given states, newest first, for the lobby."""
    if user is None or not user.is_authenticated:
        return []
    matches = (Match.objects.filter(status__in=statuses)
               .filter(seats__player=user) | Match.objects.filter(status__in=statuses, seats__reserved_for=user))
    matches = matches.distinct().order_by("-created_at").prefetch_related("seats__player")[:LOBBY_LIMIT]
    return [{
        "id": m.pk, "game": m.game, "game_name": get_game(m.game).name, "status": m.status,
        "seats": [{"role": s.role, "player": player_json(s.player)} for s in m.seats.all()],
    } for m in matches]
