"""The core names no game (issue 29): no ruleset's pieces, zone kinds, phases or powers in the code of
``hg_env/core`` (identifiers and string literals; docstrings and comments may cite them as examples)."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import hg_env.core

# What one ruleset calls things: its pieces and zone kinds as identifiers, its phases, decisions and powers as strings.
GAME_IDENTIFIERS = {"PAWN", "HUT", "ABBOT", "Z_LAKE", "Z_WATER", "Z_MONASTERY", "Z_GARDEN", "WATER", "PHASE_NAMES"}
GAME_STRINGS = {
    "retake",
    "pit",
    "pit_trap",
    "raft",
    "hunting_trap",
    "shaman",
    "wildfire",
    "abbot",
    "meeple",
    "pawn",
    "hut",
}


def test_the_core_code_names_no_game() -> None:
    found = []
    for path in sorted(Path(hg_env.core.__file__).parent.glob("*.py")):
        for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            named = token.type == tokenize.NAME and token.string in GAME_IDENTIFIERS
            if named or (token.type == tokenize.STRING and _game_string(path.name, token.string.strip("\"'"))):
                found.append((path.name, token.start[0], token.string))
    assert found == []


# The old names hg_env/render.py still imports, read through a module __getattr__ until its rewrite lands.
_OLD_NAMES = {"PAWN", "HUT", "ABBOT", "Z_WATER"}


def _game_string(module: str, text: str) -> bool:
    """A string naming a game's thing (the old names' table for render.py aside)."""
    return text in GAME_STRINGS | GAME_IDENTIFIERS and not (module in ("ruleset.py", "tiles.py") and text in _OLD_NAMES)
