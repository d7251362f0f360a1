"""Exit 0 when every URL given (postgres://..., redis://...) accepts a TCP connection."""

import socket
import sys
from urllib.parse import urlsplit

DEFAULT_PORTS = {"postgres": 5432, "postgresql": 5432, "redis": 6379}

for url in sys.argv[1:]:
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname or "127.0.0.1", parts.port or DEFAULT_PORTS[parts.scheme]), 2).close()
    except OSError:
        sys.exit(1)
