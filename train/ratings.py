"""Tournament statistics from a list of game results: openskill ratings, win rates, scores, tables, plot.

A *result* is one line of a tournament's ``games.jsonl`` (see hg_env.train.tournament):
at least ``index`` (its place in the schedule), ``table``, ``deck``, ``agents``
(spec per seat), ``scores`` and ``ranks`` (1 = first, ties share a rank), and
optionally ``error``, ``agent_seconds`` and ``agent_cpu_seconds`` (time spent
deciding: wall clock, and CPU time, which does not grow when the machine is shared).

Everything here is a pure function of the results taken in schedule order, so
the same finished games give the same tables whatever order they finished in
(resumed and parallel runs agree with an uninterrupted one).

* **Ratings**: openskill's Plackett-Luce model, one update per game, in
  schedule order; reported as ``mu``, ``sigma`` and the conservative
  ``ordinal = mu - 3 sigma``, which orders the table.
* **Pairwise win rate** of A over B: over the games where both sat, 1 when A
  ranked above B, 0.5 when tied, 0 below. 95% confidence intervals by a seeded
  bootstrap over *matches* (a table and deck, i.e. one deck order replayed with
  every seating), since games sharing a deck are not independent.
* **Scores**: mean final score per agent, with its standard error.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from openskill.models import PlackettLuce

BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 12345


@dataclass
class AgentRow:
    """One line of the ratings table."""

    agent: str
    games: int
    wins: float  # first places, shared first places counted as 1 / (number sharing)
    mu: float
    sigma: float
    ordinal: float
    mean_score: float
    score_se: float
    mean_rank: float
    errors: int


@dataclass
class Summary:
    rows: list[AgentRow]  # best ordinal first
    agents: list[str]  # in the order the tournament lists them
    win_rate: np.ndarray  # [A, A] row agent over column agent, nan where they never met
    win_low: np.ndarray  # [A, A] 95% bootstrap interval
    win_high: np.ndarray
    pair_games: np.ndarray  # [A, A] games the two played together
    seconds: dict[str, float]  # mean wall-clock seconds an agent spent deciding per game
    cpu_seconds: dict[str, float]  # the same in CPU seconds
    total_games: int


def ranks_from_scores(scores: Sequence[float], loser: int | None = None) -> list[int]:
    """Competition ranks (1 = best, ties share); ``loser`` (a seat that crashed) ranks last alone."""
    scores = np.asarray(scores, dtype=np.float64)
    if loser is not None:
        scores = scores.copy()
        scores[loser] = -np.inf
    return [1 + int((scores > s).sum()) for s in scores]


def summarize(results: list[dict], agents: Sequence[str]) -> Summary:
    """Ratings, win-rate matrix with bootstrap intervals, mean scores and timing."""
    agents = list(agents)
    index = {a: i for i, a in enumerate(agents)}
    results = sorted(results, key=lambda r: r["index"])
    n = len(agents)

    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in agents}
    for r in results:
        teams = [[ratings[a]] for a in r["agents"]]
        new = model.rate(teams, ranks=list(r["ranks"]))
        for a, team in zip(r["agents"], new):
            ratings[a] = team[0]

    scores: dict[str, list[float]] = {a: [] for a in agents}
    rank_sum = np.zeros(n)
    wins = np.zeros(n)
    errors = np.zeros(n, dtype=int)
    seconds, cpu = np.zeros(n), np.zeros(n)
    for r in results:
        ranks = np.asarray(r["ranks"])
        first = ranks == 1
        for seat, a in enumerate(r["agents"]):
            i = index[a]
            scores[a].append(r["scores"][seat])
            rank_sum[i] += ranks[seat]
            wins[i] += first[seat] / first.sum()
            seconds[i] += (r.get("agent_seconds") or [0.0] * len(ranks))[seat]
            cpu[i] += (r.get("agent_cpu_seconds") or [0.0] * len(ranks))[seat]
        err = r.get("error")
        if err:
            errors[index[r["agents"][err["seat"]]]] += 1

    rows = []
    for a in agents:
        i, s = index[a], np.asarray(scores[a], dtype=np.float64)
        played = len(s)
        rows.append(
            AgentRow(
                agent=a,
                games=played,
                wins=float(wins[i]),
                mu=float(ratings[a].mu),
                sigma=float(ratings[a].sigma),
                ordinal=float(ratings[a].ordinal()),
                mean_score=float(s.mean()) if played else float("nan"),
                score_se=float(s.std(ddof=1) / np.sqrt(played)) if played > 1 else float("nan"),
                mean_rank=float(rank_sum[i] / played) if played else float("nan"),
                errors=int(errors[i]),
            )
        )
    rows.sort(key=lambda row: (-row.ordinal, row.agent))

    rate, low, high, count = pairwise_win_rates(results, agents)
    played = {row.agent: row.games for row in rows}
    per_game = {a: float(seconds[index[a]] / played[a]) if played[a] else float("nan") for a in agents}
    cpu_per_game = {a: float(cpu[index[a]] / played[a]) if played[a] else float("nan") for a in agents}
    return Summary(rows, agents, rate, low, high, count, per_game, cpu_per_game, len(results))


def pairwise_win_rates(results: list[dict], agents: Sequence[str]) -> tuple[np.ndarray, ...]:
    """[A, A] win rate of row over column, 95% bootstrap bounds over matches, and game counts."""
    index = {a: i for i, a in enumerate(agents)}
    n = len(agents)
    matches: dict[tuple, int] = {}
    points = []  # per game: (match number, row agent, column agent, points of row)
    for r in results:
        m = matches.setdefault((r["table"], r["deck"]), len(matches))
        ranks = r["ranks"]
        for s, a in enumerate(r["agents"]):
            for t, b in enumerate(r["agents"]):
                if s != t:
                    p = 1.0 if ranks[s] < ranks[t] else 0.5 if ranks[s] == ranks[t] else 0.0
                    points.append((m, index[a], index[b], p))
    rate = np.full((n, n), np.nan)
    low, high = rate.copy(), rate.copy()
    count = np.zeros((n, n), dtype=int)
    if not points:
        return rate, low, high, count
    arr = np.array(points)
    match, row, col, pts = arr[:, 0].astype(int), arr[:, 1].astype(int), arr[:, 2].astype(int), arr[:, 3]
    cell = row * n + col
    # Per match and cell: points won and games played; a bootstrap sample redraws whole matches.
    num_matches = len(matches)
    won = np.zeros((num_matches, n * n))
    games = np.zeros((num_matches, n * n))
    np.add.at(won, (match, cell), pts)
    np.add.at(games, (match, cell), 1.0)
    total_won, total_games = won.sum(0), games.sum(0)
    met = np.flatnonzero(total_games > 0)
    rate = np.full(n * n, np.nan)
    low, high = rate.copy(), rate.copy()
    rate[met] = total_won[met] / total_games[met]
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    weights = np.zeros((BOOTSTRAP_SAMPLES, num_matches))
    pick = rng.integers(0, num_matches, size=(BOOTSTRAP_SAMPLES, num_matches))
    np.add.at(weights, (np.arange(BOOTSTRAP_SAMPLES)[:, None], pick), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        samples = (weights @ won[:, met]) / (weights @ games[:, met])  # [samples, cells met]
    # A resample may hold no game of a pair (nan): percentiles over the others.
    low[met] = np.nanpercentile(samples, 2.5, axis=0)
    high[met] = np.nanpercentile(samples, 97.5, axis=0)
    count = total_games.reshape(n, n).astype(int)
    return rate.reshape(n, n), low.reshape(n, n), high.reshape(n, n), count


# ---------------------------------------------------------------- output


def ratings_csv(summary: Summary) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(
        ["rank", "agent", "games", "wins", "mu", "sigma", "ordinal", "mean_score", "score_se", "mean_rank", "errors"]
    )
    for k, r in enumerate(summary.rows, 1):
        numbers = (r.mu, r.sigma, r.ordinal, r.mean_score, r.score_se, r.mean_rank)
        formats = (".3f", ".3f", ".3f", ".2f", ".2f", ".3f")
        w.writerow([k, r.agent, r.games, f"{r.wins:g}", *(format(x, f) for x, f in zip(numbers, formats)), r.errors])
    return out.getvalue()


def winrates_csv(summary: Summary) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["agent", "opponent", "games", "win_rate", "ci_low", "ci_high"])
    n = len(summary.agents)
    for i in range(n):
        for j in range(n):
            if i != j and summary.pair_games[i, j]:
                w.writerow(
                    [summary.agents[i], summary.agents[j], summary.pair_games[i, j]]
                    + [f"{x:.4f}" for x in (summary.win_rate[i, j], summary.win_low[i, j], summary.win_high[i, j])]
                )
    return out.getvalue()


def markdown(summary: Summary, title: str = "Tournament") -> str:
    """Ratings table, pairwise win-rate matrix and time per game, as Markdown."""
    lines = [f"## {title}", "", f"{summary.total_games} games.", ""]
    lines += [
        "| # | agent | games | wins | rating (mu ± sigma) | ordinal | mean score | mean rank | errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k, r in enumerate(summary.rows, 1):
        lines.append(
            f"| {k} | `{r.agent}` | {r.games} | {r.wins:g} | {r.mu:.1f} ± {r.sigma:.1f} | {r.ordinal:.1f} "
            f"| {r.mean_score:.1f} ± {r.score_se:.1f} | {r.mean_rank:.2f} | {r.errors} |"
        )
    names = [r.agent for r in summary.rows]
    order = [summary.agents.index(a) for a in names]
    lines += ["", "Win rate of the row agent against the column agent (ties count half), 95% bootstrap interval:", ""]
    lines.append("| | " + " | ".join(f"`{a}`" for a in names) + " |")
    lines.append("|---|" + "---|" * len(names))
    for i in order:
        cells = []
        for j in order:
            if i == j or not summary.pair_games[i, j]:
                cells.append("—")
            else:
                cells.append(
                    f"{summary.win_rate[i, j]:.3f} [{summary.win_low[i, j]:.3f}, {summary.win_high[i, j]:.3f}]"
                    f" (n={summary.pair_games[i, j]})"
                )
        lines.append(f"| `{summary.agents[i]}` | " + " | ".join(cells) + " |")
    lines += ["", "| agent | seconds deciding per game (wall clock) | CPU seconds per game |", "|---|---:|---:|"]
    lines += [f"| `{a}` | {summary.seconds[a]:.2f} | {summary.cpu_seconds[a]:.2f} |" for a in names]
    return "\n".join(lines) + "\n"


def plot(summary: Summary, path: str) -> None:
    """PNG of the ratings (mu with ± 3 sigma error bars), best first."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary.rows
    fig, ax = plt.subplots(figsize=(1.6 + 1.2 * len(rows), 3.6), dpi=120)
    x = np.arange(len(rows))
    ax.errorbar(x, [r.mu for r in rows], yerr=[3 * r.sigma for r in rows], fmt="o", capsize=5, color="tab:blue")
    ax.set_xticks(x, [r.agent for r in rows], rotation=20, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.set_ylabel("openskill rating (mu ± 3 sigma)")
    ax.set_title(f"Plackett-Luce ratings, {summary.total_games} games", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
