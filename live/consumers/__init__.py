"""The websocket consumers: parse a message, call one service or selector, shape the answer."""
