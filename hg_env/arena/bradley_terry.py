"""Bradley–Terry ratings on the Elo scale by maximum likelihood, with anchors, a weak prior and 95% intervals.

Model: player ``i`` scores against ``j`` with probability ``1 / (1 + 10 ** ((r_j - r_i) / 400))``; a win
counts 1, a tie 1/2 (the likelihood of a tie is that of half a win and half a loss). Anchored players
keep their given ratings (the ladder fixes ``random`` = 0 and ``greedy`` = 1000); every other rating is
free and has a weak Gaussian prior (mean ``PRIOR_MEAN``, standard deviation ``PRIOR_SD``). The prior is
what keeps a one-sided pairing finite: an agent that won every game against its strongest opponent
would otherwise have a maximum-likelihood rating at infinity. At ``PRIOR_SD`` = 1000 Elo its weight is
about an eighth of one even game's, so it moves a rating only where the games say almost nothing.

The fit maximizes the log posterior by Newton's method (it is concave); the 95% intervals are
``rating ± 1.96 · sd`` from the inverse of the negative Hessian at the maximum (the Laplace
approximation), relative to the anchors (an anchor's interval is its rating).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

ELO = 400.0 / math.log(10.0)  # Elo points per unit of log-odds
PRIOR_MEAN, PRIOR_SD = 500.0, 1000.0  # between the ladder's anchors; weak (module docstring)
Z_95 = 1.959963984540054


@dataclass(frozen=True)
class Pairing:
    """``games`` between ``a`` and ``b`` in which ``a`` scored ``points`` (wins + half the ties)."""

    a: str
    b: str
    games: float
    points: float


@dataclass(frozen=True)
class Fit:
    ratings: dict[str, float]
    sd: dict[str, float]  # 0 for an anchor

    def interval(self, name: str) -> tuple[float, float]:
        half = Z_95 * self.sd[name]
        return self.ratings[name] - half, self.ratings[name] + half


def expected(r_a: float, r_b: float) -> float:
    """Expected score of a rating ``r_a`` against ``r_b``."""
    return 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / 400.0))


def fit(
    pairings: Iterable[Pairing],
    anchors: Mapping[str, float],
    players: Iterable[str] = (),
    prior_mean: float = PRIOR_MEAN,
    prior_sd: float = PRIOR_SD,
) -> Fit:
    """Ratings of every player named in ``pairings`` (and ``players``) given the ``anchors``' ratings.

    ValueError on negative games or points outside ``0..games``."""
    pairings = [p for p in pairings if p.games > 0]
    for p in pairings:
        if p.a == p.b or not 0 <= p.points <= p.games:
            raise ValueError(f"bad pairing {p}: two players, and 0 <= points <= games")
    names = list(dict.fromkeys([*anchors, *players, *(n for p in pairings for n in (p.a, p.b))]))
    free = [n for n in names if n not in anchors]
    where = {n: k for k, n in enumerate(free)}
    x = np.full(len(free), float(prior_mean))
    precision = 1.0 / prior_sd**2
    i = np.array([where.get(p.a, -1) for p in pairings], dtype=np.int64)
    j = np.array([where.get(p.b, -1) for p in pairings], dtype=np.int64)
    fixed_a = np.array([anchors.get(p.a, 0.0) for p in pairings])
    fixed_b = np.array([anchors.get(p.b, 0.0) for p in pairings])
    n = np.array([p.games for p in pairings], dtype=float)
    w = np.array([p.points for p in pairings], dtype=float)

    def rating(idx: np.ndarray, fixed: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.where(idx >= 0, x[np.maximum(idx, 0)] if len(x) else 0.0, fixed)

    def posterior(x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        d = (rating(i, fixed_a, x) - rating(j, fixed_b, x)) / ELO  # log-odds of a over b
        log_p, log_q = -np.logaddexp(0.0, -d), -np.logaddexp(0.0, d)
        value = float(np.sum(w * log_p + (n - w) * log_q) - 0.5 * precision * np.sum((x - prior_mean) ** 2))
        p = np.exp(log_p)
        resid = (w - n * p) / ELO  # d value / d r_a of each pairing
        curv = n * p * (1.0 - p) / ELO**2  # - d2 value / d r_a2
        grad = -precision * (x - prior_mean)
        hess = np.diag(np.full(len(x), precision))  # the negative Hessian
        for side, sign in ((i, 1.0), (j, -1.0)):
            m = side >= 0
            np.add.at(grad, side[m], sign * resid[m])
            np.add.at(hess, (side[m], side[m]), curv[m])
        both = (i >= 0) & (j >= 0)
        np.add.at(hess, (i[both], j[both]), -curv[both])
        np.add.at(hess, (j[both], i[both]), -curv[both])
        return value, grad, hess

    value, grad, hess = posterior(x)
    for _ in range(100):
        step = np.linalg.solve(hess, grad) if len(x) else x
        scale = 1.0
        while True:  # step halving keeps every iteration an ascent
            trial = x + scale * step
            new_value, new_grad, new_hess = posterior(trial)
            if new_value >= value - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        x, value, grad, hess = trial, new_value, new_grad, new_hess
        if not len(x) or np.max(np.abs(scale * step)) < 1e-6:
            break
    cov = np.linalg.inv(hess) if len(x) else hess
    ratings = {n: float(anchors[n]) if n in anchors else float(x[where[n]]) for n in names}
    sd = {n: 0.0 if n in anchors else float(math.sqrt(cov[where[n], where[n]])) for n in names}
    return Fit(ratings, sd)
