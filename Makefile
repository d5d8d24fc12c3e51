# Two commands: `make run` (set up and serve on the embedded defaults) and `make test` (the whole suite).
# `make mutants` checks the tests themselves: every promise-breaking edit in scripts/mutants.toml must fail them.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
export HYDRATA_SITE_URL ?= http://$(HOST):$(PORT)

.PHONY: install run worker test mutants bench demo-keys view

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

install: $(VENV)/.installed

# Web and worker together: the worker stops when the server does (Ctrl-C).
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py setup_demo
	$(PY) -m celery -A config worker --beat --loglevel=INFO & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	DEBUG=1 $(PY) manage.py runserver $(HOST):$(PORT)

worker: install
	$(PY) -m celery -A config worker --loglevel=INFO

demo-keys: install
	$(PY) manage.py setup_demo --new-keys

test: install
	$(PY) -m pytest -q

mutants: install
	$(PY) scripts/mutants.py

bench: install
	$(PY) benchmarks/get_project.py

# The MCP App's view: one HTML document with the vendored Leaflet inlined (committed; rebuild after editing
# hydrata_mcp/ui/view/src/).
view: install
	$(PY) hydrata_mcp/ui/view/build.py
