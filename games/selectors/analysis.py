"""Post-game analysis, the reads: what the replay page, its JSON, the export and the bot API show.

Fair play, two rules, each written once here and applied by the services to a request too:
nothing of an analysis is read while its match is in play (``analysis_require_over``; this
holds even for a row written another way), nor the evaluations of an imported match while a
live match stands at one of its positions (``analysis_require_no_live_position``).
"""

from __future__ import annotations

from typing import Any

from games.match.analysis import THRESHOLDS, judge_moves, match_positions, summarise
from games.match.errors import ServiceError
from games.match.labels import role_label
from games.match.rulesets import stored_rules
from games.models import Analysis, Match
from games.rules.base import RulesError


def analysis_thresholds() -> list[dict[str, Any]]:
    """The marks and the loss (in points of expected score, 0 to 100) from which each applies."""
    return [{"mark": name, "points": round(threshold * 100)} for name, threshold in reversed(THRESHOLDS)]


def analysis_require_over(*, match: Match) -> None:
    """Refuse (``analysis_in_play``) the analysis of a match still waiting or in play, asked for
    or read: its players would get the search's verdict on their own game."""
    if match.status in (Match.Status.WAITING, Match.Status.ACTIVE):
        raise ServiceError("analysis_in_play", "This match is still being played: for fair play, its analysis "
                                               "opens to everyone, players included, once it has ended.")


def analysis_require_no_live_position(*, match: Match, moves: list[tuple[str, str]] | None = None) -> None:
    """Refuse (``analysis_live_position``) an imported match's analysis, asked for or read,
    while it passes through the position a live match of its rule set stands at now: a file
    proves nothing of where its moves came from, and the export of a match in play, changed to
    look finished and uploaded, would otherwise give a player the search's verdict (the best
    move, the line from it) on their own game. The start position, which every match passes,
    does not count; the refusal lasts until that match moves on. A match played here is never
    refused. ``moves`` (role, action), when the caller read them already.

    One query (none for a match played here): the live matches of the rule set, by the index
    on (status, game), compared with the positions in the database, which sends back no row."""
    if (match.result or {}).get("imported_from") is None:  # played here, not imported
        return
    if moves is None:
        moves = list(match.moves.values_list("role", "action"))
    try:
        positions = match_positions(match.game, moves)
    except RulesError:
        return  # the worker reports a stored move the rules refuse; nothing of it is evaluated
    live = Match.objects.filter(status=Match.Status.ACTIVE, game=match.game, state__in=positions[1:])
    if live.exclude(pk=match.pk).exists():
        raise ServiceError("analysis_live_position", "A position of this match is on the board of a match being "
                                                     "played now: for fair play, its analysis is neither made nor "
                                                     "shown until that match has moved on. Try again then.")


def analysis_of(*, match: Match) -> dict[str, Any] | None:
    """The analysis of ``match`` (None if none was asked for, or the match was called off; refused
    while it is in play, ``analysis_require_over``):
    its status and progress (positions evaluated of all); once done, per position each role's
    expected score, the best move found and the line the search expects from it (``line``:
    actions from the best move on, ``[]`` at the end, None in an analysis stored before lines
    were), per move its loss and mark, per role the summary. Two queries; a done analysis of an
    imported match, three, and refused while a live match stands at one of its positions
    (``ServiceError`` ``analysis_live_position``: its evaluations are what the rule withholds;
    a queued or running one shows only its progress). Refused (``unknown_rules``) for a match of
    rules this site no longer has."""
    analysis_require_over(match=match)
    if match.status != Match.Status.FINISHED:
        return None
    game = stored_rules(match.game)
    analysis = Analysis.objects.filter(match=match).first()
    if analysis is None:
        return None
    out: dict[str, Any] = {
        "status": analysis.status, "done": len(analysis.evaluations), "total": analysis.positions,
        "rounds": analysis.rounds, "roles": list(game.roles), "thresholds": analysis_thresholds(),
    }
    if analysis.status == Analysis.Status.QUEUED:
        out["ahead"] = Analysis.objects.filter(status=Analysis.Status.QUEUED, created_at__lt=analysis.created_at).count()
    if analysis.status == Analysis.Status.FAILED:
        out["error"] = analysis.error
    if analysis.status != Analysis.Status.DONE:
        return out
    evaluations = analysis.evaluations
    played = list(match.moves.values_list("role", "action"))
    analysis_require_no_live_position(match=match, moves=played)
    moves = played[:len(evaluations) - 1]
    judged = judge_moves(moves, evaluations)
    for move in judged:
        move["label"] = game.action_label(move["action"])
        move["role_label"] = role_label(move["role"])
        move["better_label"] = game.action_label(move["better"]) if move["better"] else None
    summary = summarise(game.roles, judged)
    for row in summary:
        row["role_label"] = role_label(row["role"])
    out.update(positions=[{"ply": ply, "scores": e["scores"], "best": e["best"], "line": e.get("line")}
                          for ply, e in enumerate(evaluations)],
               moves=judged, summary=summary)
    return out
