"""nginx in front of live Daphne processes, configured as bin/scaled does (deploy/nginx.py).

As for Daphne (tests/support/live.py), the test process owns nginx's port: it listens itself
and hands the socket to nginx, which takes over a listening socket named in its NGINX
environment variable when the address matches its ``listen``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from django.conf import settings

from config.errorpages import too_large_page
from tests.support.live import ROOT, listening_socket, stop_process, wait_until_serving

sys.path.insert(0, str(ROOT / "deploy"))
import nginx as config  # deploy/nginx.py: not a package


class Front:
    """What the test clients need of a server: its port, page and websocket addresses."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url, self.ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"


@contextmanager
def nginx_in_front(servers, trusted_proxies: list[str] = ()) -> Iterator[Front]:
    """nginx at the edge, or behind ``trusted_proxies`` (whose X-Forwarded-For it believes)."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).exists():
        raise RuntimeError("nginx is not installed (Debian: apt-get install nginx-light); bin/test installs it")
    directory = Path(tempfile.mkdtemp(prefix="boardhall-nginx-"))
    directory.chmod(0o755)  # as deploy/nginx.py: nginx's workers may run as another user
    (directory / "413.html").write_bytes(too_large_page(b""))
    listener = listening_socket()
    port = listener.getsockname()[1]
    (directory / "nginx.conf").write_text(config.render(
        listen=f"127.0.0.1:{port}", upstreams=[f"127.0.0.1:{s.port}" for s in servers], directory=directory,
        max_body=settings.REQUEST_MAX_BYTES, trusted_proxies=trusted_proxies))
    log = directory / "stderr.log"
    with open(log, "w") as stderr:
        process = subprocess.Popen([binary, "-c", str(directory / "nginx.conf")], stderr=stderr,
                                   env={**os.environ, "NGINX": f"{listener.fileno()};"}, pass_fds=[listener.fileno()])
    try:
        wait_until_serving(port, process, f"{log} and {directory / 'error.log'}", what="nginx")
        yield Front(port)
    finally:
        stop_process(process)
        listener.close()
        shutil.rmtree(directory, ignore_errors=True)
