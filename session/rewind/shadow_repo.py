"""The workspace's files as git would see them, kept as trees in a shadow repository.

Part of rewind (a layer). `snapshot` records the files git would list for the
workspace — tracked by the user's repository, or untracked and not ignored — in
the shadow repository at $STEPAGENT_HOME/checkpoints/<hash of the workspace>.git,
through its own index: `git add -A` there rehashes only what changed since the
last snapshot, and its split index writes only the entries that changed, so a
large workspace with one change costs little. Once about LOOSE_LIMIT objects lie
one per file they are packed: the first snapshot of a large workspace shrinks
from a file per blob to one compressed pack. Two stepagents in one workspace
take turns with the shadow's index (a lock file beside it).

The ignore rules are the user's: every `.gitignore` in the work tree, the
repository's `.git/info/exclude` (copied into the shadow's) and the user's
global excludes file. Files the user's repository tracks although a rule ignores
them are added by name; files the shadow tracked that have become ignored are
dropped; both are sorted out again only when the rules may have changed (a
`.gitignore` added or changed, the exclude files or the user's index changed).
The user's `.git` is only read (its exclude file, and its index by
`git ls-files`); nothing in it is written, and the links on the way to it and to
the exclude files are followed moving no access time (tools/quiet_links.py). A
workspace that is not a git repository works the same. A file another process holds a lease on is left out
(opening it would signal that process), as is a nested repository with no commit yet
(`git init sub`: git refuses a whole snapshot that holds one) and a file larger than
LARGEST_FILE_BYTES: git would read and compress all of it, before every prompt until
its time limit stopped it (a 20 GB image: a minute), and keep a copy in the home. To a
rewind such a file is not there: it is left as it is, unless it was smaller at the
checkpoint rewound to, which brings that back. Which files git would hash is asked first (`ls-files --others --modified`), and
their sizes read without opening them. git's runs that read the workspace
are confined as plan mode's reads are (git_plumbing.py).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import stat
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from session.rewind.git_plumbing import Git, GitFailed, GitStuck
from tools.leases import leased_in
from tools.quiet_links import real_path
from tools.safe_read import read_capped

EXCLUDE_LIMIT = 1_000_000
LARGEST_FILE_BYTES = 50_000_000  # GitHub's warning size; a dataset or a disk image is larger
LOOSE_LIMIT = 2000


GITLINK = "160000"
NO_COMMIT_YET = re.compile(r"^error: '(.+)/' does not have a commit checked out$", re.MULTILINE)


@dataclass(frozen=True)
class Change:
    """One path that differs between two snapshots: A added, M modified, D deleted, T type changed.

    `nested` marks a repository nested in the workspace (git keeps only its commit id).
    """

    status: str
    path: str
    nested: bool = False


def shadow_folder(home: Path, workspace: Path) -> Path:
    """Where the workspace's shadow repository lives: named by a hash of its resolved path."""
    digest = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:16]
    return home / "checkpoints" / f"{digest}.git"


def user_git_dir(workspace: Path) -> Path | None:
    """The workspace's own repository folder (`.git`, or where a `.git` file points), if any.

    Its real path, found moving no link's access time (tools/quiet_links.py), as plan mode promises."""
    dot_git = real_path(workspace / ".git")
    try:
        if dot_git.is_dir():
            return dot_git
        text, _ = read_capped(dot_git, 4096)
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    folder = real_path(workspace / text.removeprefix("gitdir:").strip())
    return folder if folder.is_dir() else None


def _loose_objects(git_dir: Path) -> int:
    """About how many objects are kept one per file, estimated from one of the 256 folders as git does."""
    try:
        return len(os.listdir(git_dir / "objects" / "17")) * 256
    except OSError:
        return 0


def _stamp(path: Path | None) -> tuple[int, int, int] | None:
    """When and how a file last changed (None when it is not there), to notice a change."""
    try:
        info = os.lstat(path) if path else None
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns) if info else None


def _size(path: Path) -> int:
    """The size of the file (of a link itself, not what it leads to); 0 when it is not there."""
    try:
        return os.lstat(path).st_size
    except OSError:
        return 0


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


