"""A cluster of hosts on one Linux machine, each a network namespace: a load balancer (nginx),
two app hosts (Daphne), two worker hosts (``manage.py runworker computer ggp``), PostgreSQL, and
three Redis hosts (a primary, two replicas, a Sentinel on each). Used by ``bin/cluster`` and by
the failure tests (``tests/deploy/test_cluster.py``); needs root, ``ip`` (iproute2), nginx,
redis-server and PostgreSQL's server programs.

    python deploy/cluster.py up      # start, print the addresses, run until Ctrl-C, then remove it all
    python deploy/cluster.py down    # remove what a cluster left behind (a crashed run's)

The hosts sit on one bridge (``bh-br``) with addresses in 10.77.0.0/24 that exist only there;
no host has a default route, so each reaches the others by address and nothing else. The
machine's own side of the bridge, 10.77.0.1, is where clients and the operator stand: the site
is at http://10.77.0.10/. Every host has its own directory, host name (a UTS namespace of its
own), processes and environment; they share nothing but the network. Every name starts with
``bh-``, so ``down`` (also run before ``up``) finds what a killed run left.

The hosts' configuration is the one a real host takes (docs/operations.md, "Several hosts"):
the same environment variables, read by the same commands as ``deploy/systemd/``'s units.
"""

from __future__ import annotations

import argparse
import fcntl
import glob
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nginx  # deploy/nginx.py: not a package

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "bh-"
BRIDGE = f"{PREFIX}br"
NETWORK = "10.77.0"
MACHINE = f"{NETWORK}.1"  # the bridge's own address: this machine's side, where clients are
RUN_GLOB = "/tmp/boardhall-cluster-*"
LOCK = "/tmp/boardhall-cluster.lock"  # held while a cluster runs: the names are fixed, one at a time
HOSTS = {"lb": 10, "app1": 11, "app2": 12, "worker1": 21, "worker2": 22, "db": 30,
         "redis1": 31, "redis2": 32, "redis3": 33}
APPS, WORKERS, REDISES = ("app1", "app2"), ("worker1", "worker2"), ("redis1", "redis2", "redis3")
APP_PORT, LB_PORT, PG_PORT, REDIS_PORT, SENTINEL_PORT = 8000, 80, 5432, 6379, 26379
SENTINEL_MASTER = "boardhall"
DOWN_AFTER_MS = 2000  # Sentinel's time before it counts the primary as gone
FAILOVER_TIMEOUT_MS = 4000  # a failed election is tried again after twice this
# What an app host and a worker host run, after the virtualenv's python: deploy/systemd's units
# run the same (tests/deploy/test_systemd.py).
APP_COMMAND = ("-m", "daphne", "--proxy-headers", "-b", "{address}", "-p", "{port}", "config.asgi:application")
WORKER_COMMAND = ("manage.py", "runworker", "computer", "ggp")
START_SECONDS = 120  # a host's service up, on a loaded two-core machine


def address(host: str) -> str:
    return f"{NETWORK}.{HOSTS[host]}"


def namespace(host: str) -> str:
    return f"{PREFIX}{host}"


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def namespace_pids(host: str) -> list[int]:
    found = _ip("netns", "pids", namespace(host), check=False)
    return [int(pid) for pid in found.stdout.split()]


def remove_leftovers() -> None:
    """Kill every process in a ``bh-`` namespace, delete the namespaces, the bridge and the
    run directories: what this module made, whether or not its run ended cleanly."""
    names = [line.split()[0] for line in _ip("netns", "list", check=False).stdout.splitlines() if line.strip()]
    ours = [name for name in names if name.startswith(PREFIX)]
    for name in ours:
        for pid in _ip("netns", "pids", name, check=False).stdout.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
    for name in ours:
        _ip("netns", "del", name, check=False)
    _ip("link", "del", BRIDGE, check=False)
    for directory in glob.glob(RUN_GLOB):
        shutil.rmtree(directory, ignore_errors=True)


