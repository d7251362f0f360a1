"""The bot API: parse the call, check the token, call the same service as the pages, shape the
answer. django-ninja: the request and answer shapes are pydantic schemas written once, from which
it both validates input (a wrong type is a 400 that says which field) and generates the OpenAPI 3
description; it runs Django's sync views and async views (the streams) side by side.

Every refusal is JSON ``{"code", "message", ...}``: a service's refusal is a 400 with the code
the match socket gives for it (``illegal_action``, ``stale_version``, ``not_your_turn``, ...).
A body is read as the match socket reads a frame: a field it does not know, or one given twice,
is ``malformed`` and nothing is done.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Annotated

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils.translation import gettext
from ninja import NinjaAPI, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser
from ninja.security import HttpBearer
from pydantic import ConfigDict, Field, StrictBool, StrictInt, StrictStr

from botapi import feeds, openapi, services, tournament_calls
from botapi.limits import STREAM_START_SECONDS, StreamSlot, limits, retry_after
from botapi.models import ApiToken

# Every games.* name this module uses, in one place (the games/ regroup re-points them).
from games import services as game_services
from games.match.settings import MatchSettings
from games.match.text import json_fields_once
from games.models import ChatMessage, Match, Move
from games.rules import SLUGS
from games.runtime import throttle
from games.selectors import challenge_json, match_can_view
from games.selectors.analysis import analysis_of
from games.selectors.rows import match_by_id
from games.services import ServiceError

MAX_VERSION = 2**31 - 1
NOT_FOUND = {"not_found", "no_such_challenge", "no_such_player", "no_such_token", "unknown_rules"}
# The analysis service's and read's refusals: the match's state (409), its limits (429, no
# Retry-After: the message says when to ask again); any other refusal is a 400.
ANALYSIS_REFUSALS = {"analysis_in_play": 409, "analysis_live_position": 409, "analysis_not_finished": 409,
                     "analysis_busy": 429, "analysis_daily_cap": 429, "analysis_queue_full": 429}


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str, **headers: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers


class TokenAuth(HttpBearer):
    """``Authorization: Bearer <token>`` with ``scope``. Written out rather than ninja's own
    ``HttpBearer.__call__``, which logs a malformed header's value (the token) in DEBUG: a token
    never reaches a log. Each authenticated call takes one from the token's budget."""

    def __init__(self, scope: str) -> None:
        super().__init__()
        self.scope = scope

    def __call__(self, request: HttpRequest) -> ApiToken | None:
        kind, _, secret = request.headers.get("Authorization", "").partition(" ")
        if kind.lower() != "bearer" or not secret.strip():
            return None
        return self.authenticate(request, secret.strip())

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken:
        found = services.token_find(secret=token)
        if found is None:
            raise Refused(401, "bad_token", gettext("That token is unknown or revoked: make a new one on your account page."))
        if self.scope not in found.scope_set:
            raise Refused(403, "missing_scope", gettext("This call needs a token with the '%(scope)s' scope.") % {"scope": self.scope})
        wait = limits.take(found.pk)
        if wait:
            raise Refused(429, "rate_limited", gettext("Too many calls: wait for the seconds in Retry-After, then go on."),
                          **{"Retry-After": retry_after(wait)})
        request.user = found.user
        return found


class FieldsOnce(Parser):
    """JSON bodies in which a field given twice is refused (as the match socket does), rather than
    its last value taken."""

    def parse_body(self, request: HttpRequest) -> dict:
        return json.loads(request.body, object_pairs_hook=json_fields_once)


class DescribedApi(NinjaAPI):
    """ninja's document, made whole by ``botapi.openapi.describe`` (typed answers and stream
    lines, every refusal, ``servers``)."""

    def get_openapi_schema(self, *args, **kwargs):
        return openapi.describe(super().get_openapi_schema(*args, **kwargs))


DESCRIPTION = """Play Boardhall's games from a program: see the README's "Write a bot".

Send a token as `Authorization: Bearer <token>` (made on your account page; a token in the
address is not read). Calls answer JSON; the two streams answer NDJSON (`application/x-ndjson`),
one JSON object a line, with an empty line as a keep-alive. Every refusal is JSON
`{"code", "message", ...}`: the codes are listed with each status in the `Error` schema.

Limits, per token: `BOT_API_BURST` calls at once (60), refilled at `BOT_API_CALLS_PER_SECOND`
(10); `BOT_API_STREAMS` streams open at once (4). Over them: 429 with `Retry-After` (seconds).
A chat line also spends the player's socket budget. A body over `REQUEST_MAX_BYTES` (2.5 MB):
413 `too_large`. Revoking a token ends its streams at once."""

