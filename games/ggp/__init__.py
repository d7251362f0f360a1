"""General Game Playing for Boardhall: GDL rule sheets and their reasoner (``games.ggp.gdl``),
and Boardhall as a GGP game manager: registered GGP players (programs behind an HTTP address)
seated in matches and called with the standard GGP protocol.

``protocol`` the message texts and the reading of answers (pure); ``client`` the HTTP call
(allow-listed hosts, checked at call time, timeouts, a cap on the answer); ``players``
registration and status; ``manager`` a match's turn flow (START, PLAY, STOP, ABORT).
Calls to players never run on a web request's path (``offpath``).
"""
