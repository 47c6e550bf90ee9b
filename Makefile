# novalite: `make run` starts the all-in-one cloud, `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=

.PHONY: run test lint unit functional integration acceptance bench guest-image clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/novalite all-in-one $(ARGS)

lint: $(BIN)/.installed
	$(BIN)/ruff check novalite tests benchmarks

test: lint
	$(BIN)/pytest -q tests

unit: $(BIN)/.installed
	$(BIN)/pytest -q tests/unit

functional: $(BIN)/.installed
	$(BIN)/pytest -q tests/functional

integration: $(BIN)/.installed
	$(BIN)/pytest -q tests/integration

acceptance: $(BIN)/.installed
	$(BIN)/pytest -q tests/acceptance

bench: $(BIN)/.installed
	$(BIN)/python benchmarks/rpc.py
	$(BIN)/python benchmarks/boot_storm.py --servers 200

# The qemu driver's default guest (kernel, busybox initramfs, qcow2 disk), from Debian packages.
guest-image: $(BIN)/.installed
	$(BIN)/novalite-manage guest-image build

clean:
	rm -rf $(VENV) .novalite .pytest_cache
