"""Git as a file-snapshot engine, run so that no repository's configuration can steer it.

Part of rewind (a layer). The checkpoints live in a shadow repository under
$STEPAGENT_HOME whose work tree is the workspace; the user's own `.git` is never
the repository git opens. Every run starts from an environment with no GIT_*
variable of the user's, no system or global configuration, hooks and fsmonitor
off, and literal pathspecs. The shadow's `info/attributes`, which outranks every
`.gitattributes` in the work tree, unsets text, eol, filter, ident and
working-tree-encoding, so a cloned repository's attributes can neither run a
driver nor change a byte on the way in or out (where git reads attributes from a
tree, GIT_ATTR_SOURCE names the empty one, so they are not even read). A run
that does not end in TIMEOUT_SECONDS is stopped: git opens each `.gitignore`
it meets, and a FIFO by that name would keep it waiting. What a stopped run
had begun to write into the shadow goes with it (a file too large to hash in
time left a gigabyte of unfinished pack for each session).

A run that reads the work tree (a snapshot's, before every prompt, while
planning too) is confined as plan mode's reads are: where bubblewrap runs, in a
view holding only the work tree (read-only, so access times stay), the shadow
and the few files named (bwrap.py: snapshot_view_argv); else under a Landlock
ruleset that lets it open files there alone. Either way a `.git` file in the
workspace whose `gitdir:` leads outside (to a FIFO whose writer would wake, to
/proc/kmsg) leads nowhere.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tools.bash.sandbox.bwrap import SYSTEM_FOLDERS, snapshot_view_argv
from tools.bash.sandbox.landlock import Ruleset, reading_ruleset
from tools.bash.sandbox.status import detect_layers

NEUTRAL_CONFIG = ("core.hooksPath=/dev/null", "core.fsmonitor=false", "core.autocrlf=false",
                  "core.symlinks=true", "core.filemode=true", "core.ignoreCase=false",
                  "core.untrackedCache=false", "gc.auto=0", "maintenance.auto=false",
                  "advice.addEmbeddedRepo=false", "advice.addIgnoredFile=false")
EXACT_BYTES = "* -text -eol -filter -ident -working-tree-encoding -diff -merge\n"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
TIMEOUT_SECONDS = 60
IDENTITY = {"GIT_AUTHOR_NAME": "stepagent", "GIT_AUTHOR_EMAIL": "stepagent@localhost",
            "GIT_COMMITTER_NAME": "stepagent", "GIT_COMMITTER_EMAIL": "stepagent@localhost"}


class GitFailed(Exception):
    """A git command of the shadow repository failed; the message has git's own words.

    The message holds the last line git wrote on its error output; `said` holds all of it."""

    def __init__(self, message: str, said: str = ""):
        super().__init__(message)
        self.said = said


class GitStuck(GitFailed):
    """A git command did not finish in time and was stopped."""


@dataclass(frozen=True)
class Git:
    """Runs git on one shadow repository (`git_dir`) whose work tree is `work_tree`.

    `readable` are the files outside both that a run reading the work tree may read too."""

    git_dir: Path
    work_tree: Path
    readable: tuple[Path, ...] = ()

    def environment(self, index: Path | None = None) -> dict[str, str]:
        """The user's environment without any GIT_* variable, then the shadow's own."""
        kept = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
        return {**kept, **IDENTITY, "GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": str(self.work_tree),
                "GIT_INDEX_FILE": str(index or self.git_dir / "index"),
                "GIT_ATTR_SOURCE": EMPTY_TREE, "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": os.devnull, "GIT_LITERAL_PATHSPECS": "1",
                "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}

    def run(self, *args: str, stdin: bytes = b"", index: Path | None = None,
            config: tuple[str, ...] = (), reads_work_tree: bool = False,
            magic_pathspecs: bool = False) -> bytes:
        """Run `git ARGS` in the work tree and return its output; GitFailed if it fails or hangs.

        `reads_work_tree` confines the run to what it needs (see the module's docstring);
        `magic_pathspecs` reads `:(…)` in ARGS as magic (each pathspec must then say `literal`)."""
        settings = [part for item in (*NEUTRAL_CONFIG, *config) for part in ("-c", item)]
        environment = {**self.environment(index), **({"GIT_LITERAL_PATHSPECS": "0"} if magic_pathspecs else {})}
        if args[0] == "init":
            del environment["GIT_WORK_TREE"], environment["GIT_DIR"]
        prefix, ruleset = self._confinement(index) if reads_work_tree else ([], None)
        try:
            done = subprocess.run([*prefix, "git", *settings, *args], input=stdin, capture_output=True,
                                  cwd=self.work_tree, env=environment, timeout=TIMEOUT_SECONDS,
                                  preexec_fn=ruleset.restrict if ruleset else None)
        except subprocess.TimeoutExpired:
            self._drop_unfinished()
            raise GitStuck(f"git {args[0]} did not finish in {TIMEOUT_SECONDS} s (a FIFO named "
                            ".gitignore or .gitattributes in the workspace makes git wait for "
                            "ever)") from None
        except OSError as exc:
            raise GitFailed(f"git cannot run: {exc}") from None
        finally:
            if ruleset:
                ruleset.close()
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip()
            last = said.splitlines()[-1] if said else f"exit {done.returncode}"
            raise GitFailed(f"git {args[0]} failed: {last}", said)
        return done.stdout

    def _drop_unfinished(self) -> None:
        """Remove what a stopped git was writing into the shadow: its temporary objects and packs."""
        for path in (self.git_dir / "objects").glob("*/tmp_*"):
            path.unlink(missing_ok=True)

    def _confinement(self, index: Path | None) -> tuple[list[str], Ruleset | None]:
        """A bubblewrap view to run in, or else a Landlock ruleset to run under (neither without both)."""
        readable = [path for path in (*self.readable, index) if path is not None]
        layers = detect_layers()
        if layers.bwrap:
            return snapshot_view_argv(layers.bwrap, self.work_tree, self.git_dir, readable), None
        if layers.landlock_abi:
            return [], reading_ruleset([*SYSTEM_FOLDERS, "/dev/null", "/dev/urandom", str(self.work_tree),
                                        str(self.git_dir), *map(str, readable)])
        return [], None

    def create(self) -> None:
        """Make the shadow repository if it is not there yet: bare, no templates, exact bytes.

        The attributes file is written last, so a repository that has it is complete.
        """
        attributes = self.git_dir / "info" / "attributes"
        if attributes.is_file():
            return
        self.run("init", "--quiet", "--bare", "--template=", str(self.git_dir))
        attributes.parent.mkdir(exist_ok=True)
        attributes.write_text(EXACT_BYTES)
