"""Writes of the history package: importing a match from a GGP match file."""

from __future__ import annotations

import json
from datetime import datetime
from datetime import timezone as dt_timezone

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.history.ggp import GGPFormatError, ggp_load, import_key, record_outcome
from games.models import Match, Move, Outcome, Seat, new_token
from games.rules import get_game
from games.services import ServiceError

IMPORT_MAX_BYTES = 1_000_000
IMPORT_TOO_LARGE = f"The file is larger than {IMPORT_MAX_BYTES // 1000} kB."


def _moment(ms: int | None) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=dt_timezone.utc) if ms else timezone.now()


def _refuse_if_imported(game: str, key: str) -> None:
    earlier = Match.objects.filter(game=game, import_key=key).first()
    if earlier is not None:
        raise ServiceError("already_imported", "This match (the same game, players, moves and start time) "
                                               "was imported before; here it is.", {"match_id": earlier.pk})


def match_import(*, user, content: bytes) -> Match:
    """Store the finished match of a GGP match file (see ``games.history.ggp``), in one transaction.

    Every step is checked by the rules before anything is written; a refused file raises
    ``ServiceError("invalid_file", reason)`` and saves nothing. A match imported before (the
    same ``games.history.ggp.import_key``: game, names, moves and start time, whatever the
    ``matchId``) raises ``ServiceError("already_imported", ..., {"match_id": the earlier match})``,
    also when the two imports run at once: the database keeps one copy (``Match.import_key`` is
    unique per game) and the second import, whose insert fails, is sent to the first's.

    Seating: a file proves nobody's identity, so every seat stays empty (``player`` null) and
    the names from ``playerNamesFromHost`` are kept in ``result["imported_names"]`` (role ->
    name), and the file's ``isPlayerHuman`` in ``result["imported_humans"]`` when it gives one
true or false per role; the match counts in no player's record. The uploader is ``created_by``. Imported
    matches are public; ``result["imported_from"]`` keeps the file's ``matchId`` ("" without one).
    """
    if user is None or not user.is_authenticated:
        raise ServiceError("not_signed_in", "Choose a name (play as a guest) or log in first.")
    if len(content) > IMPORT_MAX_BYTES:
        raise ServiceError("invalid_file", IMPORT_TOO_LARGE)
    try:
        data = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise ServiceError("invalid_file", f"The file is not JSON ({err}).") from None
    except RecursionError:
        raise ServiceError("invalid_file", "The file is nested too deeply to be a match.") from None
    try:
        record, state = ggp_load(data=data)
    except GGPFormatError as err:
        raise ServiceError("invalid_file", str(err)) from None
    game = get_game(record.game_slug)
    outcome = record_outcome(game, state, record.resigned)
    outcome["imported_names"] = {role: name for role, name in zip(game.roles, record.names) if name}
    outcome["imported_from"] = record.match_id
    if record.humans is not None:
        outcome["imported_humans"] = list(record.humans)
    times = record.state_times_ms or (record.start_ms,) * (len(record.steps) + 1)
    key = import_key(game_slug=game.slug, names=outcome["imported_names"], steps=record.steps, start_ms=times[0])
    _refuse_if_imported(game.slug, key)

    token = record.random_token if 12 <= len(record.random_token) <= 32 else new_token()  # GGP spectators want 12+
    try:
        with transaction.atomic():
            match = Match.objects.create(
                game=game.slug, status=Match.Status.FINISHED, is_private=False, created_by=user,
                random_token=token, started_at=_moment(times[0]), finished_at=_moment(times[-1]),
                state=game.state_to_json(state), version=len(record.steps), plies=len(record.steps),
                result=outcome, import_key=key)
            winners = outcome["winners"]
            Seat.objects.bulk_create([
                Seat(match=match, role=role, order=i, score=outcome["scores"][role], resigned=role in record.resigned,
                     outcome=Outcome.DRAWN if not winners else Outcome.WON if role in winners else Outcome.LOST)
                for i, role in enumerate(game.roles)
            ])
            moves = Move.objects.bulk_create([Move(match=match, ply=ply, role=role, action=action)
                                              for ply, (role, action) in enumerate(record.steps, start=1)])
            for move, ms in zip(moves, times[1:]):
                move.created_at = _moment(ms)
            Move.objects.bulk_update(moves, ["created_at"], batch_size=500)
    except IntegrityError:  # the same match, imported at the same moment, was stored first
        _refuse_if_imported(game.slug, key)
        raise
    return match
