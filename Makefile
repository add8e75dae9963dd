# Two entry points do all set-up on a fresh machine: `make app` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# torch is pinned here, not in pyproject: the CPU wheel on this kind of machine, the
# normal build on a GPU workstation (override with TORCH_SPEC=torch==X).
TORCH_SPEC ?= torch==2.13.0

.PHONY: app test bench setup clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "$(TORCH_SPEC)"
	$(BIN)/python -m pip install -q -e ".[transformers,reference,dev]"
	touch $(STAMP)

setup: $(STAMP)

app: $(STAMP)
	$(BIN)/probe

test: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV)
