"""The computer player: ``search`` thinks (pure, over ``games.rules``), ``bots`` plays its turns
off the request path once a move commits, ``workers`` is the Channels worker of the scaled
set-up that runs those turns in a process of its own."""
