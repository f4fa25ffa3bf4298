# One place for setup, the main job, tests and benchmarks. Every target sets up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run test test-slow lint bench readme-figures screenshots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch 2.13.0 first: it is a local CPU wheel here; any other version pulls CUDA.
	$(BIN)/pip install -q torch==2.13.0
	# The extras of the web (hgenv serve), Ray, RLlib and TorchRL tests too; ray[rllib] 2.60 pins
	# gymnasium 1.2.2, so CI tests that combination (torch stays 2.13.0: torchrl 0.14 accepts it).
	$(BIN)/pip install -q -e ".[train,dev,web,ray,rllib,torchrl]"
	touch $(STAMP)

setup: $(STAMP)

# The README's first command: train configs/quick.toml, rate it against random and greedy, draw a board.
run: setup
	$(BIN)/hgenv quickstart

test: setup
	$(BIN)/python -m pytest -q

test-slow: setup
	$(BIN)/python -m pytest -q -m slow

# The README's screenshots (docs/images/*.png), taken again by the browser tests (tests/browser.py).
screenshots: setup
	HG_SCREENSHOTS=1 $(BIN)/python -m pytest -q tests/test_svg.py tests/test_replay_html.py tests/test_serve_browser.py

lint: setup
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: setup
	$(BIN)/hgenv bench core

# Every number the README publishes, measured again and written between its markers (hg_env/figures.py;
# hours: `python -m hg_env.figures --list` gives each figure's cost, FIGURES="bench make" picks some).
FIGURES ?= all
readme-figures: setup
	$(BIN)/python -m hg_env.figures --run $(FIGURES) --write README.md

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache
