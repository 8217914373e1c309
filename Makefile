# The README's two commands: `make demo` runs an evaluation on the bundled sample,
# `make test` runs the test suite. Each installs what it needs first, into .venv.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
COMMA := ,
export HF_HUB_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
# Bytecode is written as modules are first imported, not all at install: pip compiles every file
# of every package it installs (--no-compile here says not to), though the tests import far
# fewer (importing torch, transformers, verifiers, trl, datasets, playwright and nbconvert
# compiles 8,000 of the 20,500 files of .venv). Measured here: pip's compiling costs 2.3 ms of
# CPU a file (the package's dependencies alone, 5,200 files: 27 s of CPU to install, 15 s with
# --no-compile); over the six venvs of a fresh clone (63,000 files) that is an estimated 90 s of
# CPU saved, about 30 s of it before the 3.11 session can start. PYTHONDONTWRITEBYTECODE (set on
# this project's machines) would make every process compile what it imports again, so it is
# not passed on.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test browser clean test-pythons test-py3.10 test-py3.13 mutants

demo: $(VENV)/.installed
	$(VENV)/bin/mmmu-eval run --benchmark mmmu --split validation --data sample --model random --out runs/sample-random
	$(VENV)/bin/mmmu-eval run --benchmark mmmu-pro --setting vision --data sample --model random --out runs/sample-pro-vision-random

# The side sessions (Python 3.10 and 3.13, transformers 4.57, the package, verifiers 0.3) run
# beside the main session (.ci/side-sessions), from the start: their venvs are built one after
# another beside the main session's venv, and each one's tests start as soon as its venv is
# ready, so the builds (pip) and the test sessions share the two cores instead of waiting for
# each other. They are built in the order of how long their tests take, longest first: 3.10 and
# 3.13 run 2,200 tests each, the others one to three minutes. Each side session's output is printed whole after the main session; any failure
# fails `make test`. Each session first writes the bytecode of the package and the tests for its
# Python (COMPILE), in one process, before its tests start the `mmmu-eval` subprocesses that
# would each need it.
COMPILE = -m compileall -q src tests
SIDE_LOG := test-artifacts/side-sessions.log
SIDE_SESSIONS = $(foreach v,$(FOUND_PYTHONS),.venv-py$(v)/.test-installed:test-py$(v)) \
  $(TF4_VENV)/.installed:test-transformers4 $(PACKAGE_VENV)/.installed:test-package \
  $(VF03_VENV)/.installed:test-verifiers-legacy
# The main session runs on pytest-xdist's workers, a whole test file each (tests/fakes/xdist_files.py:
# the files of the shared `transformers serve` on one worker, heavy files handed out first). Most of
# its time a test waits (servers starting, subprocesses, a browser, a clock), so three workers
# keep two cores busy where one process used 0.6 of one. The side sessions stay one process each:
# their fast tests use the CPU as long as they take, and each worker would collect the suite again.
WORKERS ?= 3
test: browser pythons-present
	@mkdir -p test-artifacts; \
	MAKE="$(MAKE)" .ci/side-sessions $(SIDE_SESSIONS) >$(SIDE_LOG) 2>&1 & side=$$!; \
	start=$$SECONDS; $(MAKE) --no-print-directory $(VENV)/.test-installed && \
	echo "main session: venv ready in $$((SECONDS - start)) s" && start=$$SECONDS && \
	$(PY) $(COMPILE) && $(PY) -m pytest -q -ra -n $(WORKERS) --dist loadfile; main=$$?; \
	echo "main session: tests ran $$((SECONDS - start)) s, exit $$main"; \
	wait $$side; sides=$$?; \
	echo "--- side sessions (run beside the main session): exit $$sides"; cat $(SIDE_LOG); \
	[ $$main = 0 ] && [ $$sides = 0 ]

# $(call install,VENV,EXTRAS,MORE): into VENV, the requirements of the project and its EXTRAS
# (.ci/requirements) with MORE, then the project itself, editable, without them. pip writes
# src/mmmu_eval.egg-info as it installs the project (every editable install of the tree does), so
# that last step, seconds, holds a lock, and the venvs of `make test` build side by side. Where
# there is no flock (util-linux; macOS has none), the step runs unlocked.
EDITABLE_LOCK := $(if $(shell command -v flock 2>/dev/null),flock test-artifacts/.editable-install.lock)
install = $(PYTHON) .ci/requirements $(2) >$(1)/requirements.txt && \
  $(1)/bin/python -m pip install -q --no-compile -r $(1)/requirements.txt $(3) && \
  mkdir -p test-artifacts && $(EDITABLE_LOCK) $(1)/bin/python -m pip install -q --no-compile --no-deps -e .

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --no-compile --upgrade pip
	$(call install,$(VENV))
	touch $@

# torch is pinned and installed first: a plain `torch` requirement pulls several GB of CUDA.
$(VENV)/.test-installed: pyproject.toml $(VENV)/.installed
	$(PY) -m pip install -q --no-compile torch==2.13.0
	$(call install,$(VENV),test hf serve harden)
	touch $@

