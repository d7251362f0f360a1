"""The bot API's OpenAPI document, whole: what ninja generates from the calls' schemas, and what
it cannot say by itself, added in one place (``describe``):

- the typed objects the calls answer (a challenge, a match's state, a tournament) and every line of the two
  NDJSON streams, as schemas in ``components`` (``ANSWERS``, ``STREAM_LINES``): the streams'
  200 answers are ``application/x-ndjson``, one of their line schemas a line;
- the refusals every call may meet: 413 for a body over ``REQUEST_MAX_BYTES`` (JSON, as every
  refusal), 429 with ``Retry-After``, and the error codes (``Error``);
- ``servers`` (this server: the paths carry ``/api/``).

The models here describe; the calls answer the same dicts as the pages' (``feeds``,
``games.selectors``), and the API tests validate what they receive against these models.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from games.rules import SLUGS


class Open(BaseModel):
    """An object that may carry more fields than the ones named (new ones are added, never removed)."""

    model_config = ConfigDict(extra="allow")


class Player(Open):
    id: int
    name: str
    guest: bool
    computer: bool
    bot: bool


class ChallengeSettings(Open):
    game: str = Field(description="the rule set's slug", json_schema_extra={"enum": list(SLUGS)})
    rated: bool
    clock: str = Field(description='a time control code: "untimed", "5+3", "d2", "m30/10"')


class Challenge(Open):
    """A challenge as both players' pages show it."""

    id: int
    from_: Player = Field(alias="from")
    to: Player
    settings: ChallengeSettings
    game_name: str
    clock: str = Field(description="the time control in words")
    status: Literal["pending", "accepted", "declined", "cancelled", "expired"]
    expires_at: str = Field(description="ISO 8601")
    match: int | None = Field(description="the match it started, once accepted")


class Seat(Open):
    role: str
    player: Player | None


class MatchView(Open):
    """The match's full public state (the match page's): rule set, seats and players, time
    control and clock, status, offers, every move, the board's view, the result."""

    id: int
    game: str = Field(json_schema_extra={"enum": list(SLUGS)})
    status: Literal["waiting", "active", "finished", "aborted"]
    seats: list[Seat]
    result: dict[str, Any] | None = None


class You(BaseModel):
    roles: list[str] = Field(description="the roles the token's account holds")
    legal: dict[str, list[str]] = Field(description="the mover's legal actions, when one of your roles is to move")


class GameState(BaseModel):
    """The match as one viewer sees it: ``GET /api/matches/{id}``, and the match stream's
    ``gameFull`` (first) and ``gameState`` lines."""

    type: Literal["gameState", "gameFull"]
    version: int = Field(description="send it back with a move chosen in this state")
    match: MatchView
    last_move: dict[str, Any] | None
    you: You


class ChatLine(Open):
    type: Literal["chatLine"]


class Notice(BaseModel):
    type: Literal["notice"]
    text: str


class OpponentGone(BaseModel):
    type: Literal["opponentGone"]
    role: str
    gone: bool
    claim_after: Any = Field(description="when the seat's absence may be claimed, as the match page has it")


class ChallengeEvent(BaseModel):
    type: Literal["challenge", "challengeDeclined", "challengeCanceled"]
    challenge: Challenge


class GameRef(BaseModel):
    id: int
    game: str = Field(json_schema_extra={"enum": list(SLUGS)})
    status: str
    roles: list[str] = Field(description="your roles in it")
    seats: list[Seat]


class FinishedGame(GameRef):
    result: dict[str, Any] | None


class GameStart(BaseModel):
    type: Literal["gameStart"]
    game: GameRef


class GameFinish(BaseModel):
    type: Literal["gameFinish"]
    game: FinishedGame


class SeekCanceled(BaseModel):
    type: Literal["seekCanceled"]


class TournamentSummary(Open):
    """A tournament's settings and counts."""

    id: int
    name: str
    format: Literal["round_robin", "swiss", "arena"]
    game: str = Field(json_schema_extra={"enum": list(SLUGS)})
    game_name: str
    clock: str = Field(description='the time control\'s code: "5+3", "d2", "untimed"')
    time_control: str = Field(description="the time control in words")
    rated: bool
    status: Literal["upcoming", "running", "finished", "cancelled"]
    private: bool
    password: bool = Field(description="joining without the invite asks for its password")
    players: int = Field(description="entered and not withdrawn")
    min_players: int
    max_players: int
    rounds: int = Field(description="a Swiss's rounds (a round robin's, once started)")
    cycles: int = Field(description="a round robin: 1 (everyone meets once) or 2")
    minutes: int = Field(description="an arena's duration (0: not an arena)")
    starts_at: str = Field(description="ISO 8601")
    started_at: str | None
    ends_at: str | None = Field(description="an arena's end, once started")
    finished_at: str | None


class TournamentList(BaseModel):
    upcoming: list[TournamentSummary]
    running: list[TournamentSummary]


