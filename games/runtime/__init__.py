"""The running server's own moving parts, below the services and selectors and importing
nothing of them: the hand-off from a database thread to the event loop (``eventloop``), the
database threads (``dbthreads``), who has a page open (``presence``, in memory or Redis, never
the database), the rate limits (``throttle``), one log line per outage (``outages``) and what a process sets
going when it starts serving (``starting``)."""
