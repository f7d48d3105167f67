from __future__ import annotations

import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from step42_plan_mode.browser import Browser
from tests import zygote_client
from tests.fake_chat_server import FakeChatServer
from tests.hidden_layers import clear_probes, hide_linux_only
from tests.kept_folders import KeptFolders


def pytest_configure(config: pytest.Config) -> None:
    """Handle Ctrl-C and a hang-up as Python does by default, however the suite was started.

    A shell starts a background job with SIGINT ignored, every process inherits
    that, and the tests that press Ctrl-C (on a stepagent they start, or with
    interrupt_main) would then see nothing happen. Under nohup SIGHUP is ignored: a
    stepagent whose terminal a test closes would read the end of input (Ctrl-D) instead.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    share_bytecode(config)
    certificates_looked_up_when_needed()
    if config.getoption("numprocesses", None) and not hasattr(config, "workerinput"):
        config.add_cleanup(zygote_client.share())  # one zygote for the workers, not one each


def share_bytecode(config: pytest.Config) -> None:
    """Let the pythons the suite starts (workers, REPLs, child pytests) compile each module once.

    With PYTHONDONTWRITEBYTECODE set, as on some machines, every one of the hundreds of
    processes the suite starts compiled the whole project again. They share one bytecode
    folder instead, outside the source tree, kept in the venv from run to run (under a prefix
    the installed libraries' bytecode is not read, so a new folder means compiling them all
    again). This process uses it too from here on: the modules a run with -n 0 collects, and
    hypothesis, which its pytest plugin imports at the end of every run (2-3 s of CPU each
    compiled afresh). A new folder is filled by one collection before the workers start, which
    would otherwise each compile every module at once (4-5 s of CPU each). Without that
    variable Python's own __pycache__ folders serve; a folder chosen by the user is kept.
    """
    if (not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX")
            or hasattr(config, "workerinput")):
        return
    folder, new = bytecode_folder(config)
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix, sys.dont_write_bytecode = str(folder), False
    if new and config.getoption("numprocesses", None):
        subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                       cwd=config.rootpath, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def certificates_looked_up_when_needed() -> None:
    """Have TLS find the system's certificate authorities in their folder, one at a time as a
    handshake needs one, rather than parse the whole bundle file whenever a context is made.

    Every openai client a test makes (hundreds: each run of the product against the fake
    server makes one) builds a TLS context, and reading the bundle (SSL_CERT_FILE, or
    OpenSSL's own cert.pem) costs 20-30 ms of CPU each time; from the folder, 0.2 ms. No
    test speaks TLS, and were one to, the same authorities would verify it.
    """
    folder = ssl.get_default_verify_paths().openssl_capath
    if os.path.isdir(folder) and any(re.fullmatch(r"[0-9a-f]{8}\.\d+", name) for name in os.listdir(folder)):
        os.environ.pop("SSL_CERT_FILE", None)
        os.environ["SSL_CERT_DIR"] = folder


def bytecode_folder(config: pytest.Config) -> tuple[Path, bool]:
    """`bytecode` in the venv running the suite (outside a venv, a folder for this run only),
    and whether it is new."""
    venv = Path(sys.prefix)
    if sys.prefix != sys.base_prefix and os.access(venv, os.W_OK):
        kept = venv / "bytecode"
        # copies made in temporary folders (practice, child projects) are never imported again
        shutil.rmtree(kept / Path(tempfile.gettempdir()).relative_to("/"), ignore_errors=True)
        return kept, not kept.exists()
    folder = tempfile.mkdtemp(prefix="stepagent-tests-bytecode-")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    return Path(folder), True


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked slow (several seconds each on their own) are handed out first: one left for
    last would keep the whole suite waiting on a single worker."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """With workers (bin/test), tests go out one at a time, those sharing a browser together
    (tests/one_worker.py)."""
    if config.getvalue("dist") != "load":
        return None
    from tests.one_worker import OneAtATime

    return OneAtATime(config, log)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    """One headless Chromium for the tests that draw a page, started on first use (their files
    all go to one worker: tests/one_worker.py)."""
    with Browser() as browser:
        yield browser


@pytest.fixture(params=["linux", "without-linux"])
def on_each_system(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The test twice: on this system, and as where Linux is not (macOS): tools/linux_only.py
    answers no, os.pidfd_open is gone, the C library has no prctl (tests/test_without_linux.py).
    Asked for first (`pytest.mark.usefixtures`), before any fixture that probes the layers.
    What the probes found with Linux hidden is forgotten after; what they found on this system
    is kept, as the product keeps it (probing bubblewrap starts it: some 5 ms of CPU a test)."""
    if request.param == "without-linux":
        hide_linux_only(monkeypatch)
    yield request.param
    if request.param == "without-linux":
        clear_probes()


@pytest.fixture(scope="session", autouse=True)
def zygote() -> Iterator[None]:
    """The fork server for runs of index.py (tests/zygote.py): the workers' shared one, or this
    process's own, started on first use and stopped with the session."""
    yield
    zygote_client.stop()


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty workspace as the current directory, with a private STEPAGENT_HOME."""
    root = tmp_path / "workspace"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("STEPAGENT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return root.resolve()


@pytest.fixture(autouse=True)
def no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    assert "OPENAI_API_KEY" not in os.environ


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    """The fake Chat Completions server on a free loopback port, stopped after the test."""
    fake = FakeChatServer()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def terminal_size_from_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-xdist workers carry COLUMNS=80 and LINES=24; a REPL started in a pseudo-terminal
    must size itself from that terminal, as it does for a person."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(scope="session")
def kept_folders(tmp_path_factory: pytest.TempPathFactory) -> KeptFolders:
    """Folders that cost more to make than to look at, handed from test to test while unchanged
    (tests/kept_folders.py)."""
    return KeptFolders(lambda: tmp_path_factory.mktemp("kept"))
