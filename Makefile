# The two set-up commands of README.md, and their background variants.
PYTHON ?= $(shell command -v python3.11 || command -v python3)

.PHONY: run up down test bench typecheck lint format

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

typecheck:  ## mypy on apps/ and config/ without its cache, as CI runs it (a minute; no services)
	@$(PYTHON) bootstrap.py typecheck --no-incremental $(ARGS)

# mypy's cache makes a second run take seconds, but django-stubs can misread it after a models
# module changed (managers inherited from abstract models, django-stubs issue 1157): a failure is
# checked again from scratch, which also rewrites the cache.
lint:   ## ruff (lint, format), the import contracts (import-linter) and mypy
	@.venv/bin/ruff check . && .venv/bin/ruff format --check . && \
		.venv/bin/lint-imports --no-cache && \
		{ out=$$(.venv/bin/mypy 2>&1) && echo "$$out" || .venv/bin/mypy --no-incremental; }

format:
	@.venv/bin/ruff check --fix . && .venv/bin/ruff format .