def hold_the_machine(wait: bool) -> int:
    """The lock that makes this the machine's only cluster (its file descriptor: held until it
    is closed, or the process ends, however it ends). ``wait``: until the other is done."""
    descriptor = os.open(LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        os.close(descriptor)
        raise SystemExit("a cluster is running on this machine: stop it first (its Ctrl-C)") from None
    return descriptor


def wait_for(host: str, port: int, process: subprocess.Popen | None = None, log: Path | None = None) -> None:
    """Until ``host``'s ``port`` accepts a connection (from this machine's side of the bridge)."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{host}: {process.args[-1] if process.args else ''} exited "
                               f"({process.returncode}); see {log}")
        try:
            socket.create_connection((address(host), port), 0.5).close()
            return
        except OSError:
            time.sleep(0.1)  # polling interval
    raise RuntimeError(f"{host}:{port} did not answer within {START_SECONDS} s; see {log}")


def _pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError("PostgreSQL's server programs are not installed (Debian: apt-get install postgresql)")
    return found[-1]


class Cluster:
    """The namespaces, their services and Boardhall's processes. A context manager: on the way
    out (also after an error) everything is removed."""

    def __init__(self, *, computer_seconds: str = "1.5", extra_env: dict[str, str] | None = None,
                 wait_for_machine: bool = True) -> None:
        self.wait_for_machine = wait_for_machine  # while another cluster runs; else stop at once
        self.lock: int | None = None
        self.run = Path()  # made by ``up``, once the leftovers of an earlier run are gone
        self.processes: dict[str, list[subprocess.Popen]] = {host: [] for host in HOSTS}
        self.secret_key = secrets.token_urlsafe(50)
        self.computer_seconds = computer_seconds
        self.extra_env = extra_env or {}
        self.url = f"http://{address('lb')}"
        self.ws_url = f"ws://{address('lb')}"

    # The environment every Boardhall host is given: the one a real host's unit file sets.
    def app_env(self, host: str) -> dict[str, str]:
        sentinels = ",".join(f"{address(r)}:{SENTINEL_PORT}" for r in REDISES)
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(self.run / host), "LANG": "C.UTF-8",
            "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1",
            "DATABASE_URL": f"postgres://postgres@{address('db')}:{PG_PORT}/boardhall",
            "REDIS_URL": "redis://sentinel/0", "REDIS_SENTINELS": sentinels,  # (its host: not used)
            "REDIS_SENTINEL_MASTER": SENTINEL_MASTER, "SECRET_KEY": self.secret_key,
            "ALLOWED_HOSTS": f"{address('lb')},localhost", "COMPUTER_SECONDS": self.computer_seconds,
            "LOG_LEVEL": "WARNING", **self.extra_env,
        }

    def spawn(self, host: str, name: str, argv: list[str], env: dict[str, str] | None = None,
              user: str | None = None) -> subprocess.Popen:
        """``argv`` as a process of ``host``: in its namespace, under its own host name, its
        output in ``<run>/<host>/<name>.log``."""
        directory = self.run / host
        log = directory / f"{name}.log"
        as_user = ["runuser", "-u", user, "--"] if user else []
        with open(log, "a") as out:
            process = subprocess.Popen(
                ["ip", "netns", "exec", namespace(host), "unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"',
                 f"{PREFIX}{host}", *as_user, *argv],
                cwd=ROOT, env=env or {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True)
        process.log = log
        self.processes[host].append(process)
        return process

    def log(self, host: str, name: str) -> str:
        path = self.run / host / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    # The network.
    def network_up(self) -> None:
        _ip("link", "add", BRIDGE, "type", "bridge")
        _ip("addr", "add", f"{MACHINE}/24", "dev", BRIDGE)
        _ip("link", "set", BRIDGE, "up")
        for host in HOSTS:
            ns = namespace(host)
            _ip("netns", "add", ns)
            _ip("link", "add", ns, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _ip("link", "set", ns, "master", BRIDGE, "up")
            _ip("-n", ns, "addr", "add", f"{address(host)}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            (self.run / host).mkdir()
            (self.run / host).chmod(0o755)

    # The services.
    def database_up(self) -> None:
        directory = self.run / "db"
        data = directory / "data"
        shutil.chown(directory, "postgres")
        subprocess.run(["runuser", "-u", "postgres", "--", _pg_bin("initdb"), "-D", str(data), "-A", "trust",
                        "-U", "postgres", "--no-sync"], check=True, capture_output=True, timeout=120)
        with open(data / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all {NETWORK}.0/24 trust\n")
        process = self.spawn("db", "postgres", [
            _pg_bin("postgres"), "-D", str(data), "-k", str(directory), "-c", f"listen_addresses={address('db')}",
            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "max_connections=200"], user="postgres")
        wait_for("db", PG_PORT, process, process.log)
        for _ in range(50):  # the port opens a moment before the server accepts logins
            made = subprocess.run([_pg_bin("createdb"), "-h", address("db"), "-U", "postgres", "boardhall"],
                                  capture_output=True, text=True)
            if made.returncode == 0:
                return
            time.sleep(0.2)  # polling interval
        raise RuntimeError(f"createdb failed: {made.stderr}")

    def redis_up(self) -> None:
        redis_server = shutil.which("redis-server") or "/usr/bin/redis-server"
        primary = address(REDISES[0])
        for host in REDISES:
            directory = self.run / host
            replica = [] if host == REDISES[0] else ["--replicaof", primary, str(REDIS_PORT)]
            self.spawn(host, "redis", [redis_server, "--bind", address(host), "--port", str(REDIS_PORT),
                                       "--protected-mode", "no", "--save", "", "--appendonly", "no",
                                       "--dir", str(directory), *replica])
            conf = directory / "sentinel.conf"  # Sentinel rewrites it: the host's own file
            conf.write_text(
                f"bind {address(host)}\nport {SENTINEL_PORT}\nprotected-mode no\ndir {directory}\n"
                f"sentinel monitor {SENTINEL_MASTER} {primary} {REDIS_PORT} 2\n"
                f"sentinel down-after-milliseconds {SENTINEL_MASTER} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {SENTINEL_MASTER} {FAILOVER_TIMEOUT_MS}\n")
            self.spawn(host, "sentinel", [redis_server, str(conf), "--sentinel"])
        for host in REDISES:
            wait_for(host, REDIS_PORT, log=self.run / host / "redis.log")
            wait_for(host, SENTINEL_PORT, log=self.run / host / "sentinel.log")

    # Boardhall.
    def python(self) -> str:
        return str(ROOT / ".venv" / "bin" / "python")

    def manage(self, host: str, *args: str, stdin: str | None = None) -> str:
        """``manage.py ARGS`` run once on ``host`` (its namespace, its environment); its output."""
        done = subprocess.run(
            ["ip", "netns", "exec", namespace(host), self.python(), "manage.py", *args], cwd=ROOT,
            env=self.app_env(host), input=stdin, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} on {host} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def prepare(self) -> None:
        """The release steps, from one app host: migrate; the 413 page and body limit for nginx."""
        self.manage("app1", "migrate", "--noinput", "-v0")
        self.max_body = int(self.manage("app1", "shell", "--no-imports", "-c", (
            "from pathlib import Path; from django.conf import settings; "
            "from config.errorpages import too_large_page; "
            f"Path('{self.run / 'lb' / '413.html'}').write_bytes(too_large_page(b'')); "
            "print(settings.REQUEST_MAX_BYTES)")).split()[-1])

    def start_app(self, host: str) -> subprocess.Popen:
        command = [part.replace("{address}", address(host)).replace("{port}", str(APP_PORT)) for part in APP_COMMAND]
        return self.spawn(host, "daphne", [self.python(), *command], self.app_env(host))

    def start_worker(self, host: str) -> subprocess.Popen:
        return self.spawn(host, "worker", [self.python(), *WORKER_COMMAND], self.app_env(host))

    def wait_for_app(self, host: str) -> None:
        process = self.processes[host][-1]
        wait_for(host, APP_PORT, process, process.log)

    def lb_up(self) -> None:
        directory = self.run / "lb"
        (directory / "nginx.conf").write_text(nginx.render(
            listen=f"{address('lb')}:{LB_PORT}", upstreams=[f"{address(a)}:{APP_PORT}" for a in APPS],
            directory=directory, max_body=self.max_body))
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        process = self.spawn("lb", "nginx", [binary, "-c", str(directory / "nginx.conf")])
        wait_for("lb", LB_PORT, process, process.log)

    def up(self) -> "Cluster":
        self.lock = hold_the_machine(wait=self.wait_for_machine)
        remove_leftovers()
        self.run = Path(tempfile.mkdtemp(prefix="boardhall-cluster-"))
        self.run.chmod(0o755)
        self.network_up()
        self.database_up()
        self.redis_up()
        self.prepare()
        for host in APPS:
            self.start_app(host)
        for host in WORKERS:
            self.start_worker(host)
        for host in APPS:
            self.wait_for_app(host)
        self.lb_up()
        return self

    def vanish(self, host: str) -> None:
        """Every process of ``host`` killed at once (SIGKILL), as when a machine dies: its
        kernel (the namespace) stays and answers connections to closed ports with a reset."""
        for pid in namespace_pids(host):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for process in self.processes[host]:
            process.wait()
        self.processes[host] = []

    def restart_app(self, host: str) -> float:
        """Drain ``host``'s Daphne and start it again; the seconds from its SIGTERM to its exit.
        On SIGTERM it stops listening (nginx, refused, sends new sockets and requests to the
        other app hosts), finishes the moves in flight and closes its sockets with 1001
        (``config/drain.py``); the new one is started once the old has exited, and this returns
        once it answers."""
        sent = time.monotonic()
        for process in self.processes[host]:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes[host]:
            try:
                process.wait(START_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        exited = time.monotonic() - sent
        self.processes[host] = []
        self.start_app(host)
        self.wait_for_app(host)
        self.wait_for_balancer(host)
        return exited

    def wait_for_balancer(self, host: str) -> None:
        """Until nginx sends ``host`` requests again. nginx counts an upstream that refused a
        connection as down for its ``fail_timeout`` (10 s) and only then tries it again: drain
        the next host before that and nginx has none left, and answers 502 until it retries.
        The site is asked for through nginx until nginx holds a connection to the host."""
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/", timeout=10).close()
            except OSError:
                pass
            if self.balancer_connections(host):
                return
            time.sleep(0.2)  # polling interval
        raise RuntimeError(f"nginx sent {host} nothing within {START_SECONDS} s")

    def balancer_connections(self, host: str) -> int:
        """The connections nginx holds open to ``host``'s Daphne (sockets and kept-alive requests)."""
        found = _ip("netns", "exec", namespace(host), "ss", "-Htn", "state", "established",
                    f"( sport = :{APP_PORT} )", check=False).stdout
        return found.count(f"{address('lb')}:")

    def app_running(self, host: str) -> None:
        """``host``'s Daphne started again if it is gone (a host that vanished came back), once
        nginx sends it requests."""
        if not any(process.poll() is None for process in self.processes[host]):
            self.processes[host] = []
            self.start_app(host)
            self.wait_for_app(host)
            self.wait_for_balancer(host)

    def rolling_restart(self) -> dict[str, float]:
        """A release's restart: each app host drained and started again, one at a time (each
        getting requests from nginx before the next is drained); the seconds from SIGTERM to exit."""
        return {host: self.restart_app(host) for host in APPS}

    def cut(self, host: str, others: tuple[str, ...]) -> None:
        """A partition: ``host`` and ``others`` can no longer reach each other, both ways (a
        blackhole route on each side: packets go nowhere, with no reset, so an open connection
        just stops answering; a new one fails at once), while everything else, ``others``
        among themselves included, carries on. ``heal`` ends it; TCP then resends what waited."""
        for one, other in self._links(host, others):
            _ip("-n", namespace(one), "route", "add", "blackhole", f"{address(other)}/32")

    def heal(self, host: str, others: tuple[str, ...]) -> None:
        for one, other in self._links(host, others):
            _ip("-n", namespace(one), "route", "del", "blackhole", f"{address(other)}/32", check=False)

    @staticmethod
    def _links(host: str, others: tuple[str, ...]) -> list[tuple[str, str]]:
        return [pair for other in others for pair in ((host, other), (other, host))]

    def down(self) -> None:
        for host in HOSTS:
            for process in self.processes[host]:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGTERM)
        for processes in self.processes.values():
            for process in processes:
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    pass
        remove_leftovers()
        if self.lock is not None:
            os.close(self.lock)
            self.lock = None

    def __enter__(self) -> "Cluster":
        try:
            return self.up()
        except BaseException:
            self.down()
            raise

    def __exit__(self, *exc) -> None:
        self.down()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["up", "down"])
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("the cluster makes network namespaces: run it as root")
    if args.command == "down":
        os.close(hold_the_machine(wait=False))
        remove_leftovers()
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(0))
    with Cluster(wait_for_machine=False) as cluster:
        print(f"Boardhall on {cluster.url}/ (from this machine), logs in {cluster.run}/<host>/")
        for host in HOSTS:
            print(f"  {host:8} {address(host):12} ip netns exec {namespace(host)} ...")
        print(f"kill -USR1 {os.getpid()} restarts the app hosts one at a time (a release's rolling restart).")
        print("Ctrl-C removes the cluster.")
        signal.signal(signal.SIGUSR1, lambda *_: print(f"restarted: {cluster.rolling_restart()}", flush=True))
        try:
            while True:
                signal.pause()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
