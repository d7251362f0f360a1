"""Finished matches: history lists, player records, replays, and GGP match-format export/import."""
