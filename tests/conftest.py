"""Session-wide test set-up."""

import os
import warnings

import pytest

# torch's OpenMP threads sleep while they wait instead of spinning, as under hgenv (README: Threads): set before
# anything imports torch, never overriding the caller. Spinning threads cost the suite CPU on a busy machine.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

with warnings.catch_warnings():
    # PettingZoo 1.27's own pettingzoo.test.api_test imports pettingzoo.classic.connect_four_v3 (for its
    # fixtures): the creation API that PettingZoo itself deprecates. Imported here once, quietly, before the
    # test modules that use api_test; hg_env uses pettingzoo.make (test_bench checks it in a fresh process).
    warnings.filterwarnings("ignore", "The old environment creation API", DeprecationWarning)
    import pettingzoo.test  # noqa: F401


@pytest.fixture(autouse=True, scope="session")
def sb3_log_folder(tmp_path_factory: pytest.TempPathFactory):
    """SB3 gives every learn() without a logger a fresh /tmp/SB3-<time> folder; the tests that call learn()
    directly (as a user's script does) left one behind per call. Theirs go to pytest's own temporary folder."""
    old = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3"))
    yield
    if old is None:
        os.environ.pop("SB3_LOGDIR")
    else:
        os.environ["SB3_LOGDIR"] = old