# The RL environments under verifiers' classic API (0.3), in a venv of their own: verifiers 0.3
# and 0.4 cannot share one. Only the environment tests run there (MMMU_EVAL_VERIFIERS_LEGACY=1
# makes the legacy ones run, and fail under CI when verifiers 0.3 is missing). Measured on two
# cores beside the main session: 1.5 min to install (verifiers 0.3.1 with its dependencies, then
# mmmu-eval), under a minute of tests.
VF03_VENV ?= .venv-vf03
.PHONY: test-verifiers-legacy
test-verifiers-legacy: $(VF03_VENV)/.installed
	$(VF03_VENV)/bin/python $(COMPILE)
	MMMU_EVAL_VERIFIERS_LEGACY=1 MMMU_EVAL_TESTS_WITHOUT=trl $(VF03_VENV)/bin/python -m pytest -q -ra -p no:cacheprovider -m "not hf" \
	  --basetemp "$${TMPDIR:-/tmp}/mmmu-eval-tests-vf03" tests/environments

$(VF03_VENV)/.installed: pyproject.toml
	test -x $(VF03_VENV)/bin/python || $(PYTHON) -m venv $(VF03_VENV)
	$(call install,$(VF03_VENV),test-tools,'verifiers==0.3.1')
	touch $@

# The package as users get it, and the documentation site (tests/packaging), in a venv of its
# own (.venv-package: the package with the docs extra, build, twine and pytest), as a side session
# of `make test`: build the sdist and the wheel from it, `twine check --strict` both, install the
# wheel into a fresh venv and run `--version` and the sample evaluation from there, then
# `mkdocs build --strict`. Every other session leaves tests/packaging out (tests/conftest.py).
# `make docs` builds the site into site/ (open site/index.html; or `.venv-package/bin/mkdocs serve`).
PACKAGE_VENV ?= .venv-package
.PHONY: test-package docs
test-package: $(PACKAGE_VENV)/.installed
	$(PACKAGE_VENV)/bin/python $(COMPILE)
	MMMU_EVAL_PACKAGE_TESTS=1 $(PACKAGE_VENV)/bin/python -m pytest -q -ra -p no:cacheprovider \
	  --basetemp "$${TMPDIR:-/tmp}/mmmu-eval-tests-package" tests/packaging

