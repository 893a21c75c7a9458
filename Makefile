# Front door: `make check-config` runs the main job, `make test` runs the tests. Both set up first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup check-config test update-snapshots bench fuzz clean-cache clean

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

# A longer fuzz pass than the one in `make test`; FUZZ_SEED picks another sequence of mutations.
FUZZ_ITERATIONS ?= 200
FUZZ_SEED ?= 20261130
fuzz: setup
	@CONFIG_HARNESS_FUZZ_ITERATIONS=$(FUZZ_ITERATIONS) CONFIG_HARNESS_FUZZ_SEED=$(FUZZ_SEED) \
		$(BIN)/python -m pytest -q tests/e2e/test_fuzz.py

bench: setup
	@$(BIN)/python benchmarks/bench_matrix.py

# The harness's parse and composition cache (per user, outside the project); the downloaded verl trees stay.
clean-cache:
	@$(BIN)/config-harness cache --clear

clean:
	rm -rf .cache