class StandingRow(Open):
    rank: int
    id: int = Field(description="the player's account")
    name: str
    score: float
    tie_break: float = Field(description="Sonneborn-Berger; an arena's performance")
    games: int
    playing: bool
    paused: bool
    withdrawn: bool


class TournamentPlayer(BaseModel):
    id: int
    name: str


class TournamentGameInPlay(Open):
    match: str = Field(description="the match page's address (its id is the last part)")
    first: TournamentPlayer
    second: TournamentPlayer


class TournamentYou(BaseModel):
    joined: bool
    paused: bool
    game: str | None = Field(description="your game in play's address")


class TournamentView(BaseModel):
    """``GET /api/tournaments/{id}``: the tournament, and its live page's standings and games."""

    tournament: TournamentSummary
    version: int = Field(description="the live page's version of this state")
    standings: list[StandingRow]
    playing: list[TournamentGameInPlay]
    you: TournamentYou


class TournamentEntry(BaseModel):
    """Where the call left your entry."""

    ok: bool
    joined: bool = Field(description="entered and not withdrawn")
    paused: bool


ANSWERS: dict[str, type[BaseModel]] = {  # operation id -> the model of its 200 answer
    "botapi_api_match_state": GameState, "botapi_api_challenge_create": Challenge,
    "challenge_accept": Challenge, "challenge_decline": Challenge, "challenge_cancel": Challenge,
    "tournament_list": TournamentList, "tournament_read": TournamentView, "tournament_join": TournamentEntry,
    "tournament_withdraw": TournamentEntry, "arena_pause": TournamentEntry, "arena_resume": TournamentEntry,
}
STREAM_LINES: dict[str, list[type[BaseModel]]] = {
    "botapi_api_match_stream": [GameState, ChatLine, Notice, OpponentGone],
    "botapi_api_event_stream": [ChallengeEvent, GameStart, GameFinish],
    "botapi_api_seek": [GameStart, SeekCanceled],
}
ERROR_CODES = {
    400: "a service's refusal, with the match socket's code (illegal_action, not_your_turn, stale_version "
         "with the current state, match_over, draw_too_early, ...) or the tournament page's (already_joined, "
         "full, too_late, wrong_password, not_joined, not_running, already_paused, arena_over, ...), or "
         "malformed (a field wrong, unknown or given twice; a body that is not JSON)",
    401: "no_token (no Authorization: Bearer header; a token in the address is not read), bad_token "
         "(unknown or revoked)",
    403: "missing_scope",
    404: "not_found (also a private match you are not seated in, a private tournament without its invite, "
         "and pause or resume in a tournament that is not an arena), no_such_challenge, unknown_rules",
    413: "too_large: the body is over the server's limit (REQUEST_MAX_BYTES, 2.5 MB by default); refused as it "
         "arrives",
    429: "rate_limited (the token's budget: BOT_API_BURST at once, BOT_API_CALLS_PER_SECOND more each second; a "
         "chat line also spends the player's socket budget), too_many_streams (BOT_API_STREAMS open at once); "
         "wait for the seconds in Retry-After",
}
RETRY_AFTER = {"Retry-After": {"description": "seconds to wait before calling again", "schema": {"type": "integer"}}}


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _add_schemas(schemas: dict[str, Any], models) -> None:
    for model in models:
        found = model.model_json_schema(by_alias=True, ref_template="#/components/schemas/{model}")
        schemas.update(found.pop("$defs", {}))
        schemas[model.__name__] = found


def describe(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (ninja's) made whole, as the module's docstring says."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    _add_schemas(schemas, list(ANSWERS.values()) + [m for lines in STREAM_LINES.values() for m in lines])
    error = schemas.get("Error", {})
    error.setdefault("properties", {}).get("code", {})["description"] = "; ".join(
        f"{status}: {words}" for status, words in ERROR_CODES.items())
    document["servers"] = [{"url": "/", "description": "this Boardhall server (every path starts with /api/)"}]
    for path in document["paths"].values():
        for operation in path.values():
            answers = operation["responses"] = {str(status): answer for status, answer in
                                                operation.get("responses", {}).items()}
            model = ANSWERS.get(operation.get("operationId"))
            if model is not None:
                answers["200"]["content"] = {"application/json": {"schema": _ref(model)}}
            lines = STREAM_LINES.get(operation.get("operationId"))
            if lines is not None:
                answers["200"] = {
                    "description": "NDJSON: one JSON object a line, of one of these types; an empty line first "
                                   "and every BOT_API_KEEPALIVE_SECONDS (5) is a keep-alive: skip it",
                    "content": {"application/x-ndjson": {"schema": {"oneOf": [_ref(m) for m in lines]}}}}
            for status, words in ERROR_CODES.items():
                answer = answers.setdefault(str(status), {
                    "description": words, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
                answer["description"] = words
                if status == 429:
                    answer["headers"] = RETRY_AFTER
    return document
