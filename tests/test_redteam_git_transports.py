"""A read-looking git command starts no transport a hostile repository's config names.

`git remote show NAME` asks the remote, and so does any read of an object a partial
clone left out (`git cat-file -p REV:PATH`, `git show`, `git log -p`): git fetches it
from the promisor remote on the spot. A transport runs a program: an `ext::` remote's
command line, a file remote's `remote.NAME.uploadpack`. Bash sets `protocol.allow=never`
for every read, but a repository's own `protocol.ext.allow = always` outranks that
default, so where the sandbox cannot contain code (bubblewrap missing, or not Linux),
build mode ran such a command unasked and plan mode ran it while planning, outside any
sandbox. The marker the program would write, inside the workspace and outside it,
must never appear.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.test_hostile_repository import home, machine, run_unasked  # noqa: F401 (fixtures)

EVIL = "#!/bin/sh\necho ran > {outside}\necho ran > {inside}\nexit 1\n"
VECTORS = {
    "an ext:: remote asked by remote show": ("git remote show origin", "ext"),
    "a file remote's upload-pack asked by remote show": ("git remote show origin", "file"),
    "a partial clone's lazy fetch from cat-file": ("git cat-file -p HEAD:f.txt", "promisor"),
}
CONFIGURATIONS = [("build", "found here"), ("build", "no bubblewrap"), ("build", "no Linux layer"),
                  ("plan", "found here"), ("plan", "no bubblewrap"), ("plan", "no Linux layer")]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def transport_repository(root: Path, kind: str) -> tuple[Path, list[Path]]:
    """A workspace whose remote `origin` runs evil.sh when git talks to it; the markers it writes."""
    source, workspace = root / "source", root / "workspace"
    source.mkdir()
    (source / "f.txt").write_text("hello\n")
    git(source, "init", "-q")
    git(source, "add", "f.txt")
    git(source, "commit", "-qm", "first")
    git(source, "config", "uploadpack.allowFilter", "true")
    if kind == "promisor":
        git(root, "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{source}", str(workspace))
    else:
        workspace.mkdir()
        git(workspace, "init", "-q")
    markers = [root / "marker-outside", workspace / "marker-inside"]
    evil = root / "evil.sh"
    evil.write_text(EVIL.format(outside=markers[0], inside=markers[1]))
    evil.chmod(0o755)
    if kind == "file":
        git(workspace, "config", "remote.origin.url", str(source))
        git(workspace, "config", "remote.origin.uploadpack", str(evil))
        git(workspace, "config", "protocol.file.allow", "always")
    else:
        git(workspace, "config", "remote.origin.url", f"ext::{evil}")
        git(workspace, "config", "protocol.ext.allow", "always")
    return workspace, markers


@pytest.mark.parametrize("vector", sorted(VECTORS))
def test_plain_git_starts_the_transport_the_repository_names(vector, home, tmp_path):
    """The fixture is real: run by hand, with Bash's own protocol.allow=never, evil.sh runs."""
    command, kind = VECTORS[vector]
    workspace, markers = transport_repository(tmp_path, kind)
    never = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "protocol.allow", "GIT_CONFIG_VALUE_0": "never"}
    subprocess.run(["bash", "-c", command], cwd=workspace, capture_output=True, timeout=30,
                   stdin=subprocess.DEVNULL, env={**os.environ, **never})
    assert all(marker.exists() for marker in markers)


@pytest.mark.parametrize("mode, machine", CONFIGURATIONS, indirect=["machine"])
@pytest.mark.parametrize("vector", sorted(VECTORS))
def test_an_unasked_git_read_starts_no_transport_the_repository_names(vector, mode, machine, home, tmp_path):
    command, kind = VECTORS[vector]
    workspace, markers = transport_repository(tmp_path, kind)
    session = run_unasked(workspace, command, mode)
    assert not any(marker.exists() for marker in markers), session.tool_results()
