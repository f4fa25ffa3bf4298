"""Ruleset hooks (``hg_env.core.hooks``): every hook of every ruleset is a function with the hook's
written signature, and the engine never asks whether a ruleset has one."""

from __future__ import annotations

import inspect
import re
import typing
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import hg_env
from hg_env.core import hooks
from hg_env.core.rules import Rules
from hg_env.core.ruleset import RULESETS, Decision, Ruleset, get_ruleset

PROTOCOLS = {
    name: value
    for name, value in vars(hooks).items()
    if isinstance(value, type) and issubclass(value, typing.Protocol) and value is not typing.Protocol
}


def hook_fields(cls: type = Ruleset) -> dict[str, type]:
    """{field of ``cls``: its hook Protocol} for the fields typed with one."""
    return {f.name: PROTOCOLS[f.type.removeprefix("hooks.")] for f in fields(cls) if f.type.startswith("hooks.")}


def test_every_protocol_types_a_ruleset_or_decision_field():
    assert set(hook_fields().values()) | set(hook_fields(Decision).values()) == set(PROTOCOLS.values())


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_declared_decision_is_made_of_functions_of_the_protocols_signatures(ruleset):
    for decision in get_ruleset(ruleset).decisions:
        for name, protocol in hook_fields(Decision).items():
            hook = getattr(decision, name)
            wanted = list(inspect.signature(protocol.__call__).parameters)[1:]  # without self
            assert len(inspect.signature(hook).parameters) == len(wanted), (ruleset, decision.name, name)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_hook_is_a_function_of_its_protocols_signature(ruleset):
    spec = get_ruleset(ruleset)
    for name, protocol in hook_fields().items():
        hook = getattr(spec, name)
        assert callable(hook), f"{ruleset}.{name} is {hook!r}"
        wanted = list(inspect.signature(protocol.__call__).parameters)[1:]  # without self
        assert len(inspect.signature(hook).parameters) == len(wanted), (ruleset, name, hook)


def test_defaults_are_the_shared_flow():
    rules = Rules("hg2002")
    spec, tiles = rules.spec, rules.spec.tiles
    assert hooks.catalogue_start_tile(tiles, rules) == tiles.START_TILE
    assert hooks.printed_pieces(rules) == spec.pieces
    regular, extra = hooks.shuffled_decks(tiles, rules, np.random.default_rng(5))
    rng = np.random.default_rng(5)  # the draw deal_decks made before the hooks had defaults
    assert regular.tolist() == rng.permutation(spec.deck_tiles(tiles, rules)[0]).tolist()
    assert extra.tolist() == rng.permutation(spec.deck_tiles(tiles, rules)[1]).tolist()
    words = np.arange(6, dtype=np.uint32).reshape(2, 3)
    assert hooks.edge_matching_only(None, np.arange(2), np.arange(2), words) is words
    assert not hooks.no_deal_rank(tiles, rules).any()


def test_the_engine_never_asks_whether_a_ruleset_has_a_hook():
    """No ``spec.<hook> is None`` test outside the rulesets (a hook always has a default)."""
    names = "|".join(hook_fields())
    pattern = re.compile(rf"\.({names}) is (not )?None")
    package = Path(hg_env.__file__).parent
    found = [
        f"{path.relative_to(package)}:{n}"
        for path in package.rglob("*.py")
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


# Where the shared engine still names a special power: none since issue 29 (the raft, the hunting trap and
# the pit-trap phase are declared by hg2020: Ruleset.pool_power, cancelled_array, cancel_power, its phases).
POWER_NAMES_LEFT_IN_CORE: set[tuple[str, str]] = set()


def test_core_names_no_special_power_beyond_the_known_ones():
    powers = {power for name in RULESETS for power in get_ruleset(name).powers}
    core = Path(hg_env.__file__).parent / "core"
    found = {(path.name, power) for path in core.glob("*.py") for power in powers if f'"{power}"' in path.read_text()}
    assert found == POWER_NAMES_LEFT_IN_CORE
