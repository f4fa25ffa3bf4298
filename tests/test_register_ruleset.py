"""Rulesets kept outside ``hg_env/rulesets/``: ``hg_env.register_ruleset(folder or module)`` and the entry point
group ``hg_env.rulesets`` of an installed package (docs/architecture.md)."""

from __future__ import annotations

import importlib.metadata
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import hg_env
from hg_env.core import ruleset as ruleset_module
from hg_env.game import Game

TOY = Path(__file__).parent / "rulesets" / "toy"


@pytest.fixture
def clean() -> Iterator[None]:
    """Each test starts and ends with the shipped rulesets alone."""
    yield
    for name in list(ruleset_module._REGISTERED):
        if name not in ("hg2020", "hg2002", "carcassonne"):
            ruleset_module._REGISTERED.pop(name)
            for module in [
                m for m in sys.modules if m == f"hg_env.rulesets.{name}" or m.startswith(f"hg_env.rulesets.{name}.")
            ]:
                sys.modules.pop(module)
    ruleset_module._forget()


def test_an_installed_package_declares_its_ruleset_by_entry_point(clean: None, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = importlib.metadata.EntryPoint(
        name="toy", value="tests.rulesets.toy", group=ruleset_module.ENTRY_POINT_GROUP
    )
    real = importlib.metadata.entry_points
    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda **kw: [entry] if kw.get("group") == ruleset_module.ENTRY_POINT_GROUP else real(**kw),
    )
    ruleset_module._forget()
    assert "toy" not in ruleset_module._REGISTERED
    assert ruleset_module.rulesets()[-1] == "toy"
    game = Game(2, seed=0, ruleset="toy")
    game.step(game.legal_actions()[0])
    assert game.phase == "occupy" and "stash the tile" in [game.describe(a) for a in game.legal_actions()]


def test_a_folder_registers_once_by_its_name(clean: None) -> None:
    assert hg_env.register_ruleset(TOY) == "toy" == hg_env.register_ruleset(str(TOY))  # again: the same one
    assert "toy" in ruleset_module.rulesets() and ruleset_module.get_ruleset("toy").name == "toy"


def test_what_is_no_ruleset_is_refused_clearly(clean: None, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"holds no __init__\.py"):
        hg_env.register_ruleset(tmp_path)
    with pytest.raises(ValueError, match="defines no RULESET"):
        hg_env.register_ruleset("json")
    taken = tmp_path / "hg2002"
    taken.mkdir()
    (taken / "__init__.py").write_text("from hg_env.rulesets.hg2020 import RULESET\n")
    ruleset_module.get_ruleset("hg2002")
    with pytest.raises(ValueError, match="a ruleset called 'hg2002' exists already"):
        hg_env.register_ruleset(taken)
    renamed = tmp_path / "other"
    renamed.mkdir()
    (renamed / "__init__.py").write_text("from hg_env.rulesets.hg2020 import RULESET\n")
    with pytest.raises(ValueError, match="its folder is named 'other', its RULESET 'hg2020'"):
        hg_env.register_ruleset(renamed)
    assert "hg_env.rulesets.other" not in sys.modules
    assert ruleset_module.rulesets() == ("hg2020", "hg2002", "carcassonne")
