"""How a page's vector side pools its windows (`fusion.blend`, issue 20, seventh pass): the best window's
share shrinks as the page has more windows, and what the page is about as a whole (its centroid and its lead)
takes that share, so a long guide's one window near the question does not outrank a shorter page that is
about the question."""

from __future__ import annotations

import pytest

from stigmergy.index import fusion

LONG, SHORT, FLOOR = 1, 2, 3


def _blend(lengths: dict[int, int]) -> dict[int, float]:
    # Vector cosines: the long page's best window is the nearest (normalised 1.0), the short page's 0.825, the
    # floor page's the arm's floor (0). Centroid and lead: the short page's are the best (1.0), the long
    # page's 0.9, the floor page's 0.
    vector = [(10, LONG, 0.9), (20, SHORT, 0.83), (30, FLOOR, 0.5)]
    cosines = {LONG: (0.56, 0.56, lengths[LONG]), SHORT: (0.6, 0.6, lengths[SHORT]),
               FLOOR: (0.2, 0.2, lengths[FLOOR])}
    return fusion.blend(None, vector, {}, 50, 1.0, page_cosines=cosines).pages


def test_a_long_pages_best_window_counts_less_than_a_short_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    lengths = {LONG: 400, SHORT: 8, FLOOR: 4}
    now = _blend(lengths)
    assert now[SHORT] > now[LONG], now
    # Without the decay (fixed shares 0.4 : 0.3 : 0.3 at any length) the long page's best window wins.
    monkeypatch.setattr(fusion, "BEST_WINDOW_DECAY", 0.0)
    before = _blend(lengths)
    assert before[LONG] > before[SHORT], before


def test_pages_of_a_few_windows_keep_the_fixed_shares() -> None:
    # At DESCRIBE_MIN_FRAGMENTS windows (the shortest page the blend describes) the shares are exactly
    # 1 - CENTROID - LEAD : CENTROID : LEAD, whatever the decay.
    n = fusion.DESCRIBE_MIN_FRAGMENTS
    got = _blend({LONG: n, SHORT: n, FLOOR: n})
    best = 1.0 - fusion.CENTROID - fusion.LEAD
    assert got[LONG] == pytest.approx(best * 1.0 + fusion.CENTROID * 0.9 + fusion.LEAD * 0.9)
    assert got[SHORT] == pytest.approx(best * 0.825 + fusion.CENTROID * 1.0 + fusion.LEAD * 1.0)
    assert got[FLOOR] == pytest.approx(0.0)


def test_the_shares_always_sum_to_one() -> None:
    # A page whose best window, centroid and lead are all at the top scores the whole scale at any length.
    for n in (4, 9, 40, 400, 40_000):
        vector = [(10, LONG, 0.9), (30, FLOOR, 0.5)]
        got = fusion.blend(None, vector, {}, 50, 1.0,
                           page_cosines={LONG: (0.6, 0.6, n), FLOOR: (0.2, 0.2, 4)}).pages
        assert got[LONG] == pytest.approx(1.0), n
