"""Agents: the protocol (hg_env.agents.base), random, greedy, search (MCTS) and trained policies."""

from hg_env.agents.base import Agent, FunctionAgent, RandomAgent, make_agent, parse_spec, register

__all__ = ["Agent", "FunctionAgent", "RandomAgent", "make_agent", "parse_spec", "register"]
