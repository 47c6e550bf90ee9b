# novalite: `make run` starts the all-in-one cloud, `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=

.PHONY: help run client test lint unit functional integration acceptance bench guest-image clean

# Installing: uv (from PyPI, installed into the venv by the venv's own pip, since only
# python3 is assumed) resolves and installs ~10x faster than pip and shows what it does.
# `make run` installs only what the cloud needs ($(BIN)/.runtime); the test and client
# tools come with `make test` / `make client` ($(BIN)/.installed: everything, as before).
# Bytecode is compiled at install time: where PYTHONDONTWRITEBYTECODE is set (CI is such a
# place) nothing else would write it, and every process (each `openstack` command, each
# service the tests start) would compile its imports again: 3.8 s for `openstack
# --version` instead of 1.6 s.
UV_INSTALL := VIRTUAL_ENV=$(VENV) $(BIN)/uv pip install --compile-bytecode
$(BIN)/uv:
	@echo "Creating $(VENV) and installing uv (the installer) into it"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check --progress-bar on uv

$(BIN)/.runtime: pyproject.toml | $(BIN)/uv
	@echo "Installing novalite and its runtime dependencies into $(VENV)"
	$(UV_INSTALL) -e .
	$(BIN)/python -m compileall -q novalite
	touch $@

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/  \1\t\2/' | expand -t 16

$(BIN)/.client: $(BIN)/.runtime
	@echo "Installing the openstack CLI into $(VENV)"
	$(UV_INSTALL) -e '.[client]'
	touch $@

$(BIN)/.installed: $(BIN)/.runtime
	@echo "Installing the test tools (pytest, ruff, tempest, openstack CLI) into $(VENV)"
	$(UV_INSTALL) -e '.[test]'
	touch $(BIN)/.client $@

client: $(BIN)/.client ## install the openstack CLI into the venv
	@echo "The openstack CLI is $(BIN)/openstack"

run: $(BIN)/.runtime ## start the all-in-one cloud (ARGS=... passes options)
	$(BIN)/novalite all-in-one $(ARGS)

lint: $(BIN)/.installed ## ruff, the import-layer contracts and mypy
	$(BIN)/ruff check novalite tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy

# The tests run on 3 processes (pytest-xdist), a test file to each at a time so a file's
# cloud starts once: most tests wait on clouds, guests and CLIs rather than compute, so 3
# beat 2 on this 2-core machine. The slowest 30 tests are listed at the end of each run.
XDIST := -n 3 --dist loadfile

test: lint ## lint, then every test (needs PostgreSQL, MariaDB, RabbitMQ, QEMU)
	$(BIN)/pytest -q $(XDIST) --durations=30 tests

unit: $(BIN)/.installed ## the unit tier, without the tests that need outside services
	$(BIN)/pytest -q -n 2 -m "not integration" tests/unit

functional: $(BIN)/.installed ## the all-in-one in process over real HTTP
	$(BIN)/pytest -q $(XDIST) tests/functional

integration: $(BIN)/.installed ## separate processes on RabbitMQ, PostgreSQL/MariaDB; real QEMU
	$(BIN)/pytest -q $(XDIST) tests/integration

acceptance: $(BIN)/.installed ## the unmodified openstack CLI against the all-in-one
	$(BIN)/pytest -q $(XDIST) tests/acceptance

bench: $(BIN)/.installed ## every benchmark, quick sizes (targets: benchmarks/targets.toml)
	$(BIN)/python benchmarks/rpc.py --calls 1000
	$(BIN)/python benchmarks/boot_storm.py --servers 200
	$(BIN)/python benchmarks/scheduler.py --hosts 100,1000,10000 --refresh-sizes 1000
	$(BIN)/python benchmarks/placement.py --providers 1000,10000 --runs 5 --claims 200
	$(BIN)/python benchmarks/placement_claims.py --claims 500
	$(BIN)/python benchmarks/lifecycle.py --migrations 50 --drain 30 --qemu-live 5
	$(BIN)/python benchmarks/volumes.py --cycles 100

# The qemu driver's default guest (kernel, busybox initramfs, qcow2 disk), from Debian packages.
guest-image: $(BIN)/.installed ## build the qemu driver's default guest image
	$(BIN)/novalite-manage guest-image build

clean: ## remove the venv and local state
	rm -rf $(VENV) .novalite .pytest_cache
