"""The state of a match as every page receives it: built once per change, encoded once, and
turned into each viewer's message by adding only what differs per viewer (their roles and
legal actions). Used by the read path (``selectors``) and the write path (``broadcast``).

The move list is the one part that grows with the match; this process remembers the last
list it built per match, keyed by the match's version (which every recorded move raises, and
stored moves never change), so a move appends to it instead of reading every move again.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from datetime import datetime
from typing import Any

import orjson
from django.db.models import OuterRef, Subquery

from games.match import clocks, conduct
from games.match.clocks import TimeControl
from games.models import Match, Move, ReplacedMove

REMEMBERED_MATCHES = 5000


def encode(value: Any) -> str:
    """Compact JSON text: orjson, about ten times the standard library's speed on a state
    message (non-ASCII characters stay as they are). What orjson refuses (a lone surrogate
    that a client sent, echoed in an error) the standard library writes as an escape."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"))


def player_json(user) -> dict[str, Any] | None:
    if user is None:
        return None
    return {"id": user.pk, "name": user.display_name or user.username, "guest": user.is_guest,
            "computer": user.is_computer, "bot": user.is_bot}


def seat_rating_json(seat) -> dict[str, Any]:
    """The rating shown beside a seat's player: when seated (``rating``, with "?" while
    ``provisional``), and after a rated match (``rating_after``); None for guests and the computer.
    ``unrated_against``: the roles whose result against this seat did not count (the pair limit)."""
    return {"rating": seat.rating_before, "provisional": seat.rating_provisional, "rating_after": seat.rating_after,
            "unrated_against": seat.unrated_against.split()}


REPLACED = {"late": "too late", "illegal": "not a legal move", "silent": "no answer",
            "lost": "answer lost by the server (a restart)"}


def move_json(game, ply: int, role: str, action: str, replaced: str | None = None) -> dict[str, Any]:
    """A move as pages show it; ``replaced``: why a random legal move was played in the seat's
    place (``games.services.replaced``), in words."""
    move = {"ply": ply, "role": role, "action": action, "label": game.action_label(action)}
    if replaced:
        move["replaced"] = REPLACED.get(replaced, replaced)
    return move


class _MoveLists:
    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._lists: OrderedDict[int, tuple[int, tuple[dict[str, Any], ...]]] = OrderedDict()

    def get(self, match_id: int, version: int) -> tuple[dict[str, Any], ...] | None:
        with self._lock:
            entry = self._lists.get(match_id)
            if entry is None or entry[0] != version:
                return None
            self._lists.move_to_end(match_id)
            return entry[1]

    def put(self, match_id: int, version: int, moves: tuple[dict[str, Any], ...]) -> None:
        with self._lock:
            current = self._lists.get(match_id)
            if current is None or current[0] <= version:
                self._lists[match_id] = (version, moves)
                self._lists.move_to_end(match_id)
            while len(self._lists) > self._limit:
                self._lists.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._lists.clear()


move_lists = _MoveLists(REMEMBERED_MATCHES)


def move_list(*, match_id: int, version: int, plies: int, game) -> tuple[dict[str, Any], ...]:
    """The match's ``plies`` moves at ``version`` (remembered, or one query)."""
    moves = move_lists.get(match_id, version)
    if moves is None:
        replaced = ReplacedMove.objects.filter(match_id=OuterRef("match_id"), ply=OuterRef("ply")).values("reason")[:1]
        rows = (Move.objects.filter(match_id=match_id, ply__lte=plies).annotate(replaced=Subquery(replaced))
                .values_list("ply", "role", "action", "replaced"))
        moves = tuple(move_json(game, *row) for row in rows)
        move_lists.put(match_id, version, moves)
    return moves


def build(*, match: Match, game, state, seats, moves, rematch: Match | None = None,
          rematch_declined: list[int] = (), ggp_play: tuple[str, datetime] | None = None) -> dict[str, Any]:
    """The full public state of a match, the same for every viewer. ``seats`` come with their
    players (and the players rematch seats are kept for); ``rematch`` with its creator (``rematch_status``:
    whether it still waits for its players); ``rematch_declined``: the players whose rematch offer was declined; ``ggp_play``: where
    the PLAY of the GGP seat to move stands (``selectors.ggp_play``): sent at a time (its clock runs
    from then), or held (its clock stands whole until it goes out)."""
    control = TimeControl.of(match)
    clock = match.clock
    if ggp_play is not None:
        clock = (clocks.from_play if ggp_play[0] == "sent" else clocks.held)(control, clock, ggp_play[1])
    return {
        "id": match.pk,
        "game": game.slug,
        "game_name": game.name,
        "family": game.info.family,
        "status": match.status,
        "private": match.is_private,
        "rated": match.rated,
        "version": match.version,
        "seats": [
            {"role": s.role, "player": player_json(s.player), "reserved_for": player_json(s.reserved_for),
             "resigned": s.resigned, "out": s.out or ("resigned" if s.resigned else ""), "out_ply": s.out_ply, "score": s.score, **seat_rating_json(s)}
            for s in seats
        ],
        "view": game.view(state),
        "clock": clocks.public(control, clock, clocks.now()),
        "offers": conduct.parse(match.offers),
        "moves": list(moves),
        "result": match.result,
        "rematch_of": match.rematch_of_id,
        "rematch": rematch.pk if rematch else None,
        "rematch_by": player_json(rematch.created_by) if rematch else None,
        "rematch_status": rematch.status if rematch else None,
        "rematch_declined": list(rematch_declined),
    }


def mover_actions(view: dict[str, Any]) -> list[str]:
    """Every legal action of the role to move, from ``view`` (what the board offers)."""
    actions = list(view["cell_actions"].values())
    actions += [a["action"] for a in view.get("other_actions", [])]
    actions += list(view.get("piece_actions", {}).values())
    return actions


def state_event(snapshot: dict[str, Any], last_move: dict[str, Any] | None) -> dict[str, Any]:
    """The channel-layer event for ``snapshot``: the public part encoded once, plus what each
    viewer's message needs (who holds which seat, the mover's legal actions, encoded once too)."""
    active = snapshot["status"] == Match.Status.ACTIVE
    return {
        "type": "match.state",
        "version": snapshot["version"],
        "active": active,
        "to_move": snapshot["view"].get("to_move"),
        "players": [[s["role"], s["player"]["id"] if s["player"] else None] for s in snapshot["seats"]],
        "legal": encode(mover_actions(snapshot["view"]) if active else []),
        "text": encode(snapshot),
        "last_move": encode(last_move),
    }


def viewer_roles(event: dict[str, Any], user_id: int | None) -> list[str]:
    """The roles the viewer ``user_id`` holds in the match of ``event``."""
    if user_id is None:
        return []
    return [role for role, player_id in event["players"] if player_id == user_id]


def viewer_message(event: dict[str, Any], user_id: int | None) -> str:
    """The state message for one viewer (None: not signed in), as JSON text:
    ``{"type": "state", "version", "match", "last_move", "you": {"roles", "legal"}}``."""
    roles = viewer_roles(event, user_id)
    if not roles:
        you = '{"roles":[],"legal":{}}'
    else:
        to_move = event["to_move"]
        legal = f'{encode(to_move)}:{event["legal"]}' if event["active"] and to_move in roles else ""
        you = f'{{"roles":{encode(roles)},"legal":{{{legal}}}}}'
    return (f'{{"type":"state","version":{event["version"]},"match":{event["text"]},'
            f'"last_move":{event["last_move"]},"you":{you}}}')
