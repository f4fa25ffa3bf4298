"""The stack goes downward: hg_env's core <- agents <- train. Agents (and what the policy agent needs to
load and run a network: hg_env.agents.model_file, .network, .features) never import training code."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
AGENTS = ROOT / "agents"


def _imported_modules(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, a module under agents/ (its text, or
    ``source``): lazy and TYPE_CHECKING ones included, relative ones resolved against hg_env.agents."""
    package = ["hg_env", "agents", *path.parent.relative_to(AGENTS).parts]
    found = []
    for node in ast.walk(ast.parse(path.read_text() if source is None else source, str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]  # from hg_env import train
    return found


def _upward(name: str) -> bool:
    return name == "hg_env.train" or name.startswith("hg_env.train.") or name.split(".")[0] == "train"


def test_no_module_of_agents_imports_training_code() -> None:
    sources = sorted(AGENTS.rglob("*.py"))
    assert {"policy.py", "model_file.py", "network.py", "features.py"} <= {p.name for p in sources}
    upward = [
        f"{path.relative_to(ROOT)}:{line}: imports {name}"
        for path in sources
        for line, name in _imported_modules(path)
        if _upward(name)
    ]
    assert not upward, "\n".join(upward)


def test_the_allow_list_imports_no_training_code() -> None:
    """The loader imports allow-listed classes by name (importlib): none of them from hg_env.train."""
    pytest.importorskip("torch")
    from hg_env.agents import model_file

    names = (*model_file.ALLOWED_POLICIES, *model_file.ALLOWED_ACTIVATIONS, *model_file.ALLOWED_EXTRACTORS)
    imported = [model_file.MOVED_CLASSES.get(name, name) for name in names]
    assert not [name for name in imported if _upward(name)], imported


def test_the_import_reader_sees_lazy_relative_and_from_imports() -> None:
    """The check above catches the imports it is there for (today's agents/policy.py had the first)."""
    source = (
        "def load():\n    from hg_env.train.model_file import load_model\n"
        "from .. import train\nfrom hg_env import train as t\nimport train.policy\n"
    )
    found = sorted(name for _, name in _imported_modules(AGENTS / "policy.py", source) if _upward(name))
    assert found == [
        "hg_env.train",
        "hg_env.train",
        "hg_env.train.model_file",
        "hg_env.train.model_file.load_model",
        "train.policy",
    ]


def test_a_policy_agent_loads_and_plays_a_shipped_model_without_training_code() -> None:
    """In a fresh interpreter: ``import hg_env.agents`` loads no torch; the policy agent loads a shipped
    model and plays a move, and no module of hg_env.train (nor SB3: a BoardNet needs torch only) was
    ever imported."""
    pytest.importorskip("torch")
    code = textwrap.dedent(
        """
        import sys
        import hg_env.agents
        assert "torch" not in sys.modules, "import hg_env.agents imported torch"
        import hg_env.agents.policy
        from hg_env.agents import make_agent
        from hg_env.core import engine
        from hg_env.core.observation import observe
        agent = make_agent("policy:path=hg_env/arena/models/ppo_hg2020.zip", seed=0)
        state = engine.new_games(2, seeds=[0], record_events=False)
        masks = engine.legal_action_mask(state)
        action = agent.act_batch(observe(state, [0], state.current[[0]]), masks, state)
        assert masks[0, action[0]]
        print(sorted(m for m in sys.modules if m == "hg_env.train" or m.startswith("hg_env.train.")))
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("stable_baselines3", "sb3_contrib")))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "[]"]  # no training code, and no SB3 for hgenv train's model


def test_boardnet_sizes_of_model_files_are_those_training_accepts() -> None:
    """The loader's bounds (hg_env.agents.model_file) and the config's (hg_env.train.config) are one range."""
    pytest.importorskip("torch")
    from hg_env.agents.model_file import BOARDNET_SIZES
    from hg_env.train.config import PolicyConfig, range_of

    for key, (low, high) in BOARDNET_SIZES.items():
        bounds = range_of(PolicyConfig, key)
        assert (bounds.low, bounds.high, bounds.low_open, bounds.high_open) == (low, high, False, False), key
    assert set(BOARDNET_SIZES) == {"channels", "layers", "hidden"}


def test_a_file_naming_boardcnn_where_it_used_to_live_still_loads(tmp_path: Path) -> None:
    """Files written before BoardCNN moved name it hg_env.train.features.BoardCNN: they load the same network."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from hg_env.agents.features import BoardCNN
    from hg_env.agents.model_file import export_sb3, load_model
    from hg_env.train.vec_env import HGVecEnv
    from tests.test_train import positions

    model = MaskablePPO(
        "MlpPolicy",
        HGVecEnv(num_envs=2, seed=0),
        n_steps=8,
        seed=0,
        policy_kwargs={"features_extractor_class": BoardCNN, "features_extractor_kwargs": {"channels": 4}},
    )
    new = tmp_path / "new.zip"
    export_sb3(model, new)
    with zipfile.ZipFile(new) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    metadata = json.loads(entries["model.json"])
    assert metadata["net_kwargs"]["features_extractor_class"] == "hg_env.agents.features.BoardCNN"
    metadata["net_kwargs"]["features_extractor_class"] = "hg_env.train.features.BoardCNN"
    old = tmp_path / "old.zip"
    with zipfile.ZipFile(old, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, json.dumps(metadata) if name == "model.json" else data)
    obs, _ = positions(3)
    with torch.no_grad():
        expected, _ = load_model(new).net(torch.from_numpy(obs))
        got, _ = load_model(old).net(torch.from_numpy(obs))
    assert torch.equal(expected, got)
