"""The socket edge, shared by the match pages and the lobby, apart from the game logic as
lichess keeps its socket server apart: the consumers (``consumers.match``, ``consumers.lobby``),
what every socket shares (``sockets``: sign-in, pings, presence, throttle), the wire format
(``protocol``), the queue a move waits in for the database (``movequeue``, over ``batches``), the
Redis channel layer (``layers``) and the lobby lists that its pages share (``lobby_lists``).

It calls the services and the selectors of ``games`` and ``lobby``, and nothing below it
imports it.
"""
