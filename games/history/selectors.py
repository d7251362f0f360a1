"""Reads for history, player records, replays and export. No writes here.

Visibility: ``games.selectors.match_can_view``, the one rule of every page that shows a match
(its lists' form, ``match_visible_q``).
Query counts do not depend on the number of matches: a page is one count, one page query and
one query for its seats with their players (and one per name typed in a search); a record is
one aggregate query.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.db import connection
from django.db.models import Avg, Count, Prefetch, Q, QuerySet, Value
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import ngettext, pgettext

from games.ggp.gdl.sheets import SHEET_VERSION
from games.history.charts import evaluation_chart, rating_chart
from games.history.ggp import IMPORTED_NAME_MAX, MatchRecord, ggp_dump
from games.match import guide, ratings
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.labels import (
    abort_sentence,
    label_beside_role,
    people,
    result_sentence,
    role_label,
    unrated_note,
    with_names,
)
from games.match.reasons import reason_words
from games.match.rulesets import stored_rules
from games.match.text import TextRefused, name_key, text_clean
from games.models import Match, Outcome, Rating, ReplacedMove, Seat
from games.rules import GAMES
from games.rules.base import RulesError
from games.selectors import match_visible_q
from games.selectors.analysis import analysis_of
from games.selectors.snapshots import REPLACED

PAGE_SIZE = 25
LEADERBOARD_PAGE_SIZE = 50
LEADERBOARD_ACTIVE_DAYS = 30  # a player who played no rated match for this long drops off the leaderboard
LEADERBOARD_MIN_GAMES = ratings.PROVISIONAL_GAMES  # rated results that counted, as the rating stops being provisional
LEADERBOARD_MIN_OPPONENTS = 5  # different opponents among them: no pair of accounts gets onto the board alone


def _ms(moment) -> int:
    return int(moment.timestamp() * 1000)


@dataclass(frozen=True)
class HistoryFilters:
    """Validated filters of the history list; all optional."""

    game: str | None = None
    player_id: int | None = None
    result: str | None = None  # an ``Outcome`` value; applies to the player (``player_id`` or ``name``)
    name: str | None = None  # the start of a player's display name, any case
    opponent: str | None = None  # the start of an opponent's display name, any case
    since: date | None = None  # finished on or after this day
    until: date | None = None  # finished on or before this day
    tournament_id: int | None = None  # a game of this tournament (``tournaments.TournamentGame``)


NAMED_FEW = 20  # players a typed name may name for their seats to lead the search


def players_named(prefix: str) -> list[int] | QuerySet:
    """The ids of the players whose display name starts with ``prefix``, compared as names are
    (``name_key``: case, width, spacing and look-alikes folded), on the index of ``User.name_key``
    (one query): a list when they are at most ``NAMED_FEW``, else the query itself, to run inside
    the search's. SQLite's LIKE ignores case and so cannot use that index: a range on the folded
    key, which holds exactly the keys starting with the prefix in its byte order, lets it."""
    key = name_key(prefix)
    users = get_user_model().objects.filter(name_key__startswith=key)
    if connection.vendor == "sqlite":
        users = users.filter(name_key__gte=key, name_key__lt=key + "\U0010ffff")
    few = list(users.values_list("pk", flat=True)[:NAMED_FEW + 1])
    return few if len(few) <= NAMED_FEW else users.values("pk")


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def _without(condition: Q, field: str) -> Q:
    """``condition`` (a plain AND of field lookups) without its lookup of ``field``."""
    return Q(*(child for child in condition.children if child[0] != field))


def history_matches(*, user, filters: HistoryFilters = HistoryFilters()) -> QuerySet[Match]:
    """Finished matches ``user`` may see, filtered, newest first (seats and players prefetched).

    The player is ``player_id`` and/or a name's start (``name``), the result theirs; the
    opponent (``opponent``, a name's start) sat in the same match in another seat than
    ``player_id``; ``since`` and ``until`` bound the day it finished, in the site's time zone."""
    finished = Q(status=Match.Status.FINISHED)
    if filters.game:
        finished &= Q(game=filters.game)
    if filters.since:
        finished &= Q(finished_at__gte=_day_start(filters.since))
    if filters.until:
        finished &= Q(finished_at__lt=_day_start(filters.until + timedelta(days=1)))
    if filters.tournament_id is not None:  # the tournaments app's link to a match, by its reverse name
        finished &= Q(tournament_game__tournament_id=filters.tournament_id)
    seat_filters = []
    named = {which: players_named(typed) for which, typed in (("name", filters.name), ("opponent", filters.opponent))
             if typed}
    if filters.player_id is not None or "name" in named:
        seats = Seat.objects.all()
        if filters.player_id is not None:
            seats = seats.filter(player_id=filters.player_id)
        if "name" in named:
            seats = seats.filter(player_id__in=named["name"])
        if filters.result:
            seats = seats.filter(outcome=filters.result)
        seat_filters.append(seats)
    if "opponent" in named:
        against = Seat.objects.filter(player_id__in=named["opponent"])
        if filters.player_id is not None:
            against = against.exclude(player_id=filters.player_id)
        seat_filters.append(against)
    matches = Match.objects.filter(finished)
    few = filters.player_id is not None or any(isinstance(ids, list) for ids in named.values())
    if few and connection.vendor == "sqlite":
        # A few players' seats are few: they lead, their matches are read by key and only
        # those are checked. Without statistics SQLite's planner would rather walk every
        # finished match on the index on status (it guesses an equality there to be
        # selective), which comparing the status through COALESCE prevents. A typed name's
        # start that names many players leaves the index on (status, finished_at) to lead, in
        # the page's order. PostgreSQL plans by its statistics: there the status is compared as is.
        matches = Match.objects.alias(finished_status=Coalesce("status", Value(""))).filter(
            _without(finished, "status"), finished_status=Match.Status.FINISHED)
    for seats in seat_filters:
        matches = matches.filter(pk__in=seats.values("match_id"))
    matches = matches.filter(match_visible_q(user=user))
    return (matches.order_by("-finished_at", "-pk")
            .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player"))))


def history_page(*, user, filters: HistoryFilters = HistoryFilters(), page: Any = 1) -> tuple[Page, list[dict]]:
    """One page (``PAGE_SIZE`` rows) of ``history_matches`` and its rows: 3 queries."""
    paginator = Paginator(history_matches(user=user, filters=filters), PAGE_SIZE)
    page_obj = paginator.get_page(page)
    return page_obj, [history_row(match=m) for m in page_obj.object_list]


def _seat_name(seat: Seat, imported: dict[str, str]) -> str | None:
    """The name shown for a seat: its player's, or the one from the imported file. A stored name
    the text policy refuses (a row from before the policy) is replaced, never shown as is."""
    name = (seat.player.display_name or seat.player.username) if seat.player else imported.get(seat.role)
    if name is None:
        return None
    try:
        return text_clean(name, max_length=IMPORTED_NAME_MAX)
    except TextRefused:
        return "(unreadable name)"


def history_row(*, match: Match) -> dict[str, Any]:
    """A list row: players (and their results), result in words, length in moves, date.

    ``Match.plies`` is the number of stored moves, so the length needs no count over ``Move``.
    """
    result = match.result or {}
    imported = result.get("imported_names") or {}
    players = []
    for seat in match.seats.all():
        name = _seat_name(seat, imported)
        players.append({"role": seat.role, "label": role_label(seat.role), "id": seat.player_id, "name": name or "nobody",
                        "bot": bool(seat.player and seat.player.is_bot),
                        "outcome": seat.outcome, "score": seat.score, "rating": seat.rating_before,
                        "provisional": seat.rating_provisional,
                        "change": None if seat.rating_after is None else seat.rating_after - seat.rating_before,
                        "unrated_against": seat.unrated_against.split()})
    names = {p["role"]: p["name"] for p in players}
    for p in players:
        p["unrated"] = unrated_note(p["unrated_against"], names, everyone=len(p["unrated_against"]) == len(players) - 1)
    winners = [p["name"] for p in players if p["role"] in result.get("winners", [])]
    summary = ngettext("%(players)s won", "%(players)s won", len(winners)) % {"players": people(winners)} if winners else pgettext("result", "Draw")
    return {"id": match.pk, "game": match.game, "game_name": guide.game_name(match.game), "players": players,
            "result": summary, "reason": with_names(reason_words(result.get("reason", "")), names),
            "length": match.plies, "clock": TimeControl.of(match).short_words,
            "date": match.finished_at, "private": match.is_private, "imported": bool(imported), "rated": match.rated}


def player_get(*, user_id: int):
    return get_user_model().objects.filter(pk=user_id).first()


def player_record(*, player, viewer) -> list[dict[str, Any]]:
    """Per game: played, won, drawn, lost and average score over the finished matches of
    ``player`` that ``viewer`` may see, in lobby order (one aggregate query)."""
    rows = (Seat.objects.filter(match_visible_q(user=viewer, prefix="match__"), player=player,
                                match__status=Match.Status.FINISHED)
            .values("match__game")
            .annotate(played=Count("pk"),
                      won=Count("pk", filter=Q(outcome=Outcome.WON)),
                      drawn=Count("pk", filter=Q(outcome=Outcome.DRAWN)),
                      lost=Count("pk", filter=Q(outcome=Outcome.LOST)),
                      average=Avg("score")))
    by_game = {row.pop("match__game"): row for row in rows}
    known = [info.slug for info in GAMES]
    order = known + sorted(set(by_game) - set(known))
    return [{"game": slug, "game_name": guide.game_name(slug), **by_game[slug],
             "average": round(by_game[slug]["average"] or 0.0, 1)}
            for slug in order if slug in by_game]


def player_ratings(*, player) -> list[dict[str, Any]]:
    """Per rule set the player has a rating in, in lobby order: the rating shown, whether it is
    provisional, rated games, and the history chart (two queries)."""
    rows = {r.game: r for r in Rating.objects.filter(player=player)}
    history: dict[str, list] = {}
    for game, at, before, after in (Seat.objects.filter(player=player, match__rated=True, rating_after__isnull=False)
                                    .order_by("match__finished_at", "match_id")
                                    .values_list("match__game", "match__finished_at", "rating_before", "rating_after")):
        history.setdefault(game, []).append((at, before, after))
    out = []
    for info in GAMES:
        row = rows.get(info.slug)
        if row is None:
            continue
        points = history.get(info.slug, [])
        start = points[0][1] if points else ratings.shown(row.mu)
        out.append({"game": info.slug, "game_name": guide.game_name(info.slug), "rating": ratings.shown(row.mu),
                    "provisional": ratings.provisional(row.games), "games": row.games, "opponents": row.opponents,
                    "chart": rating_chart([(at, after) for at, _, after in points], start)})
    return out


def leaderboard_page(*, game: str, page: Any = 1, days: int = LEADERBOARD_ACTIVE_DAYS) -> tuple[Page, list[dict]]:
    """The top players of one rule set by rating, among those with ``LEADERBOARD_MIN_GAMES``
    rated results that counted (so an established rating) against ``LEADERBOARD_MIN_OPPONENTS``
    different players, who played a rated match in the last ``days`` days: one page of
    ``LEADERBOARD_PAGE_SIZE`` (a count and one query)."""
    rows = (Rating.objects.filter(game=game, games__gte=LEADERBOARD_MIN_GAMES, opponents__gte=LEADERBOARD_MIN_OPPONENTS,
                                  last_played__gte=timezone.now() - timedelta(days=days))
            .select_related("player").order_by("-mu", "pk"))
    page_obj = Paginator(rows, LEADERBOARD_PAGE_SIZE).get_page(page)
    first = page_obj.start_index()
    return page_obj, [{"rank": first + i, "id": r.player_id, "name": str(r.player), "bot": r.player.is_bot, "rating": ratings.shown(r.mu),
                       "games": r.games, "opponents": r.opponents, "last_played": r.last_played} for i, r in enumerate(page_obj.object_list)]


def match_replay(*, match: Match) -> dict[str, Any]:
    """Every position of ``match`` rebuilt by the rules from its stored moves.

    ``views[n]`` is ``game.view`` after ``n`` moves (0..plies); ``moves[n-1]`` is the move
    that led to it, with its label and whether the rules played it at random for a seat that
    had left play (``at_random``) or in place of a GGP seat's late, illegal or missing answer or a
    per-move turn run out (``replaced``, the reason in words); ``note`` says either as the move
    list and the status line show it ("at random: too late"). Three queries. A stored move the rules refuse (a row from
    before they were strict) ends the replay there, with ``damaged`` true; rules this site no
    longer has are refused (``stored_rules``).
    """
    game = stored_rules(match.game)
    state = game.initial_state()
    stored_seats = list(match.seats.select_related("player"))
    out_after = {s.role: s.out_ply for s in stored_seats if s.out_ply is not None}
    views, moves, damaged = [game.view(state)], [], False
    replaced = dict(ReplacedMove.objects.filter(match=match).values_list("ply", "reason"))
    for ply, role, action in match.moves.values_list("ply", "role", "action"):
        try:
            state = game.play(state, role, action)
        except RulesError:
            damaged = True
            break
        views.append(game.view(state))
        at_random, why = ply > out_after.get(role, ply), REPLACED.get(replaced.get(ply, ""), "")
        moves.append({"ply": ply, "role": role, "role_label": role_label(role), "action": action,
                      "label": label_beside_role(role, game.action_label(action)), "at_random": at_random,
                      "replaced": why,
                      "note": f"at random: {why}" if why else "at random" if at_random else ""})
    imported = (match.result or {}).get("imported_names", {})
    seats = [{"role": s.role, "label": role_label(s.role), "name": _seat_name(s, imported)}
             for s in stored_seats]
    names = {s["role"]: s["name"] for s in seats}
    return {"id": match.pk, "game": game.slug, "game_name": game.name, "family": game.info.family,
            "status": match.status, "seats": seats, "views": views, "moves": moves,
            "result": match.result, "damaged": damaged,
            "result_text": (result_sentence(match.result, names) if match.status == Match.Status.FINISHED
                            else abort_sentence(match.result, names, rated=match.rated)
                            if match.status == Match.Status.ABORTED else "")}


def match_record(*, match: Match) -> MatchRecord:
    """The stored match as a ``MatchRecord`` for the GGP format (three queries); rules this site
    no longer has are refused (``stored_rules``)."""
    game = stored_rules(match.game)
    seats = {s.role: s for s in match.seats.select_related("player")}
    imported = (match.result or {}).get("imported_names", {})
    names = tuple(_seat_name(seats[role], imported) for role in game.roles)
    moves = list(match.moves.values_list("role", "action", "created_at"))
    start = match.started_at or match.created_at
    result = match.result or {}
    completed = match.status == Match.Status.FINISHED
    humans = result.get("imported_humans") if match.import_key else [_is_human(seats[role].player)
                                                                      for role in game.roles]
    replaced = tuple((ply - 1, role, reason, answer) for ply, role, reason, answer in
                     ReplacedMove.objects.filter(match=match).order_by("ply")
                     .values_list("ply", "role", "reason", "answer"))
    return MatchRecord(
        game_slug=game.slug, match_id=f"boardhall.{match.pk}", random_token=match.random_token,
        start_ms=_ms(start), names=names, steps=tuple((role, action) for role, action, _ in moves),
        state_times_ms=(_ms(start), *(_ms(at) for _, _, at in moves)),
        completed=completed, aborted=match.status == Match.Status.ABORTED,
        goals=tuple(result["scores"][role] for role in game.roles) if completed else None,
        resigned=tuple(result.get("resigned", ())),
        time_control=TimeControl.of(match).code, reason=result.get("reason", "") if completed else "",
        humans=tuple(humans) if humans is not None else None, replaced=replaced,
    )


def _is_human(player) -> bool:
    """A person's seat: not the computer, nor a program (a GGP player's account or a bot
    account, which its owner declared a program), nor a free seat."""
    return player is not None and not player.is_computer and not player.is_bot


def game_meta_url(*, slug: str) -> str:
    """The rule set's GGP game address (an export's ``gameMetaURL``), on ``SITE_URL``."""
    return f"{settings.SITE_URL.rstrip('/')}{reverse('games:rules_meta', args=[slug, SHEET_VERSION])}"


def match_export(*, match: Match) -> dict[str, Any]:
    """The match as a GGP match dict (see ``games.history.ggp``), with its analysis once done
    (``analysis``, an extra key: scores and losses on GGP's 0 to 100 goal scale, in role order;
    per state the best move and the line from it, ``null`` where an older analysis has none);
    none while fair play withholds it (``_analysis_shown``)."""
    data = ggp_dump(record=match_record(match=match), game_meta_url=game_meta_url(slug=match.game))
    analysis = _analysis_shown(match)
    if analysis is not None and analysis["status"] == "done":
        roles = analysis["roles"]
        data["analysis"] = {
            "rounds": analysis["rounds"],
            "thresholds": {t["mark"]: t["points"] for t in analysis["thresholds"]},
            "stateScores": [[round(p["scores"][role] * 100, 2) for role in roles] for p in analysis["positions"]],
            "bestMoves": [p["best"] or "" for p in analysis["positions"]],
            "bestLines": [p["line"] for p in analysis["positions"]],
            "moveLosses": [round(m["loss"] * 100, 2) for m in analysis["moves"]],
            "moveMarks": [m["mark"] or "" for m in analysis["moves"]],
        }
        if None in data["analysis"]["bestLines"]:  # stored before lines were: no null in a GGP file
            del data["analysis"]["bestLines"]
    return data


def _analysis_shown(match: Match) -> dict[str, Any] | None:
    """``analysis_of``, or while it refuses (a live match stands at one of an import's
    positions) its status ``withheld`` and the refusal's ``message``, for the page to say."""
    try:
        return analysis_of(match=match)
    except ServiceError as err:
        return {"status": "withheld", "message": err.message}


def replay_analysis(*, match: Match) -> dict[str, Any] | None:
    """``analysis_of`` for the replay page, once done with its graph's drawing data and, for
    each marked move, the board after the better move (``better_view``, drawn beside the move
    played) and the line the search expected from it (``better_line``: per move its ply, its
    mover's label and its own, as the move list says them; empty for an analysis stored before
    lines were), and each position's best move in words. None while the match is in play or
    nobody asked; status ``withheld``, with the ``message`` why, while fair play withholds it."""
    analysis = _analysis_shown(match)
    if analysis is None or analysis["status"] != "done":
        return analysis
    game = stored_rules(match.game)
    state = game.initial_state()
    for move in analysis["moves"]:
        if move["better"]:
            move["better_view"] = game.view(game.play(state, move["role"], move["better"]))
            move["better_line"] = _line_moves(game, state, analysis["positions"][move["ply"] - 1]["line"] or [],
                                              move["ply"])
        state = game.play(state, move["role"], move["action"])
    for position in analysis["positions"]:
        position["best_label"] = game.action_label(position["best"]) if position["best"] else None
    analysis["chart"] = evaluation_chart(analysis["roles"], analysis["positions"], analysis["moves"])
    return analysis


def _line_moves(game, state, line: list[str], ply: int) -> list[dict[str, Any]]:
    """``line`` (actions from ``state``, the first one move ``ply``) as the move list shows
    moves: ``{"ply", "role_label", "label"}`` each, the mover found by the rules. A move the
    rules refuse there (stored under other rules) ends it."""
    labelled = []
    for number, action in enumerate(line, start=ply):
        role = game.to_move(state)
        try:
            state = game.play(state, role, action)
        except RulesError:
            break
        labelled.append({"ply": number, "role_label": role_label(role),
                         "label": label_beside_role(role, game.action_label(action))})
    return labelled
