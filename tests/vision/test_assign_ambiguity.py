"""The identity margin of an assignment: how much more the best assignment that takes a track's detection
from it would cost (the tracker lowers a track's identity confidence when it is small)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.assign import INVALID, ambiguity, solve


def test_a_neighbour_near_my_detection_whose_own_fits_it_far_better_is_no_doubt() -> None:
    # track 1 could take detection 0 almost as cheaply as track 0 does, but then track 0 would have to take
    # detection 1, far worse: a swap costs 1 + 40 - 0.5 - 0.2, no identity doubt (the column margin was 0.5)
    cost = np.array([[0.5, 40.0], [1.0, 0.2]])
    pairs = solve(cost, 30.0)
    assert pairs == [(0, 0), (1, 1)]
    amb = ambiguity(cost, pairs, 30.0)
    assert amb[0] == pytest.approx(40.3) and amb[1] == pytest.approx(40.3)


def test_two_balls_crossing_are_in_doubt() -> None:
    cost = np.array([[1.0, 1.5], [1.4, 1.1]])  # either way round costs about the same
    pairs = solve(cost, 30.0)
    amb = ambiguity(cost, pairs, 30.0)
    assert amb[0] == pytest.approx(0.8) and amb[0] < 2.0


def test_an_unmatched_track_that_could_take_the_detection_is_a_doubt() -> None:
    # track 1 was left unmatched (its only candidate is detection 0, taken by track 0): if it took it, track 0
    # would go unmatched too (no free detection), so the margin is its cost against track 0's
    cost = np.array([[2.0], [3.0]])
    pairs = solve(cost, 30.0)
    assert pairs == [(0, 0)]
    assert ambiguity(cost, pairs, 30.0)[0] == pytest.approx(1.0)
    # with a free detection track 0 could move to, the alternative costs that instead of a miss
    cost = np.array([[2.0, 29.5], [3.0, INVALID]])
    pairs = solve(cost, 30.0)
    assert pairs == [(0, 0)]
    assert ambiguity(cost, pairs, 30.0)[0] == pytest.approx(3.0 - 2.0 + 29.5 - 30.0)


def test_without_a_miss_cost_the_other_tracks_cost_is_compared() -> None:
    cost = np.array([[2.0], [3.0]])
    assert ambiguity(cost, [(0, 0)])[0] == pytest.approx(1.0)
