# The two set-up commands of README.md, and their background variants.
PYTHON ?= $(shell command -v python3.11 || command -v python3)

.PHONY: run up down test bench lint format

run:    ## run the service in the foreground (embedded PostgreSQL and Redis)
	@$(PYTHON) bootstrap.py run

up:     ## the same in the background; returns once /readyz answers
	@$(PYTHON) bootstrap.py up

down:   ## stop what `make up` started
	@$(PYTHON) bootstrap.py down

test:   ## the whole test suite (ARGS="-k something" narrows it)
	@$(PYTHON) bootstrap.py test $(ARGS)

bench:  ## the benchmarks of bench/ (ARGS="healthz" picks one)
	@$(PYTHON) bootstrap.py bench $(ARGS)

lint:
	@.venv/bin/ruff check . && .venv/bin/ruff format --check .

format:
	@.venv/bin/ruff check --fix . && .venv/bin/ruff format .
