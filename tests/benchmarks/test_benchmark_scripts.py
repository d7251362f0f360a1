"""The benchmark scripts still run against today's code (a change of the computer's levels once
broke benchmarks/analysis.py unnoticed): each, on the smallest input, prints its table."""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_analysis_benchmark_prints_a_row_per_rule_set():
    out = run("benchmarks/analysis.py", "--matches", "1", "--rounds", "10", "--slugs", "quarto-misere")
    row = next(line for line in out.splitlines() if line.startswith("| quarto-misere |"))
    assert int(row.split("|")[2]) > 0  # positions in the match


def test_the_strength_benchmark_plays_its_games():
    out = run("benchmarks/strength.py", "--mode", "ladder", "--games", "2", "--seconds", "0.01",
              "--slugs", "tictactoe-3player", "--levels", "1,2")
    row = next(line for line in out.splitlines() if line.startswith("| tictactoe-3player |")).split("|")
    won, drawn, lost = (int(cell) for cell in row[5:8])
    assert won + drawn + lost == 2
    points = float(row[10].split()[0])
    assert won / 2 <= points <= (won + drawn / 2) / 2  # a shared first place is worth a half or a third
    assert row[11].strip() == "0.33"  # a fair share of three


def test_the_ladder_measures_a_changed_expert_against_the_level_below():
    out = run("benchmarks/strength.py", "--mode", "ladder", "--games", "1", "--seconds", "0.01",
              "--slugs", "quarto-misere", "--set", "contempt=0")
    assert "| quarto-misere | expert with contempt=0 | level 3 | 1 |" in out


def test_points_a_game_have_their_mean_and_a_normal_interval():
    from benchmarks.strength import mean_interval
    assert mean_interval([1.0]) == (1.0, 0.0)
    mean, half = mean_interval([0.0, 1.0, 0.5, 0.5])
    assert mean == 0.5
    assert abs(half - 1.96 * (1 / 6) ** 0.5 / 2) < 1e-12


