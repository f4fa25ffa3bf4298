"""Agents: the protocol (agents.base), random, greedy, search (MCTS) and trained policies."""

from agents.base import Agent, RandomAgent, make_agent, parse_spec, register

__all__ = ["Agent", "RandomAgent", "make_agent", "parse_spec", "register"]
