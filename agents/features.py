"""Features extractors for your own stable-baselines3 policies on hg_env's board tensor.

They are on the allow-list of model files (hg_env.agents.model_file), so a policy
built with them can be shared and loaded as ``policy:path=...`` without running
code from the file::

    from sb3_contrib import MaskablePPO
    from hg_env.agents.features import BoardCNN
    from hg_env.agents.model_file import export_sb3
    from hg_env.train.vec_env import HGVecEnv

    kwargs = dict(features_extractor_class=BoardCNN, features_extractor_kwargs=dict(channels=32))
    model = MaskablePPO("MlpPolicy", HGVecEnv(num_envs=8), policy_kwargs=kwargs).learn(10_000)
    export_sb3(model, "cnn.zip")   # or model.save("cnn.zip"): both load with policy:path=cnn.zip
"""

from __future__ import annotations

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from hg_env.core.observation import channel_names, channel_scale
from hg_env.core.ruleset import RULESETS


class BoardCNN(BaseFeaturesExtractor):
    """``layers`` 3x3 convolutions (same padding, ReLU) of ``channels`` features over the board
    tensor scaled to about [0, 1], then the mean and the max over the board, then
    ``Linear -> features_dim`` with ReLU."""

    def __init__(
        self,
        observation_space: spaces.Box,
        channels: int = 32,
        layers: int = 2,
        features_dim: int = 128,
        ruleset: str | None = None,
    ):
        super().__init__(observation_space, features_dim)
        depth, size, _ = observation_space.shape
        reach = (size - 1) // 2
        # The rulesets' tensors differ in depth (hg2020 85, hg2002 77, carcassonne 74 channels): the
        # depth names the ruleset unless one is given.
        rulesets = [ruleset] if ruleset is not None else RULESETS
        matches = [r for r in rulesets if len(channel_names(r, reach)) == depth]
        if not matches:
            raise ValueError(
                f"BoardCNN reads hg_env's board tensor, got an observation of shape {observation_space.shape}"
                + (f", not ruleset {ruleset!r}'s" if ruleset is not None else "")
            )
        scale = channel_scale(matches[0], reach)
        self.register_buffer("scale", torch.from_numpy(scale).reshape(-1, 1, 1), persistent=False)
        convs: list[nn.Module] = []
        for k in range(layers):
            convs += [nn.Conv2d(depth if k == 0 else channels, channels, 3, padding=1), nn.ReLU()]
        self.convs = nn.Sequential(*convs)
        self.out = nn.Sequential(nn.Linear(2 * channels, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        h = self.convs(observations.float() * self.scale)
        return self.out(torch.cat([h.mean((2, 3)), h.amax((2, 3))], 1))
