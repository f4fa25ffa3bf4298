"""Rule flags on the command line, and a game's title naming the flags in force.

Every ``hgenv`` command that makes a game takes ``--flag NAME=VALUE``, repeatable
(``hgenv demo --ruleset carcassonne --flag river=true``). ``parse_flags`` turns the
texts into the types of the ruleset's flags (hg_env.core.rules.Rules lists them:
its own flags, the common ones, ``board_reach`` and ``start_rotation``) and has
``Rules`` check them, so a flag is refused here exactly as ``Game(...)`` refuses it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from hg_env.core.rules import COMMON_FLAGS, Rules
from hg_env.core.ruleset import get_ruleset

TRUE, FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def add_flag_option(parser: argparse.ArgumentParser) -> None:
    """``--flag NAME=VALUE`` (repeatable) on a command that makes games; read it with ``parse_flags``."""
    parser.add_argument(
        "--flag",
        dest="flags",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule flag of the ruleset, repeatable, e.g. --flag river=true (carcassonne); "
        "the flags and their defaults: docs/rules/ (default: none, the ruleset's defaults)",
    )


def parse_flags(ruleset: str, items: Sequence[str]) -> dict[str, Any]:
    """``["river=true", "board_reach=8"]`` -> ``{"river": True, "board_reach": 8}`` for ``ruleset``.

    ValueError with one line naming the item for a malformed item, an unknown flag, a flag given
    twice or a value the flag does not take."""
    spec = get_ruleset(ruleset)
    flags = {**COMMON_FLAGS, **spec.flags}
    names = sorted([*flags, "board_reach", "start_rotation"])
    out: dict[str, Any] = {}
    for item in items:
        name, eq, text = (part.strip() for part in str(item).partition("="))
        if not eq or not name or not text:
            raise ValueError(f"--flag {item!r}: expected NAME=VALUE; {ruleset}'s flags: {', '.join(names)}")
        if name == "ruleset":
            raise ValueError(f"--flag {item!r}: the ruleset is chosen with --ruleset")
        if name not in names:
            raise ValueError(f"--flag {item!r}: {ruleset} has no rule flag {name!r}; its flags: {', '.join(names)}")
        if name in out:
            raise ValueError(f"--flag {item!r}: {name} is given twice")
        out[name] = _value(name, text, flags.get(name), item)
    try:
        Rules(ruleset=ruleset, **out)  # the values and ranges, checked as Game(...) checks them
    except ValueError as err:
        raise ValueError(f"--flag: {err}") from None
    return out


def _value(name: str, text: str, flag: Any, item: str) -> Any:
    """The text of one flag in the flag's type (the ranges and choices are left to Rules)."""
    if name == "board_reach":
        if text.lower() == "none":  # an unbounded board
            return None
        return _int(text, item, "an int or none")
    if name == "start_rotation":
        return _int(text, item, "an int 0..3")
    if isinstance(flag.default, bool):
        if text.lower() in TRUE:
            return True
        if text.lower() in FALSE:
            return False
        raise ValueError(f"--flag {item!r}: {name} is true or false, got {text!r}")
    return text


def _int(text: str, item: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--flag {item!r}: expected {what}, got {text!r}") from None


def game_title(rules: Rules) -> str:
    """The ruleset's title with the flags in force: a boolean flag the title names (Carcassonne's
    "abbot", "river") only while it is on; any other own flag away from its default added.

    ``Carcassonne (base game C3, farmers, abbot)`` by default, ``..., abbot, river)`` with
    ``river=True``, ``Hunters & Gatherers (2020, hut_targets=...)``."""
    spec = rules.spec
    name, _, rest = spec.title.partition(" (")
    items = [item.strip() for item in rest.removesuffix(")").split(",") if item.strip()]
    shown = [item for item in items if item not in spec.flags or getattr(rules, item) is True]
    for flag_name, flag in spec.flags.items():
        value = getattr(rules, flag_name)
        if flag_name in items or value == flag.default:
            continue
        shown.append(flag_name if value is True else f"no {flag_name}" if value is False else f"{flag_name}={value}")
    return f"{name} ({', '.join(shown)})" if shown else name
