"""A match's GGP seats: START, PLAY, STOP and ABORT (filled in by the match flow)."""
