"""Each viewer's state message (games/snapshots.viewer_message): the public state encoded once,
plus the viewer's own roles and, for the one to move, the legal actions."""

import json

import pytest

from games.models import Match
from games.selectors import snapshots

SNAPSHOT = {"version": 5, "status": Match.Status.ACTIVE,
            "view": {"to_move": "oPlayer", "cell_actions": {"0": "(mark 1 1 1 1)", "1": "(mark 1 1 1 2)"}},
            "seats": [{"role": "xPlayer", "player": {"id": 7}}, {"role": "oPlayer", "player": {"id": 8}},
                      {"role": "zPlayer", "player": None}]}
LEGAL = ["(mark 1 1 1 1)", "(mark 1 1 1 2)"]


@pytest.mark.parametrize("user_id, you", [
    (None, {"roles": [], "legal": {}}),               # signed out
    (99, {"roles": [], "legal": {}}),                 # a spectator
    (7, {"roles": ["xPlayer"], "legal": {}}),         # waiting for the other
    (8, {"roles": ["oPlayer"], "legal": {"oPlayer": LEGAL}}),  # to move
])
def test_each_viewer_gets_their_roles_and_only_the_mover_the_legal_actions(user_id, you):
    event = snapshots.state_event(SNAPSHOT, {"ply": 4})
    message = json.loads(snapshots.viewer_message(event, user_id))
    assert message == {"type": "state", "version": 5, "match": SNAPSHOT, "last_move": {"ply": 4}, "you": you}


def test_one_player_in_two_seats_gets_the_legal_actions_of_the_seat_to_move():
    snapshot = {**SNAPSHOT, "seats": [{"role": "xPlayer", "player": {"id": 7}}, {"role": "oPlayer", "player": {"id": 7}}]}
    message = json.loads(snapshots.viewer_message(snapshots.state_event(snapshot, None), 7))
    assert message["you"] == {"roles": ["xPlayer", "oPlayer"], "legal": {"oPlayer": LEGAL}}
    assert message["last_move"] is None


def test_nobody_has_legal_actions_in_a_finished_match():
    snapshot = {**SNAPSHOT, "status": Match.Status.FINISHED}
    message = json.loads(snapshots.viewer_message(snapshots.state_event(snapshot, None), 8))
    assert message["you"] == {"roles": ["oPlayer"], "legal": {}}


def test_messages_are_compact_json_that_reads_back_the_same():
    value = {"name": "Zoë 😀", "cells": {1: "(play 1 1 1 1 x)"}, "moves": (1, 2), "none": None, "ok": True}
    text = snapshots.encode(value)
    assert " " not in text.replace("Zoë 😀", "").replace("(play 1 1 1 1 x)", "")  # compact
    assert json.loads(text) == {"name": "Zoë 😀", "cells": {"1": "(play 1 1 1 1 x)"}, "moves": [1, 2], "none": None,
                                "ok": True}


def test_text_orjson_refuses_is_still_encoded():
    text = snapshots.encode({"type": "error", "message": "no such action: \ud800"})  # a lone surrogate a client sent
    assert json.loads(text) == {"type": "error", "message": "no such action: \ud800"}