class ShadowRepo:
    """Snapshots of one workspace, and what differs between two of them."""

    def __init__(self, home: Path, workspace: Path):
        self.workspace = workspace
        self._excludes = real_path(global_excludes())
        self.git = Git(shadow_folder(home, workspace), workspace, readable=(self._excludes,))
        self._home = home
        self._user_dir = user_git_dir(workspace)
        self._rules: tuple = ()
        self._heads: dict[str, str] = {}
        self._stuck = ""
        self._no_commit_yet: set[str] = set()

    def snapshot(self) -> str:
        """Record the workspace's files now; returns the tree's id. GitFailed if git cannot.

        Once git got stuck here (GitStuck), this says so at once instead of waiting again.
        """
        if self._stuck:
            raise GitFailed(self._stuck)
        config = self._config()
        try:
            with self._one_at_a_time():
                self.git.create()
                rules = self._sync_rules()
                leased = {path.relative_to(self.workspace).as_posix() for path in leased_in(self.workspace)}
                left_out = leased | self._too_large(config, leased)
                added = self._add(config, left_out)
                if rules != self._rules or b".gitignore" in added:
                    self._reconcile_ignored(config, left_out)
                    self._rules = rules
                return self.git.run("write-tree", config=config).decode().strip()
        except GitStuck as stuck:
            self._stuck = f"{stuck}; no more snapshots are tried in this session"
            raise

    def _too_large(self, config: tuple[str, ...], leased: set[str]) -> set[str]:
        """The files this snapshot would hash (new or changed since the last) that are larger than
        LARGEST_FILE_BYTES, each dropped from the shadow's index if it was there."""
        listed = self._reading_workspace(config, ("ls-files", "-z", "--others", "--modified",
                                                  "--exclude-standard"), leased)
        large = sorted(name for name in set(listed.split(b"\0")) - {b""}
                       if _size(self.workspace / os.fsdecode(name)) > LARGEST_FILE_BYTES)
        if large:
            self.git.run("update-index", "--force-remove", "-z", "--stdin", stdin=b"\0".join(large) + b"\0")
        return {os.fsdecode(name) for name in large}

    def _add(self, config: tuple[str, ...], leased: set[str]) -> bytes:
        """`git add --all` into the shadow's index, leaving out `leased` (the leased files and the
        large ones) and the nested repositories that have no commit yet; git's list of the files it added.

        git refuses the whole snapshot for such a repository (`git init sub`), of which
        it would keep only the commit id, and there is none; each it names is left out
        from then on in this session."""
        while True:
            try:
                return self._reading_workspace(config, ("add", "--all", "--ignore-errors", "--verbose"),
                                               leased | self._no_commit_yet)
            except GitFailed as failure:
                named = set(NO_COMMIT_YET.findall(failure.said)) - self._no_commit_yet
                if not named:
                    raise
                self._no_commit_yet |= named

    def _reading_workspace(self, config: tuple[str, ...], args: tuple[str, ...], left_out: set[str]) -> bytes:
        """git `args` run on the workspace, each path in `left_out` excluded (taken literally)."""
        excluded = [f":(exclude,literal){path}" for path in sorted(left_out)]
        return self.git.run(*args, "--", *excluded, config=config, reads_work_tree=True,
                            magic_pathspecs=bool(excluded))

    @contextmanager
    def _one_at_a_time(self) -> Iterator[None]:
        """Hold the shadow's lock: another stepagent in this workspace waits for its index."""
        self.git.git_dir.parent.mkdir(parents=True, exist_ok=True)
        with open(self.git.git_dir.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def commit(self, tree: str, message: str, ref: str) -> str:
        """Keep `tree` as a commit on `ref` (so nothing collects it); returns the commit's id.

        The message goes on standard input: a prompt can be longer than an argument may be."""
        if ref not in self._heads:
            self._heads[ref] = self.git.run("for-each-ref", "--format=%(objectname)", ref).decode().strip()
        parent = self._heads[ref]
        commit = self.git.run("commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-",
                              stdin=message.encode("utf-8", "surrogateescape")).decode().strip()
        self.git.run("update-ref", ref, commit)
        self._heads[ref] = commit
        if _loose_objects(self.git.git_dir) > LOOSE_LIMIT:
            self.git.run("repack", "-d", "-q")
        return commit

    def ignored(self, paths: set[str]) -> set[str]:
        """Those of `paths` (relative, as git writes them) that exist and are kept out of snapshots.

        The ignore rules keep them out; a file tracked although ignored is not among them.
        """
        if not paths:
            return set()
        output = self.git.run("ls-files", "-z", "--others", "--ignored", "--exclude-standard",
                              "--", *sorted(paths), config=self._config(), reads_work_tree=True)
        return set(output.decode("utf-8", errors="surrogateescape").split("\0")) - {""}

    def _config(self) -> tuple[str, ...]:
        return (f"core.excludesFile={self._excludes}", "core.splitIndex=true")

    def changes(self, old: str, new: str) -> list[Change]:
        """The paths that differ from snapshot `old` to snapshot `new` (trees or commits)."""
        output = self.git.run("diff-tree", "-r", "-z", "--no-renames", old, new)
        fields = output.decode("utf-8", errors="surrogateescape").split("\0")
        changes = []
        for raw, path in zip(fields[0::2], fields[1::2]):
            old_mode, new_mode, _, _, status = raw.lstrip(":").split(" ")
            changes.append(Change(status, path, GITLINK in (old_mode, new_mode)))
        return changes

    def _sync_rules(self) -> tuple:
        """Bring the shadow's exclude file up to the user's; returns what the ignore rules
        depend on besides `.gitignore` files (it changes when they may have)."""
        lines = []
        if self._user_dir is not None:
            common = self._user_dir
            if _regular(self._user_dir / "commondir"):
                named = read_capped(self._user_dir / "commondir", 4096)[0].strip()
                common = real_path(self._user_dir / named)
            try:
                lines.append(read_capped(real_path(common / "info" / "exclude"), EXCLUDE_LIMIT)[0])
            except OSError:
                pass
        try:
            home = self._home.resolve().relative_to(self.workspace.resolve())
            lines.append(f"/{home.as_posix()}/\n")
        except ValueError:
            pass
        wanted = "".join(lines)
        exclude = self.git.git_dir / "info" / "exclude"
        if not exclude.exists() or exclude.read_text() != wanted:
            exclude.write_text(wanted)
        user_index = self._user_dir / "index" if self._user_dir else None
        return wanted, _stamp(self._excludes), _stamp(user_index)

    def _reconcile_ignored(self, config: tuple[str, ...], leased: set[str]) -> None:
        """Track what the user's repository tracks though ignored; drop what is only ignored now.

        A file another process holds a lease on is not added (reading it would break the lease)."""
        listing = ("ls-files", "-z", "--cached", "--ignored", "--exclude-standard")
        in_shadow = set(self.git.run(*listing, config=config, reads_work_tree=True).split(b"\0")) - {b""}
        user_index = self._user_dir / "index" if self._user_dir else None
        by_user: set[bytes] = set()
        if user_index is not None and _regular(user_index):
            try:
                by_user = set(self.git.run(*listing, index=user_index, config=config,
                                           reads_work_tree=True).split(b"\0"))
            except GitFailed:  # an index this git cannot read alone (split): its ignore rules hold
                pass
        dropped = in_shadow - by_user
        added = {path for path in by_user - in_shadow - {b""}
                 if os.path.lexists(self.workspace / os.fsdecode(path)) and os.fsdecode(path) not in leased}
        if dropped:
            self.git.run("rm", "--cached", "--quiet", "--pathspec-from-file=-", "--pathspec-file-nul",
                         stdin=b"\0".join(sorted(dropped)), config=config, reads_work_tree=True)
        if added:
            self.git.run("add", "--force", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul",
                         stdin=b"\0".join(sorted(added)), config=config, reads_work_tree=True)


def global_excludes() -> str:
    """The user's global excludes file as git finds it by default ($XDG_CONFIG_HOME/git/ignore)."""
    config_home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return str(Path(config_home) / "git" / "ignore")
