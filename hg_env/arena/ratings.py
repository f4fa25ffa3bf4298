"""Tournament statistics from a list of game results: openskill ratings, win rates, scores, tables, plot.

A *result* is one line of a tournament's ``games.jsonl`` (see hg_env.arena.tournament):
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
  ranked above B, 0.5 when tied, 0 below; with its 95% Wilson score interval
  (``hg_env.arena.evaluate.win_interval``, the one interval of every win rate
  hg_env reports, where the choice is explained).
* **Scores**: mean final score per agent, with its standard error.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from openskill.models import PlackettLuce

from hg_env.arena.evaluate import win_interval
from hg_env.tables import render_table


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
    win_low: np.ndarray  # [A, A] 95% Wilson score interval
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
    """Ratings, win-rate matrix with 95% intervals, mean scores and timing."""
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
    """[A, A] win rate of row over column (nan where they never met), its 95% interval bounds, and game counts."""
    index = {a: i for i, a in enumerate(agents)}
    n = len(agents)
    won = np.zeros((n, n))
    count = np.zeros((n, n), dtype=int)
    for r in results:
        ranks = r["ranks"]
        for s, a in enumerate(r["agents"]):
            for t, b in enumerate(r["agents"]):
                if s != t:
                    won[index[a], index[b]] += 1.0 if ranks[s] < ranks[t] else 0.5 if ranks[s] == ranks[t] else 0.0
                    count[index[a], index[b]] += 1
    rate, low, high = np.full((n, n), np.nan), np.full((n, n), np.nan), np.full((n, n), np.nan)
    for i, j in zip(*np.nonzero(count)):
        rate[i, j] = won[i, j] / count[i, j]
        low[i, j], high[i, j] = win_interval(won[i, j], count[i, j])
    return rate, low, high, count


# ---------------------------------------------------------------- output


RATINGS_CSV = (
    "rank",
    "agent",
    "games",
    "wins",
    "mu",
    "sigma",
    "ordinal",
    "mean_score",
    "score_se",
    "mean_rank",
    "errors",
)
WINRATES_CSV = ("agent", "opponent", "games", "win_rate", "ci_low", "ci_high")


def ratings_csv(summary: Summary) -> str:
    """The ratings as CSV: one number per column (the Markdown table joins some for reading)."""
    rows = [
        [
            *(k, r.agent, r.games, f"{r.wins:g}", f"{r.mu:.3f}", f"{r.sigma:.3f}", f"{r.ordinal:.3f}"),
            *(f"{r.mean_score:.2f}", f"{r.score_se:.2f}", f"{r.mean_rank:.3f}", r.errors),
        ]
        for k, r in enumerate(summary.rows, 1)
    ]
    return render_table(RATINGS_CSV, rows, style="csv")


def winrates_csv(summary: Summary) -> str:
    """Every pair of agents that met, as CSV."""
    rows = [
        [a, b, summary.pair_games[i, j]]
        + [f"{x:.4f}" for x in (summary.win_rate[i, j], summary.win_low[i, j], summary.win_high[i, j])]
        for (i, a), (j, b) in itertools.product(enumerate(summary.agents), repeat=2)
        if i != j and summary.pair_games[i, j]
    ]
    return render_table(WINRATES_CSV, rows, style="csv")


def markdown(summary: Summary, title: str = "Tournament") -> str:
    """Ratings table, pairwise win-rate matrix and time per game, as Markdown."""
    ratings = [
        [
            *(k, f"`{r.agent}`", r.games, f"{r.wins:g}", f"{r.mu:.1f} ± {r.sigma:.1f}", f"{r.ordinal:.1f}"),
            *(f"{r.mean_score:.1f} ± {r.score_se:.1f}", f"{r.mean_rank:.2f}", r.errors),
        ]
        for k, r in enumerate(summary.rows, 1)
    ]
    header = ("#", "agent", "games", "wins", "rating (mu ± sigma)", "ordinal", "mean score", "mean rank", "errors")
    order = [summary.agents.index(r.agent) for r in summary.rows]
    matrix = [[f"`{summary.agents[i]}`"] + [_pair_cell(summary, i, j) for j in order] for i in order]
    names = [f"`{summary.agents[i]}`" for i in order]
    times = [
        [f"`{a}`", f"{summary.seconds[a]:.2f}", f"{summary.cpu_seconds[a]:.2f}"]
        for a in (r.agent for r in summary.rows)
    ]
    return "\n".join(
        [
            f"## {title}",
            "",
            f"{summary.total_games} games.",
            "",
            render_table(header, ratings, align="rlrrrrrrr"),
            "Win rate of the row agent against the column agent (ties count half), 95% Wilson score interval:",
            "",
            render_table(["", *names], matrix),
            render_table(
                ["agent", "seconds deciding per game (wall clock)", "CPU seconds per game"], times, align="lrr"
            ),
        ]
    )


def _pair_cell(summary: Summary, i: int, j: int) -> str:
    if i == j or not summary.pair_games[i, j]:
        return "—"
    return (
        f"{summary.win_rate[i, j]:.3f} [{summary.win_low[i, j]:.3f}, {summary.win_high[i, j]:.3f}]"
        f" (n={summary.pair_games[i, j]})"
    )


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
