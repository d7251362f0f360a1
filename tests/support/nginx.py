"""nginx in front of live Daphne processes, configured as bin/scaled does (deploy/nginx.py)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from django.conf import settings

from config.errorpages import too_large_page
from tests.support.live import ROOT, free_port

sys.path.insert(0, str(ROOT / "deploy"))
import nginx as config  # noqa: E402  (deploy/nginx.py: not a package)


class Front:
    """What the test clients need of a server: its page and websocket addresses."""

    def __init__(self, port: int) -> None:
        self.url, self.ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"


@contextmanager
def nginx_in_front(servers) -> Iterator[Front]:
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).exists():
        raise RuntimeError("nginx is not installed (Debian: apt-get install nginx-light); bin/test installs it")
    directory = Path(tempfile.mkdtemp(prefix="boardhall-nginx-"))
    directory.chmod(0o755)  # as deploy/nginx.py: nginx's workers may run as another user
    (directory / "413.html").write_bytes(too_large_page(b""))
    port = free_port()
    (directory / "nginx.conf").write_text(config.render(
        listen=f"127.0.0.1:{port}", upstreams=[f"127.0.0.1:{s.port}" for s in servers], directory=directory,
        max_body=settings.REQUEST_MAX_BYTES))
    process = subprocess.Popen([binary, "-c", str(directory / "nginx.conf")], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start: {process.stderr.read().decode()[-2000:]}") from None
                time.sleep(0.05)
        yield Front(port)
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(directory, ignore_errors=True)
