"""Notifications with the page closed: web push and email, opted into per account, channel and
event, each carrying a one-click unsubscribe link.

The games' services hand each event over after commit as a ``Notice`` (``notify.events``);
sending runs off the request and database threads (``notify.delivery``), and what it reads of
a match (pages open, moves made) it receives at start-up as ``notify.events.Reads``, so this
app imports nothing of the games.
"""