play, read = TokenAuth(ApiToken.Scope.PLAY), TokenAuth(ApiToken.Scope.READ)
api = DescribedApi(title="Boardhall bot API", version="1", urls_namespace="botapi-api", docs_url=None,
               description=DESCRIPTION,
               parser=FieldsOnce())


def _error(status: int, code: str, message: str, headers: dict | None = None, **extra) -> HttpResponse:
    response = JsonResponse({"code": code, "message": message, **extra}, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


@api.exception_handler(Refused)
def _refused(request, exc: Refused):
    return _error(exc.status, exc.code, exc.message, exc.headers)


@api.exception_handler(ServiceError)
def _service_error(request, exc: ServiceError):
    return _error(404 if exc.code in NOT_FOUND else ANALYSIS_REFUSALS.get(exc.code, 400), exc.code, exc.message,
                  **exc.extra)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request, exc):
    return _error(401, "no_token", gettext('Send your token: "Authorization: Bearer <token>" (make one on your account '
                                           'page).'),
                  {"WWW-Authenticate": "Bearer"})


@api.exception_handler(ValidationError)
def _malformed(request, exc: ValidationError):
    first = exc.errors[0] if exc.errors else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    return _error(400, "malformed", f"{where or 'The request'}: {first.get('msg', 'is not what this call takes')}.",
                  errors=[{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors])


@api.exception_handler(RequestDataTooBig)
def _too_large(request, exc):
    """A body over Django's limit (Daphne refuses one over it as it arrives, with the same JSON:
    ``config.errorpages.too_large_answer``)."""
    return _error(413, "too_large", gettext("A request may carry at most %(megabytes)s MB.") % {
        "megabytes": f"{django_settings.REQUEST_MAX_BYTES / 1e6:g}"})


@api.exception_handler(HttpError)
def _http_error(request, exc: HttpError):
    if exc.status_code == 400 and isinstance(exc.__cause__, ValueError):  # ninja's "Cannot parse request body"
        return _error(400, "malformed", gettext("The body must be JSON, each field given once (%(why)s).") % {
            "why": exc.__cause__})
    return _error(exc.status_code, "malformed" if exc.status_code == 400 else "refused", str(exc))


class Error(Schema):
    code: str
    message: str


class Ok(Schema):
    ok: bool = True


class BodyIn(Schema):
    """A request body: a field the call does not take is refused, not ignored."""

    model_config = ConfigDict(extra="forbid")


class MoveIn(BodyIn):
    action: Annotated[StrictStr, Field(min_length=1, max_length=Move._meta.get_field("action").max_length)]
    version: Annotated[StrictInt, Field(ge=0, le=MAX_VERSION)]


class Moved(Schema):
    ok: bool = True
    version: int


class ChatIn(BodyIn):
    text: Annotated[StrictStr, Field(max_length=ChatMessage.MAX_LENGTH)]


class ChallengeIn(BodyIn):
    to: Annotated[StrictInt, Field(ge=1, le=MAX_VERSION)]
    game: Annotated[StrictStr, Field(max_length=Match._meta.get_field("game").max_length,
                                     description="the rule set's slug", json_schema_extra={"enum": list(SLUGS)})]
    rated: StrictBool = False
    clock: Annotated[StrictStr, Field(max_length=10)] = "untimed"


class Account(Schema):
    id: int
    name: str
    bot: bool
    scopes: list[str]


REFUSALS = {400: Error, 401: Error, 403: Error, 404: Error, 429: Error}


@api.get("/account", auth=read, summary="Who the token plays for", response={200: Account, **REFUSALS}, tags=["account"])
def account(request):
    """Who the token plays for."""
    user = request.user
    return {"id": user.pk, "name": str(user), "bot": user.is_bot, "scopes": sorted(request.auth.scope_set)}


@api.post("/bot/account/upgrade", auth=play, summary="Make the account a bot account", response={200: Ok, **REFUSALS}, tags=["account"])
def bot_upgrade(request):
    """Make the account a bot account, for good; only while it has played no match."""
    services.bot_upgrade(user=request.user)
    return {"ok": True}


@api.get("/matches/{match_id}", auth=read, summary="A match's state, once", response={200: dict, **REFUSALS}, tags=["matches"])
def match_state(request, match_id: int):
    """The match as the stream's gameState gives it, once."""
    return feeds.viewer_state(match=_viewable_match(request, match_id), user_id=request.user.pk)


def _viewable_match(request, match_id: int) -> Match:
    match = match_by_id(match_id)
    if match is None or not match_can_view(match=match, user=request.user, invite_token=None):
        raise ServiceError("not_found", gettext("There is no such match, or it is private."))
    return match


@contextmanager
def _refusals_seen_by_viewers(request, match_id: int):
    """A refusal on a match the caller may not view (a private one they are not seated in) is
    the same 404 as a missing match's, never the service's own ("you are watching", "the match
    is over"): no call may tell an outsider that a private match exists. Checked only when the
    service refused: a move that is played pays nothing for it."""
    try:
        yield
    except ServiceError:
        _viewable_match(request, match_id)
        raise


@api.get("/matches/{match_id}/analysis", auth=read, summary="A finished match's analysis", response={200: dict, 409: Error, **REFUSALS}, tags=["matches"])
def match_analysis(request, match_id: int):
    """The match's post-game analysis as the replay page has it (``{"status": "none"}`` if
    nobody asked for one): per position each role's expected score (0 to 1), the best move
    found and the line the search expects from it (``line``: up to 6 actions, ``[]`` at the end,
    null in an analysis stored before lines were), per move its loss and mark, per role a
    summary. Refused while the match is in play (409 ``analysis_in_play``), and for an imported
    match while a live match stands at one of its positions (409 ``analysis_live_position``)."""
    return analysis_of(match=_viewable_match(request, match_id)) or {"status": "none"}


@api.post("/matches/{match_id}/analysis", auth=read, summary="Ask for a finished match's analysis", response={200: dict, 202: dict, 409: Error, **REFUSALS},
          tags=["matches"])
def match_analysis_request(request, match_id: int):
    """Ask for the post-game analysis of a finished match, as the replay page's button does:
    202 with the analysis queued (or under way: anyone's earlier request is reused), 200 with it
    when it is done already; then follow it with the GET. Refused while the match is in play
    (409 ``analysis_in_play``), for a match called off before its end (409
    ``analysis_not_finished``), and over the limits (429 ``analysis_busy``, one under way per
    player; ``analysis_daily_cap``; ``analysis_queue_full``)."""
    match = _viewable_match(request, match_id)
    game_services.analysis_request(match_id=match.pk, user=request.user)
    analysis = analysis_of(match=match)  # a stored one is read under the same fair-play rule
    return Status(200 if analysis["status"] == "done" else 202, analysis)


@api.post("/matches/{match_id}/move", auth=play, summary="Play a move", response={200: Moved, **REFUSALS}, tags=["matches"])
def move(request, match_id: int, body: MoveIn):
    """Play ``action`` (the same text as the match page's legal actions) at ``version``: the
    version of the state it was chosen in. A move at another version is refused
    (``stale_version``, with the current ``state``)."""
    with _refusals_seen_by_viewers(request, match_id):
        try:
            match = game_services.move_submit(match_id=match_id, user=request.user, action=body.action,
                                              version=body.version)
        except ServiceError as err:
            if err.code == "stale_version":
                match = match_by_id(match_id)
                err.extra["state"] = feeds.viewer_state(match=match, user_id=request.user.pk)
            raise
    return {"ok": True, "version": match.version}


def _seat_call(service):
    def call(request, match_id: int):
        with _refusals_seen_by_viewers(request, match_id):
            service(match_id=match_id, user=request.user)
        return {"ok": True}
    call.__doc__ = service.__doc__
    return call


for path, service, summary in [
        ("resign", game_services.match_resign, "Resign (your seat's part ends; with two players, the match)"),
        ("abort", game_services.match_abort, "Abort the match before every seat has moved (not rated)"),
        ("draw/offer", game_services.draw_offer, "Offer a draw"),
        ("draw/accept", game_services.draw_accept, "Accept the draw offered"),
        ("draw/decline", game_services.draw_decline, "Decline the draw offered")]:
    api.post(f"/matches/{{match_id}}/{path}", auth=play, response={200: Ok, **REFUSALS}, tags=["matches"],
             operation_id=f"match_{path.replace('/', '_')}", summary=summary, description=summary + ".")(
        _seat_call(service))


class MatchIn(BodyIn):
    game: Annotated[StrictStr, Field(max_length=Match._meta.get_field("game").max_length,
                                     description="the rule set's slug", json_schema_extra={"enum": list(SLUGS)})]
    rated: StrictBool = False
    clock: Annotated[StrictStr, Field(max_length=10)] = "untimed"
    private: StrictBool = Field(False, description="unlisted: only whoever has its address (or a seat) sees it")
    role: Annotated[StrictStr, Field(min_length=1, max_length=20)] | None = Field(
        None, description="your seat; none: one at random")


class MatchMade(Schema):
    id: int
    version: int
    status: str


@api.post("/matches", auth=play, summary="Create a match and wait in it for players",
          response={200: MatchMade, **REFUSALS}, tags=["matches"])
def match_make(request, body: MatchIn):
    """Create a match of ``game`` with ``clock`` and take a seat in it, as the lobby's "Create"
    does; the others join it from the lobby (a public one is listed while you are at it: its page
    or its match stream open) or through ``POST /api/matches/{id}/join``. Counted as the lobby
    counts a player's creations (``CREATE_PER_MINUTE``): over it, 429 ``rate_limited``."""
    if not throttle.action_allowed("create", throttle.client_key({"user": request.user}),
                                   django_settings.CREATE_PER_MINUTE):
        raise Refused(429, "rate_limited", gettext("You are creating matches too fast: wait a minute, then try again."),
                      **{"Retry-After": str(throttle.ACTION_WINDOW_SECONDS)})
    settings = MatchSettings.from_json({"game": body.game, "rated": body.rated, "clock": body.clock})
    match = game_services.match_create(user=request.user, settings=settings, is_private=body.private, role=body.role)
    return {"id": match.pk, "version": match.version, "status": match.status}


class JoinIn(BodyIn):
    role: Annotated[StrictStr, Field(min_length=1, max_length=20)] | None = Field(
        None, description="the seat to take; none: the first free one")


@api.post("/matches/{match_id}/join", auth=play, summary="Take a free seat of a waiting match",
          response={200: Moved, **REFUSALS}, tags=["matches"])
def join(request, match_id: int, body: JoinIn):
    """Take a free seat of a waiting match you can see (a public one, or one whose seat is kept
    for you), as the match page's "Join" does: the third seat of a three-player match left free by
    an accepted challenge, say. The match starts once every seat is taken (``gameStart`` on the
    event stream). Refused: ``seat_taken``, ``already_seated``, ``match_started``, and a rated
    match's rules (``rated_needs_accounts``, ...)."""
    _viewable_match(request, match_id)
    match = game_services.seat_join(match_id=match_id, user=request.user, role=body.role)
    return {"ok": True, "version": match.version}


@api.post("/matches/{match_id}/chat", auth=play, summary="Write in the match's chat", response={200: Ok, **REFUSALS}, tags=["matches"])
def chat(request, match_id: int, body: ChatIn):
    """Write a line in the match's chat (players only). A line takes one message from the
    same budget as the player's pages' sockets (``WS_RATE_BURST`` at once, ``WS_RATE_PER_SECOND``
    more each second, shared by the processes with Redis): over it, 429 ``rate_limited``."""
    if not async_to_sync(throttle.limits().take)(throttle.client_key({"user": request.user})):
        raise Refused(429, "rate_limited", gettext("Too many messages: the chat shares its budget with your pages' "
                                                   "sockets; wait for the seconds in Retry-After."),
                      **{"Retry-After": retry_after(1 / max(django_settings.WS_RATE_PER_SECOND, 0.001))})
    with _refusals_seen_by_viewers(request, match_id):
        game_services.chat_post(match_id=match_id, user=request.user, text=body.text)
    return {"ok": True}


@api.post("/challenges", auth=play, summary="Challenge a player", response={200: dict, **REFUSALS}, tags=["challenges"])
async def challenge_create(request, body: ChallengeIn):
    """Challenge the player ``to`` to a match of ``game`` (a rule set's slug) with ``clock``
    (a time control code: "untimed", "5+3", "d2"). Unanswered, it expires as a page's does."""
    settings = MatchSettings.from_json({"game": body.game, "rated": body.rated, "clock": body.clock})
    challenge = await database_sync_to_async(game_services.challenge_create)(user=request.user, to_id=body.to,
                                                                             settings=settings)
    game_services.challenge_expire_later(challenge_id=challenge.pk, expires_at=challenge.expires_at)
    return challenge_json(challenge)


def _challenge_call(service):
    def call(request, challenge_id: int):
        return challenge_json(service(user=request.user, challenge_id=challenge_id))
    call.__doc__ = service.__doc__
    return call


for path, service, summary in [
        ("accept", game_services.challenge_accept, "Accept a challenge made to you (the match starts)"),
        ("decline", game_services.challenge_decline, "Decline a challenge made to you"),
        ("cancel", game_services.challenge_cancel, "Cancel a challenge you made")]:
    api.post(f"/challenges/{{challenge_id}}/{path}", auth=play, response={200: dict, **REFUSALS},
             tags=["challenges"], operation_id=f"challenge_{path}", summary=summary,
             description=summary + ": the challenge as it stands then.")(_challenge_call(service))


class SeekIn(BodyIn):
    game: Annotated[StrictStr, Field(max_length=Match._meta.get_field("game").max_length,
                                     description="the rule set's slug", json_schema_extra={"enum": list(SLUGS)})]
    rated: StrictBool = False
    clock: Annotated[StrictStr, Field(max_length=10)] = Field("5+3", description="a time control code: \"5+3\", \"d2\", ...")


@api.post("/seek", auth=play, summary="Wait in the quick-game pool to be paired (NDJSON stream)",
          response={200: None, **REFUSALS}, tags=["streams"])
async def seek(request, body: SeekIn):
    """Wait for a quick game of ``game`` with ``clock``, as the lobby's "Quick game" does (the
    same pool, pairing by rating and refusals: ``bots_not_pooled``, ``rated_needs_accounts``,
    ``already_playing``, ...). NDJSON: an empty line at once and every couple of seconds while
    waiting, then ``gameStart`` once paired, or ``seekCanceled`` when the seek ended otherwise
    (``POST /api/seek/cancel``, a new seek, a revoked token); the stream then ends. Closing it
    cancels the seek. One seek per token: a new one replaces the old."""
    settings = MatchSettings.from_json({"game": body.game, "rated": body.rated, "clock": body.clock})
    slot = _stream_slot(request.auth)
    try:
        before, paired = await feeds.seek_enter(token=request.auth, settings=settings)
    except ServiceError:
        limits.stream_release(slot)
        raise
    return _stream(feeds.seek_lines(token=request.auth, before=before, paired=paired, slot=slot))


@api.post("/seek/cancel", auth=play, summary="Cancel the token's seek", response={200: Ok, **REFUSALS}, tags=["streams"])
def seek_cancel(request):
    """Leave the quick-game pool (the seek's stream then ends with ``seekCanceled``); ``ok`` is
    false when the token had no seek waiting."""
    return {"ok": game_services.pool_leave(user=request.user, channel_name=feeds.seek_channel(request.auth.pk))}


for method, path, auth, call, summary in [
        ("get", "/tournaments", read, tournament_calls.tournament_list,
         "List the public tournaments upcoming and running"),
        ("get", "/tournaments/{tournament_id}", read, tournament_calls.tournament_read,
         "A tournament: settings, standings, games in play, your part"),
        ("post", "/tournaments/{tournament_id}/join", play, tournament_calls.tournament_join,
         "Join a tournament (a private one with its invite or password)"),
        ("post", "/tournaments/{tournament_id}/withdraw", play, tournament_calls.tournament_withdraw,
         "Withdraw from a tournament"),
        ("post", "/tournaments/{tournament_id}/pause", play, tournament_calls.arena_pause,
         "Pause in a running arena"),
        ("post", "/tournaments/{tournament_id}/resume", play, tournament_calls.arena_resume,
         "Resume in an arena after a pause")]:
    getattr(api, method)(path, auth=auth, response={200: dict, **REFUSALS}, tags=["tournaments"],
                         operation_id=call.__name__, summary=summary)(call)


def _stream(lines) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx passes each line on at once
    return response


def _stream_slot(token: ApiToken) -> StreamSlot:
    """Reserve one of the token's streams (nothing awaited after it: the view returns at once)."""
    slot = limits.stream_reserve(token.pk)
    if slot is None:
        raise Refused(429, "too_many_streams", gettext("This token has as many streams open as it may: close one first."),
                      **{"Retry-After": str(STREAM_START_SECONDS)})
    return slot


@api.get("/matches/{match_id}/stream", auth=play, summary="Follow a match (NDJSON stream)", response={200: None, **REFUSALS}, tags=["streams"])
async def match_stream(request, match_id: int):
    """NDJSON: ``gameFull`` first (rule set, seats, clock, state, version, your roles and legal
    actions), then ``gameState`` on every change, ``chatLine``, ``notice``, ``opponentGone``;
    an empty line every few seconds. It ends after the state that finishes the match."""
    await database_sync_to_async(_viewable_match)(request, match_id)  # decided here once: the lines trust it
    return _stream(feeds.match_lines(token=request.auth, match_id=match_id, slot=_stream_slot(request.auth)))


@api.get("/stream/event", auth=read, summary="Follow your account's challenges and matches (NDJSON stream)", response={200: None, **REFUSALS}, tags=["streams"])
async def event_stream(request):
    """NDJSON: first every open challenge (``challenge``) and unfinished match (``gameStart``),
    then ``gameStart``, ``gameFinish``, ``challenge``, ``challengeCanceled``,
    ``challengeDeclined`` as they happen; an empty line every few seconds."""
    return _stream(feeds.event_lines(token=request.auth, slot=_stream_slot(request.auth)))