def test_the_strength_benchmark_counts_rounds_a_second_and_plays_a_changed_expert():
    out = run("benchmarks/strength.py", "--mode", "rounds", "--games", "1", "--seconds", "0.02",
              "--slugs", "quarto-misere")
    row = next(line for line in out.splitlines() if line.startswith("| quarto-misere |"))
    assert all(int(cell.replace(",", "")) > 0 for cell in row.split("|")[2:8])  # the compiled search's too
    out = run("benchmarks/strength.py", "--mode", "rounds", "--games", "1", "--seconds", "0.02",
              "--slugs", "nine-board-tictactoe")
    row = next(line for line in out.splitlines() if line.startswith("| nine-board-tictactoe |"))
    assert [cell.strip() for cell in row.split("|")[6:8]] == ["", ""]  # no compiled search there
    out = run("benchmarks/strength.py", "--mode", "uct", "--games", "1", "--first", "2", "--seconds", "0.01",
              "--slugs", "tictactoe-3player", "--set", "rank=0,bias=1.5,contempt=10,practical=0")
    assert "| tictactoe-3player | expert with rank=0,bias=1.5,contempt=10,practical=0 | plain UCT | 1 |" in out
    done = subprocess.run([sys.executable, "benchmarks/strength.py", "--mode", "uct", "--games", "2", "--seconds",
                           "0.01", "--seat", "oplayer", "--slugs", "tictactoe-3player", "--set", "score_seats=1+2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "| tictactoe-3player | expert with score_seats=1+2 | plain UCT | 2 |" in done.stdout
    seats = [line.split(" as ")[1].split(")")[0] for line in done.stderr.splitlines() if " as " in line]
    assert seats == ["oplayer", "oplayer"]  # games 1 and 4: the ones in that seat


def test_the_strength_benchmark_gives_the_measured_side_its_own_thinking_time():
    out = run("benchmarks/strength.py", "--mode", "uct", "--games", "1", "--seconds", "0.01", "--side-seconds", "0.1",
              "--slugs", "nine-board-tictactoe")
    medians = {cells[0]: int(cells[2]) for cells in
               ([cell.strip() for cell in line.split("|")[1:-1]] for line in out.splitlines())
               if len(cells) == 5 and cells[0] in ("level 4", "plain UCT")}
    # A clock can only stretch a think, never shorten it: the measured side's 0.1 s holds under any load.
    assert medians["level 4"] >= 90 and medians["plain UCT"] < medians["level 4"]


def test_the_strength_benchmark_keeps_the_measured_sides_time_to_the_opening_when_asked():
    from benchmarks.strength import opening_only
    from games.rules import get_game

    game, calls = get_game("quarto-misere-classic"), []
    player = opening_only(lambda g, state, rng: calls.append(("opening", state.ply)) or "a",
                          lambda g, state, rng: calls.append(("later", state.ply)) or "b", plies=4)
    state = game.initial_state()
    for _ in range(6):
        player(game, state, None)
        state = game.play(state, game.to_move(state), game.legal_actions(state)[0])
    assert calls == [("opening", 0), ("opening", 1), ("opening", 2), ("opening", 3), ("later", 4), ("later", 5)]
    out = run("benchmarks/strength.py", "--mode", "uct", "--games", "1", "--seconds", "0.01", "--side-seconds", "0.02",
              "--side-plies", "6", "--slugs", "quarto-misere")
    assert "(0.02 s for the measured side in uct mode before ply 6)" in out


def test_the_strength_benchmark_times_the_exact_endgame_searches():
    out = run("benchmarks/strength.py", "--mode", "endgame", "--games", "2", "--seconds", "0.05",
              "--slugs", "quarto-misere,nine-board-tictactoe")
    rows = [line.split("|")[1:-1] for line in out.splitlines() if line.startswith("| quarto-misere |")]
    assert [int(row[1]) for row in rows] == [6, 7, 8, 9]  # nine-board has no search of its own: no row
    assert all(float(row[5]) > 0 for row in rows) and all(row[3].strip() == "" for row in rows[2:])
    assert all(float(row[8]) > 0 and 0 <= int(row[10]) <= 2 for row in rows)  # the compiled search's


def test_the_forced_wins_benchmark_finds_a_win_in_each_position_given_time():
    """Each recorded position holds a forced win (the script checks it by exact search), and the
    expert with the win search and ample time finds it for its one seed."""
    out = run("benchmarks/forced_wins.py", "--set", "win_share=0.9", "--seeds", "1", "--seconds", "30")
    rows = [line for line in out.splitlines() if line.startswith("game ")]
    assert len(rows) == 6 and all(row.endswith("found 1 of 1") for row in rows)
    assert "found 6 of 6" in out


def test_the_form_bodies_benchmark_times_a_hostile_post_beside_gets():
    out = run("benchmarks/form_bodies.py", "--repeats", "1")
    assert "HTTP/1.1 403 Forbidden: POST answered in" in out and "median: POST" in out


def test_the_uct_model_benchmark_records_the_plain_uct_and_fits_the_models_weights(tmp_path):
    record = tmp_path / "moves.jsonl"
    run("benchmarks/uct_model.py", "collect", "--games", "2", "--rounds", "30", "--seed", "4", "--out", str(record))
    moves = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(moves) >= 2 * 8 and all(set(move) == {"masks", "ply", "cell"} for move in moves)
    out = run("benchmarks/uct_model.py", "fit", str(record), "--steps", "5")
    weights = next(line for line in out.splitlines() if line.startswith("MODEL_WEIGHTS = ("))
    assert len(weights.split(",")) == 11 and "the likeliest cell played" in out


def test_the_strength_benchmark_spreads_the_measured_sides_time_by_the_ply_and_prints_each_games_thinking():
    from benchmarks.strength import scheduled
    from games.rules import get_game

    game, calls = get_game("quarto-misere-classic"), []
    player = scheduled(lambda seconds: lambda g, state, rng: calls.append((state.ply, seconds)) or "a", "4:2.5,0:0.5")
    state = game.initial_state()
    for _ in range(6):
        player(game, state, None)
        state = game.play(state, game.to_move(state), game.legal_actions(state)[0])
    assert calls == [(0, 0.5), (1, 0.5), (2, 0.5), (3, 0.5), (4, 2.5), (5, 2.5)]
    done = subprocess.run([sys.executable, "benchmarks/strength.py", "--mode", "uct", "--games", "1", "--seconds",
                           "0.01", "--side-schedule", "0:0.01,9:0.02", "--slugs", "quarto-misere"],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    spent = re.search(r"thought ([0-9.]+) s against ([0-9.]+) s", done.stderr)
    assert spent is not None and float(spent.group(1)) > 0 and float(spent.group(2)) > 0


def test_the_history_search_benchmark_prints_a_row_per_search():
    out = run("benchmarks/history_search.py", "--matches", "300", "--players", "40", "--searches", "3")
    rows = [line.split("|") for line in out.splitlines() if line.startswith("| ") and line[2:5] not in ("sea", "---")]
    assert len(rows) == 9, out
    assert all(float(row[2]) > 0 and float(row[3]) >= float(row[2]) for row in rows)
    assert int(rows[0][4]) > 0  # the first page finds the matches built


def test_the_arena_wave_benchmark_pairs_a_pool():
    out = run("benchmarks/arena_waves.py", "--runs", "1", "--sizes", "20")
    row = next(line for line in out.splitlines() if line.startswith("| 20 |")).split("|")
    assert 0 < int(row[2]) <= 10


def test_the_swiss_rounds_benchmark_pairs_a_round_of_a_tournament_under_way():
    out = run("benchmarks/swiss_rounds.py", "--runs", "1", "--sizes", "11", "--round", "3", "--rounds", "4")
    row = next(line for line in out.splitlines() if line.startswith("| 11 |")).split("|")
    assert int(row[2]) == 5  # and the bye


def test_the_standings_push_benchmark_reaches_every_watching_socket_with_each_change():
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    done = subprocess.run([sys.executable, "benchmarks/standings_push.py", "--watchers", "4", "--changes", "2",
                           "--json"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.splitlines()[-1])
    assert (figures["watchers"], len(figures["last_ms"])) == (4, 2)
    assert 0 < figures["each_p50_ms"] <= figures["last_p99_ms"]


def test_the_pages_benchmark_prints_a_row_per_page_and_language():
    out = run("benchmarks/pages.py", "--requests", "2")
    rows = [line.split() for line in out.splitlines() if re.search(r"\s(en|de|fr|es)\s+\d", line)]
    assert {row[-3] for row in rows} == {"en", "de", "fr", "es"}
    assert len(rows) == 6 * 4 and all(float(row[-2]) > 0 for row in rows)
