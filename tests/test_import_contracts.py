"""The layout's one-way rules (.importlinter) hold, and no two top-level packages import each
other: a wrong import fails here with the contract and the import chain named."""

import configparser
import os
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL = ("games", "lobby", "botapi", "social", "notify", "tournaments", "live", "config", "benchmarks", "ggparena")


def circles_between(graph: grimp.ImportGraph, packages) -> list[str]:
    """Each pair of packages that import each other, directly or through others."""
    found = []
    for first, second in combinations(packages, 2):
        there = graph.find_shortest_chain(importer=first, imported=second, as_packages=True)
        back = graph.find_shortest_chain(importer=second, imported=first, as_packages=True)
        if there and back:
            found.append(f"{first} <-> {second}: {' -> '.join(there)}, and back: {' -> '.join(back)}")
    return found


def test_every_import_contract_is_kept():
    lint = subprocess.run([str(Path(sys.executable).with_name("lint-imports")), "--config", ".importlinter", "--no-cache"],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "COLUMNS": "300", "NO_COLOR": "1"})
    broken = [line for line in lint.stdout.splitlines() if line.endswith(" BROKEN") or " BROKEN (" in line]
    assert lint.returncode == 0, f"broken import contracts: {broken or lint.stderr}\n\n{lint.stdout}"


def test_no_top_level_packages_import_each_other():
    sys.path.insert(0, str(ROOT))
    graph = grimp.build_graph(*TOP_LEVEL, cache_dir=None)
    assert circles_between(graph, TOP_LEVEL) == []


def test_the_circle_check_covers_every_root_package_of_the_contracts():
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    assert set(TOP_LEVEL) == set(config["importlinter"]["root_packages"].split())


def test_a_circle_between_packages_is_found():
    graph = grimp.ImportGraph()
    for module in ("alpha", "alpha.one", "beta", "beta.two", "gamma"):
        graph.add_module(module)
    graph.add_import(importer="alpha.one", imported="beta.two")
    graph.add_import(importer="beta.two", imported="gamma")
    assert circles_between(graph, ("alpha", "beta", "gamma")) == []
    graph.add_import(importer="gamma", imported="alpha")
    assert circles_between(graph, ("alpha", "beta", "gamma")) == [
        "alpha <-> beta: alpha.one -> beta.two, and back: beta.two -> gamma -> alpha",
        "alpha <-> gamma: alpha.one -> beta.two -> gamma, and back: gamma -> alpha",
    ]
