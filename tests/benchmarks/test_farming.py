"""benchmarks/farming.py, in its quick mode against a live Daphne: it still runs, and what it
shows is the pair limit at work (one result between the two accounts counts a day)."""

import json
import subprocess
import sys

import pytest

from games.match import ratings
from games.models import Rating
from tests.support.live import ROOT, live_server

pytestmark = pytest.mark.django_db(transaction=True)
SCRIPT = str(ROOT / "benchmarks" / "farming.py")


def test_the_script_explains_itself():
    out = subprocess.run([sys.executable, SCRIPT, "--help"], capture_output=True, text=True, timeout=60, check=True)
    assert "--url" in out.stdout and "--quick" in out.stdout and "resign0" in out.stdout


def test_farming_from_outside_lifts_the_main_account_by_one_result_at_most():
    # A first move has 5 s here instead of 30: the two flag0 matches wait for their abort.
    with live_server(env={"FIRST_MOVE_SECONDS": "5"}) as server:
        out = subprocess.run([sys.executable, SCRIPT, "--quick", "--json", "--url", server.url],
                             capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    kinds = result["kinds"]
    assert list(kinds) == ["resign0", "resign2", "flag0", "draws"]
    assert all(sum(k["ended"].values()) == k["matches"] == 2 for k in kinds.values())
    # a match that never began (nobody, or not everybody, moved) is aborted: not rated
    assert kinds["resign0"]["ended"] == kinds["flag0"]["ended"] == {"aborted": 2}
    # Every finished result either counted or says it hit the pair limit; aborted ones do neither.
    assert all(k["ended"].get("finished", 0) == k["counted"] + k["pair_limited"] for k in kinds.values())
    assert sum(k["counted"] for k in kinds.values()) <= ratings.PAIR_RESULTS_PER_DAY
    ladder = list(kinds.values())
    assert ladder[0]["before"] == ratings.SHOWN_BASE
    assert all(later["before"] == earlier["after"] for earlier, later in zip(ladder, ladder[1:]))
    main = Rating.objects.filter(player__username=result["main"], game=result["game"]).first()
    counted = sum(k["counted"] for k in kinds.values())
    assert (main.games if main else 0) == counted
    assert (ratings.shown(main.mu) if main else ratings.SHOWN_BASE) == ladder[-1]["after"]
