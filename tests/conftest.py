"""Suite-wide settings (no test may reach the Hugging Face hub) and the shared real server."""

import os
import signal
import sys
from pathlib import Path

import pytest

# Without these a missing hub id waits minutes on the network before it fails.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# The dataset digest cache (dataset/digest.py) of this test session, not the user's.
if "MMMU_EVAL_CACHE" not in os.environ:
    import tempfile

    os.environ["MMMU_EVAL_CACHE"] = tempfile.mkdtemp(prefix="mmmu-eval-test-cache-")
# Output to a pipe is wrapped only when COLUMNS names a width (cli/wrap.py), and the tests that
# want a width set it themselves. Importing readline (pytest's debugger does) puts COLUMNS=80 and
# LINES into this process's C environment, which os.environ does not show but every child
# inherits: pytest-xdist's workers started with COLUMNS=80, wrapped the CLI's messages at 80
# columns, and the tests that look for a whole line failed wherever a longer temporary path
# moved a break into it. Gone from both, for this process and its children.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)
    os.unsetenv(_name)

# The Ctrl-C tests send SIGINT and expect a KeyboardInterrupt, here and in the `mmmu-eval run`
# processes they start. A script that starts the suite in the background (`nohup ... &`, no job
# control) has SIGINT ignored, Python keeps it so, and children inherit it: nothing would ever
# be interrupted. Python's own handler here also gives the children the default back at exec.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Shared fakes (fault-injection server, tiny models, parquet writers) import as `fakes.<name>`.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def served_tiny_llava(tmp_path_factory):
    """(model directory, base URL) of one `transformers serve` of the tiny LLaVA, shared by the
    tests that need a real OpenAI-compatible server (starting one costs several seconds).

    Without torch, transformers or the serve extra the tests skip locally and fail under CI."""
    from fakes import required

    for name in ("torch", "transformers", "fastapi"):
        required.module(name, "the real-server tests need the hf and serve extras (pip install -e '.[hf,serve]')")
    from fakes.served_model import transformers_serve
    from fakes.tiny_models import build_tiny_llava

    model = build_tiny_llava(tmp_path_factory.mktemp("served") / "llava")
    with transformers_serve(model, tmp_path_factory.mktemp("serve-log") / "serve.log") as url:
        yield str(model), url


@pytest.fixture(scope="session")
def hf_extra() -> None:
    """torch and transformers, for the tests of local models (marked ``hf``): skips locally and
    fails under CI when missing. Session-scoped, so it comes before any module fixture that builds
    a tiny model. ``make test-py3.10`` / ``test-py3.13`` leave the ``hf`` tests out (``-m "not hf"``):
    torch has no wheel on this machine for those Pythons, and PyPI's pulls several GB of CUDA."""
    from fakes import required

    for name in ("torch", "transformers"):
        required.module(name, "the local-model tests need the hf extra (pip install torch==2.13.0 -e '.[hf]')")


@pytest.fixture
def chromium() -> Path:
    """The system Chromium for a page's browser test; skips locally, fails under CI, when missing."""
    from fakes import required

    required.module("playwright.sync_api", "the browser tests drive Chromium with Playwright (the test extra)")
    return required.executable("chromium", "the browser tests need Chromium: run `make browser` (apt-get install chromium)")


@pytest.fixture
def tesseract() -> Path:
    """Tesseract, for the tests that read a rendered page back; skips locally, fails under CI."""
    from fakes import required

    return required.executable("tesseract", "reading a rendered page back needs Tesseract: run `make browser` (apt-get install tesseract-ocr)")


def pytest_ignore_collect(collection_path, config):
    """tests/packaging runs only in its own session (MMMU_EVAL_PACKAGE_TESTS=1, `make test-package`):
    building the wheel, installing it into a fresh venv and building the site cost a minute or two
    that the main session, and the Python side sessions, must not pay again."""
    if collection_path == Path(__file__).parent / "packaging":
        return os.environ.get("MMMU_EVAL_PACKAGE_TESTS") != "1"
    return None


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``make test`` runs the 3.11 session on several workers, a whole file
    each: tests/fakes/xdist_files.py), the files that start servers, browsers, subprocesses or
    models (a test marked ``slow`` or ``hf``) are handed out first, so the last files to start are
    short ones and no worker is left alone with a long one at the end. Within a file the order
    is kept, and a one-process run keeps the order of the files too."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    heavy = {item.path for item in items if item.get_closest_marker("slow") or item.get_closest_marker("hf")}
    items.sort(key=lambda item: item.path not in heavy)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` as tests/fakes/xdist_files.py does it: the files of a shared session
    fixture together, heavy files first. Any other ``--dist`` is xdist's own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from fakes.xdist_files import FilesTogether

    return FilesTogether(config, log)
