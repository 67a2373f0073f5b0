# Two commands set everything up on a fresh machine with Python 3.11 and make:
#   make run    install, migrate, load demo data, start the site on http://127.0.0.1:8000
#   make test   install, fetch what the browser tests need, lint, run the whole suite
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install lint audit chromium migrate demo bench balance balance-random bots clean

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "$(PYTHON) not found: set PYTHON=/path/to/python3.11"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

migrate: install
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	$(BIN)/python manage.py seed_demo

# runsite starts Redis, then loads the demo data into an empty database, then the rest.
run: migrate
	$(BIN)/python manage.py runsite $(HOST):$(PORT)

# Debian's Chromium for the real-browser tests (a test tool's own browser download does not work here).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	# Security lint of the site's code; findings of medium severity and above fail the build.
	$(BIN)/bandit -q -r games accounts wallsite chat moderation ratings leagues -x '*/migrations/*' -ll

# Known vulnerabilities in the installed dependencies (needs the package index).
audit: install
	$(BIN)/python .ci/audit.py

# Two xdist workers for what may run side by side, then alone what starts and times processes of its own
# (tests/faults, tests/tasks); the 20 slowest of each part are printed.
test: install chromium lint
	$(BIN)/pytest -n 2 -m "not serial" --durations=20
	$(BIN)/pytest -m serial --durations=20

bench: install
	$(BIN)/python bench/engines.py

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .ruff_cache

# Balance of every game and player count, written to docs/balance.md: the normal bot's search at a fixed
# 375 playouts a move in every seat, 100 games a table. That is days of CPU, so the games are kept in
# docs/balance-games.jsonl: each run plays only the missing ones (stop it with Ctrl-C at any time; the
# tables then show what is held) and rewrites the tables. Give it the machine's cores with WORKERS=n; after a
# change that moves a game's balance, FORGET="stairways ..." plays that game's tables again from scratch.
# balance-random: the same tables with uniform random moves, in a minute.
WORKERS ?= 2
BALANCE = bench/balance.py --all --option layout=classic,maze --option pieces=first_game,recommended --pool pieces \
  --games 100
balance: install
	$(BIN)/python $(BALANCE) --bot normal@375 --record docs/balance-games.jsonl --workers $(WORKERS) \
	  --markdown docs/balance.md $(foreach slug,$(FORGET),--forget $(slug))
balance-random: install
	$(BIN)/python $(BALANCE) --bot random --workers $(WORKERS) --markdown docs/balance-random.md

# The bots' strength and speed in every game (bench/bots.py: targets printed beside each figure).
bots: install
	$(BIN)/python bench/bots.py --workers $(WORKERS)
