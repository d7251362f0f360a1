"""GDL for Boardhall's rule sets: the KIF syntax, a reasoner on clingo, the rule sheets and the
mapping between Boardhall's states and actions and GDL's facts and moves.

Pure: the standard library, clingo and ``games.rules``; nothing of Django. See docs/ggp.md.
"""
