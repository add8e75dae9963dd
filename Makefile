# Two entry points do all set-up on a fresh machine: `make app` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# torch is pinned here, not in pyproject: the CPU wheel on this kind of machine, the
# normal build on a GPU workstation (override with TORCH_SPEC=torch==X).
TORCH_SPEC ?= torch==2.13.0
# llama.cpp is compiled for the CPU family, not with -march=native: a native build on a CPU that
# advertises AMX the virtual machine cannot run dies with SIGILL, and a wheel pip cached on one
# machine must run on the next. Override for a GPU build, e.g. LLAMA_CMAKE_ARGS=-DGGML_CUDA=on.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

.PHONY: app test bench setup clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "$(TORCH_SPEC)"
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install -q -e ".[transformers,reference,dev]"
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
