"""How long a hostile form body holds a Daphne process: a POST of 45,000 empty multipart fields
(2.3 MB, under the 2.5 MB limit, no CSRF token), while another client asks for a static file
twenty times over.

Twisted used to parse such a body into ``request.args`` on the server's one event-loop thread
before Django saw it; ``config/bodylimit.py`` turns that off (docs/hostile-input.md). Starts its
own Daphne on a throw-away SQLite database and prints, for ``--repeats`` POSTs, the POST's
answer time and the slowest GET answered meanwhile (medians too). Not a test:

    python3 benchmarks/form_bodies.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIELDS = 45_000
BODY = b"".join(b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n\r\n' for _ in range(FIELDS)) + b"--x--\r\n"


def exchange(port: int, request: bytes) -> bytes:
    """Send ``request`` on a new connection and read the answer to its end."""
    with socket.create_connection(("127.0.0.1", port), 60) as sock:
        sock.sendall(request)
        answer = b""
        while data := sock.recv(65536):
            answer += data
    return answer


def post(port: int) -> bytes:
    head = (b"POST /history/import/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(BODY))
    return exchange(port, head + BODY).split(b"\r\n", 1)[0]


def get(port: int) -> float:
    started = time.monotonic()
    exchange(port, b"GET /static/favicon.svg HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    return time.monotonic() - started


def serve(workdir: str) -> tuple[subprocess.Popen, int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    environ = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir}/bench.sqlite3"}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=environ, check=True)
    daphne = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
                              cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            get(port)
            return daphne, port
        except OSError:
            time.sleep(0.2)  # polling until the server answers
    daphne.kill()
    raise SystemExit("Daphne did not answer within 120 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    daphne, port = serve(tempfile.mkdtemp(prefix="boardhall-form-bodies-"))
    try:
        post(port)  # warms the site up (its first page, Django's imports)
        posts, slowest = [], []
        for _ in range(args.repeats):
            gets: list[float] = []
            reader = threading.Thread(target=lambda: gets.extend(get(port) for _ in range(20)))
            started = time.monotonic()
            reader.start()
            status = post(port)
            posts.append(time.monotonic() - started)
            reader.join()
            slowest.append(max(gets))
            print(f"{status.decode()}: POST answered in {posts[-1]:.3f} s; slowest GET meanwhile {slowest[-1]:.3f} s",
                  flush=True)
        print(f"median: POST {statistics.median(posts):.3f} s, slowest GET {statistics.median(slowest):.3f} s; "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        daphne.terminate()
        daphne.wait(30)


if __name__ == "__main__":
    main()