docs: $(PACKAGE_VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(PACKAGE_VENV)/bin/mkdocs build --strict

$(PACKAGE_VENV)/.installed: pyproject.toml
	test -x $(PACKAGE_VENV)/bin/python || $(PYTHON) -m venv $(PACKAGE_VENV)
	$(PACKAGE_VENV)/bin/python -m pip install -q --no-compile --upgrade pip
	$(call install,$(PACKAGE_VENV),docs,'build>=1.2' 'twine>=6' 'pytest>=8' 'pytest-timeout>=2.3' 'pytest-asyncio>=0.23')
	touch $@

# The hf tests under transformers 4.x as well (4.57, its last release; the hf extra allows >= 4.46),
# a side session of `make test` in a venv of its own (.venv-tf4): 4.x tokenizers return
# token_type_ids that generate refuses, processors take their arguments as keywords, and the PIL
# image processors have other names. torch is pinned and installed first, as in .venv. Only the hf
# tests run there (`slow` ones need the serve extra, tested under 5.x). Measured on this machine's
# two cores, shared with other work: 2.2 min to install (torch 52 s, transformers 4.57.6 and the
# package 80 s), 1.1 min of tests (45 tests).
TF4_VENV ?= .venv-tf4
HF_TESTS := tests/backends tests/commands/test_merge_shards_e2e.py tests/suite/test_suite_local_engine.py
.PHONY: test-transformers4
test-transformers4: $(TF4_VENV)/.installed
	$(TF4_VENV)/bin/python $(COMPILE)
	$(TF4_VENV)/bin/python -m pytest -q -ra -p no:cacheprovider \
	  --basetemp "$${TMPDIR:-/tmp}/mmmu-eval-tests-tf4" -m "hf and not slow" $(HF_TESTS)

$(TF4_VENV)/.installed: pyproject.toml
	test -x $(TF4_VENV)/bin/python || $(PYTHON) -m venv $(TF4_VENV)
	$(TF4_VENV)/bin/python -m pip install -q --no-compile torch==2.13.0
	$(call install,$(TF4_VENV),test-tools hf,'transformers>=4.57$(COMMA)<4.58')
	touch $@

# The families whose processors need torchvision (Qwen2-VL, Qwen2.5-VL, Qwen3-VL, LLaVA-OneVision,
# InternVL, Mistral3, Pixtral, SmolVLM2, which also needs num2words: marker `torchvision`), which
# has no build beside the CPU torch 2.13.0: not part of `make test`. Their own venv (.venv-tv) holds
# torch 2.14.1 and torchvision 0.29.1, CUDA builds: 6.1 GB, 3.5 to 10 min to install here (local
# wheels), 1 to 3 min of tests (24) on two shared cores.
TV_VENV ?= .venv-tv
.PHONY: test-torchvision
test-torchvision: $(TV_VENV)/.installed
	$(TV_VENV)/bin/python -m pytest -q -ra -p no:cacheprovider \
	  --basetemp "$${TMPDIR:-/tmp}/mmmu-eval-tests-tv" -m torchvision tests/backends

$(TV_VENV)/.installed: pyproject.toml
	test -x $(TV_VENV)/bin/python || $(PYTHON) -m venv $(TV_VENV)
	$(TV_VENV)/bin/python -m pip install -q --no-compile torch==2.14.1 torchvision==0.29.1
	$(call install,$(TV_VENV),test-tools hf,num2words)
	touch $@

# The oldest and newest Python that requires-python claims, beside the 3.11 of .venv: each in its
# own venv (.venv-py3.10, .venv-py3.13) with the package, its harden extra and the test tools,
# found by .ci/find-python (PATH, then pyenv, then uv; never a fixed path). They collect every
# test and run the fast ones; `slow` (servers, browsers) and `hf` (torch: no wheel on this machine
# for those Pythons, and PyPI's pulls several GB of CUDA) run under 3.11 only, and so does
# verifiers (3.11+ only; on 3.13 a 5-minute install), whose tests skip here even under CI=true
# (MMMU_EVAL_TESTS_WITHOUT, tests/fakes/required.py), and so does IPython (the test extra's, for
# the notebook tests): a notebook's in-place progress output is tested under 3.11, and here the
# display without IPython. Every other skip still fails under CI.
# test-pythons makes the venvs one after another (two editable installs of one tree could race),
# then runs both test sessions at once, each one's output printed whole when it ends. A Python
# that is not there is left out with a line saying so; under CI=true it is an error.
PYTHONS := 3.10 3.13
FOUND_PYTHONS := $(shell for v in $(PYTHONS); do .ci/find-python $$v >/dev/null 2>&1 && echo $$v; done)
MISSING_PYTHONS := $(filter-out $(FOUND_PYTHONS),$(PYTHONS))
.PHONY: pythons-present
test-pythons: browser pythons-present
	@$(MAKE) --no-print-directory $(foreach v,$(FOUND_PYTHONS),.venv-py$(v)/.test-installed)
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(addprefix test-py,$(FOUND_PYTHONS))

# A Python of PYTHONS that is not here is named, and left out; under CI=true it is an error.
pythons-present:
	@for v in $(MISSING_PYTHONS); do \
	  if [ "$${CI:-}" = true ]; then .ci/find-python $$v; exit 1; fi; \
	  echo "no Python $$v here: its fast tests are left out (under CI=true this fails)"; \
	done

$(addprefix test-py,$(PYTHONS)): test-py%: .venv-py%/.test-installed browser
	.venv-py$*/bin/python $(COMPILE)
	MMMU_EVAL_TESTS_WITHOUT="verifiers trl datasets IPython" .venv-py$*/bin/python -m pytest -q -ra -p no:cacheprovider \
	  --basetemp "$${TMPDIR:-/tmp}/mmmu-eval-tests-py$*" -m "not slow and not hf"

.PRECIOUS: .venv-py%/.test-installed
.venv-py%/.test-installed: pyproject.toml
	test -x .venv-py$*/bin/python || "$$(.ci/find-python $*)" -m venv .venv-py$*
	.venv-py$*/bin/python -m pip install -q --no-compile --upgrade pip
	$(call install,.venv-py$*,test-tools harden)
	touch $@

# The mutation check (benchmarks/mutants.py): not part of `test`, it takes about half an hour.
mutants: $(VENV)/.test-installed
	$(PY) benchmarks/mutants.py --jobs 2

# Headless Chromium for the HTML report's browser test and `harden render` (Debian package; never
# `playwright install`), the serif and sans fonts render draws from, and Tesseract, which reads
# the rendered pages back in the tests. The tests find chromium on PATH, as the last line here
# does; under CI=true (.ci/run) a package that cannot be installed stops here, since the tests
# that need it would fail anyway.
BROWSER_PACKAGES := chromium tesseract-ocr fonts-dejavu-core fonts-liberation fonts-freefont-ttf fonts-crosextra-caladea fonts-crosextra-carlito fonts-comic-neue fonts-humor-sans
browser:
	@if command -v dpkg >/dev/null 2>&1; then \
	  missing=$$(for p in $(BROWSER_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	  if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $$missing >/dev/null; \
	    elif [ "$${CI:-}" = true ]; then echo "missing and not root ($$missing); CI needs them" >&2; exit 1; \
	    else echo "missing and not root ($$missing): browser and OCR tests will skip (under CI=true they fail)"; fi; fi; \
	else echo "not a Debian system: install $(BROWSER_PACKAGES) yourself"; fi
	@command -v chromium >/dev/null 2>&1 || [ "$${CI:-}" != true ] || { \
	  echo "chromium is not on PATH, where the browser tests look for it; CI needs it" >&2; exit 1; }

clean:
	rm -rf $(VENV) .venv-py* runs .pytest_cache
