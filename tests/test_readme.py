"""The README's Python examples run as written (the training example with a tiny budget)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index: int, capsys) -> None:
    code = BLOCKS[index]
    if ".learn(" in code:
        pytest.importorskip("sb3_contrib")
        code = re.sub(r"\.learn\([\d_]+\)", ".learn(64)", code)  # the same call, a CI-sized budget
        code = code.replace(
            'MaskablePPO("MlpPolicy", env, verbose=1)',
            'MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1)',
        )
    exec(compile(code, f"README.md python block {index}", "exec"), {})
