# Front door: `make check-config` runs the main job, `make test` runs the tests. Both set up first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup check-config test update-snapshots clean-cache

setup: $(STAMP)
	@$(BIN)/config-harness fetch

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $(STAMP)

check-config: setup
	@$(BIN)/config-harness check

test: setup
	@$(BIN)/python -m pytest -n 2 -q

update-snapshots: setup
	@$(BIN)/config-harness generate --prune

clean-cache:
	rm -rf .cache
