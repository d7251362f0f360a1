"""deploy/systemd's units run what the cluster's hosts run (deploy/cluster.py), which its tests
put through failures."""

import re

import pytest

from tests.support.cluster import deploy_cluster as cluster
from tests.support.live import ROOT

pytestmark = pytest.mark.pure
UNITS = ROOT / "deploy" / "systemd"


def exec_start(unit: str) -> list[str]:
    [line] = re.findall(r"^ExecStart=(.*)$", (UNITS / unit).read_text(), re.MULTILINE)
    return line.split()


def test_an_app_host_runs_the_clusters_daphne_on_its_own_address_and_the_instances_port():
    python, *command = exec_start("boardhall-app@.service")
    assert python.endswith("/.venv/bin/python")
    assert command == [p.replace("{address}", "${APP_ADDRESS}").replace("{port}", "%i") for p in cluster.APP_COMMAND]


def test_a_worker_host_runs_the_clusters_worker():
    python, *command = exec_start("boardhall-worker.service")
    assert python.endswith("/.venv/bin/python") and command == list(cluster.WORKER_COMMAND)


def test_every_boardhall_unit_reads_the_shared_environment_the_cluster_gives_its_hosts():
    names = set(re.findall(r"^([A-Z_]+)=", (UNITS / "boardhall.env.example").read_text(), re.MULTILINE))
    given = set(cluster.Cluster().app_env("app1"))
    assert {"DATABASE_URL", "REDIS_URL", "REDIS_SENTINELS", "REDIS_SENTINEL_MASTER", "SECRET_KEY",
            "ALLOWED_HOSTS"} <= names & given
    for unit in ("boardhall-app@.service", "boardhall-worker.service", "boardhall-release.service"):
        assert "EnvironmentFile=/etc/boardhall/boardhall.env" in (UNITS / unit).read_text()
