"""The quick-game pool: who is paired with whom, the widening range, and safety under races."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import Match, PoolEntry, Rating, Seat
from games.services import ServiceError, pairing
from tests.support.players import make_accounts, make_players, run_at_once

pytestmark = pytest.mark.django_db(transaction=True)
RATED = MatchSettings("quarto-misere", rated=True)


def enter(user, settings=RATED):
    return services.pool_enter(user=user, settings=settings, channel_name=f"page-{user.pk}")


def test_the_range_widens_with_waiting_then_takes_anyone():
    assert pairing.rating_range(0) == pairing.RANGE_START
    assert pairing.rating_range(10) == pairing.RANGE_START + 10 * pairing.RANGE_PER_SECOND
    assert pairing.rating_range(pairing.RANGE_ANYONE_AFTER) is None


def test_far_apart_ratings_wait_until_both_ranges_reach():
    strong, new = make_accounts(2)
    Rating.objects.create(player=strong, game=RATED.game, mu=37.0, sigma=2.0, games=40)  # shown 2004
    assert enter(strong) is None and enter(new) is None
    assert services.pool_pair(user=new, channel_name=f"page-{new.pk}") is None
    # Waited 20 s each: ranges of 500, still short of the 504-point gap.
    PoolEntry.objects.update(created_at=timezone.now() - timedelta(seconds=20))
    assert services.pool_pair(user=new, channel_name=f"page-{new.pk}") is None
    PoolEntry.objects.update(created_at=timezone.now() - timedelta(seconds=pairing.RANGE_ANYONE_AFTER))
    match = services.pool_pair(user=new, channel_name=f"page-{new.pk}")
    assert match is not None and match.rated
    assert not PoolEntry.objects.exists()
    with pytest.raises(ServiceError) as info:
        services.pool_pair(user=new, channel_name=f"page-{new.pk}")
    assert info.value.code == "not_waiting"


def test_the_longest_waiting_compatible_player_is_chosen():
    first, second, newcomer = make_accounts(3)
    for player, mu in ((first, 25 - 90 / 42), (second, 25 + 90 / 42)):  # shown 1410 and 1590: too far apart
        Rating.objects.create(player=player, game=RATED.game, mu=mu, sigma=2.0, games=40)
    assert enter(first) is None and enter(second) is None
    PoolEntry.objects.filter(player=second).update(created_at=timezone.now() - timedelta(seconds=5))
    match = enter(newcomer)
    assert set(match.seats.values_list("player_id", flat=True)) == {second.pk, newcomer.pk}
    assert list(PoolEntry.objects.values_list("player_id", flat=True)) == [first.pk]


def test_a_page_that_stopped_asking_is_skipped():
    gone, newcomer = make_accounts(2)
    enter(gone)
    PoolEntry.objects.update(seen_at=timezone.now() - timedelta(seconds=pairing.STALE_SECONDS + 1))
    assert enter(newcomer) is None  # not paired with a page whose server stopped
    assert PoolEntry.objects.count() == 2


def test_an_entry_of_rules_the_site_no_longer_has_ends_its_search_saying_why_and_the_pool_goes_on(monkeypatch):
    """Its rule set removed since it was stored (or its row damaged): the page's next retry
    deletes the entry and tells the page why (``site.unpooled`` with the reason); the other
    players pair as before. Before, the retry raised ``unknown_game``, which the waiting page
    took for a search that ended elsewhere: it stopped asking, unanswered, still shown as
    waiting, its entry left in the pool."""
    stranded, ada, bob = make_accounts(3)
    told = []
    monkeypatch.setattr(pairing.broadcast, "player_notify_on_commit", lambda user_id, message: told.append(message))
    assert enter(stranded) is None
    PoolEntry.objects.filter(player=stranded).update(settings={**RATED.to_json(), "game": "gone-rules"})
    assert services.pool_pair(user=stranded, channel_name=f"page-{stranded.pk}") is None
    assert not PoolEntry.objects.exists()
    assert told == [{"type": "site.unpooled", "channel": f"page-{stranded.pk}", "code": "unknown_game",
                     "message": "Your quick-game search ended. There is no game called 'gone-rules'. Choose a game "
                                "and search again."}]
    assert enter(ada) is None
    assert enter(bob) is not None


def test_time_controls_wait_apart_and_the_match_keeps_its_clock():
    a, b, c = make_accounts(3)
    blitz = MatchSettings("quarto-misere", time_control=TimeControl(base=180, increment=2))
    assert enter(a, blitz) is None
    assert enter(b, MatchSettings("quarto-misere")) is None  # untimed: another pool
    match = enter(c, blitz)
    assert set(match.seats.values_list("player_id", flat=True)) == {a.pk, c.pk}
    assert (match.clock_base, match.clock_increment, match.clock is not None) == (180, 2, True)


def test_guests_wait_for_casual_games_only():
    guest, member = make_players(1)[0], make_accounts(1)[0]
    with pytest.raises(ServiceError) as info:
        enter(guest)
    assert info.value.code == "rated_needs_accounts"
    casual = MatchSettings("quarto-misere")
    assert enter(guest, casual) is None
    match = enter(member, casual)
    assert not match.rated and match.status == Match.Status.ACTIVE


def test_players_entering_at_once_are_each_paired_at_most_once():
    players = make_accounts(9)
    outcomes = run_at_once([lambda user=user: enter(user, MatchSettings("quarto-misere")) for user in players])
    assert outcomes == ["ok"] * len(players)
    # Entries made at the same moment cannot see each other (neither has committed): the
    # waiting pages ask again a moment later, as here.
    for entry in PoolEntry.objects.select_related("player"):
        if PoolEntry.objects.filter(pk=entry.pk).exists():
            services.pool_pair(user=entry.player, channel_name=entry.channel_name)
    seated = list(Seat.objects.values_list("player_id", flat=True))
    waiting = list(PoolEntry.objects.values_list("player_id", flat=True))
    assert len(seated) == len(set(seated)), "a player was paired twice"
    assert sorted(seated + waiting) == sorted(p.pk for p in players)
    assert Match.objects.count() == len(seated) // 2 and len(waiting) == 1


def test_two_pages_of_one_player_entering_at_once_leave_one_search():
    """The later search replaces the earlier; without the player's row lock the second insert
    broke the one-entry-per-player key (an IntegrityError, every time on PostgreSQL)."""
    ada, = make_accounts(1)
    for _ in range(5):
        outcomes = run_at_once([lambda page=page: services.pool_enter(user=ada, settings=RATED, channel_name=page)
                                for page in ("page-1", "page-2")])
        assert outcomes == ["ok", "ok"]
        assert PoolEntry.objects.filter(player=ada).count() == 1


def test_challenges_sent_at_once_keep_one_per_opponent_and_the_cap():
    """Without the challenger's row lock, two tabs challenging one player both got through
    (each then a match of its own), and eight at once passed the cap of five."""
    from games.models import Challenge
    from games.services import challenges

    ada, bob, *others = make_accounts(2 + 8)
    casual = MatchSettings("quarto-misere")
    outcomes = run_at_once([lambda: services.challenge_create(user=ada, to_id=bob.pk, settings=casual)] * 3)
    assert sorted(outcomes) == ["already_challenged", "already_challenged", "ok"]
    Challenge.objects.all().delete()
    outcomes = run_at_once([lambda to=to: services.challenge_create(user=ada, to_id=to.pk, settings=casual)
                            for to in others])
    assert sorted(outcomes) == ["ok"] * challenges.MAX_OPEN + ["too_many_challenges"] * (8 - challenges.MAX_OPEN)
    assert Challenge.objects.filter(challenger=ada, status=Challenge.Status.PENDING).count() == challenges.MAX_OPEN
