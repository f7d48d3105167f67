"""bubblewrap: the namespaces that contain a plan-mode Bash call.

The main layer of the plan-mode sandbox. Why bubblewrap: it is the small,
audited tool Flatpak is built on, packaged everywhere (Debian's `bubblewrap`),
and Claude Code's sandbox runtime runs Linux commands under it; it needs no
daemon and no root. What each option gives:
- `--ro-bind / /`: every file readable, nothing writable, no metadata change
  (chmod, times, xattrs all fail with EROFS), on every mount below / too.
- `--proc /proc` + `--unshare-pid`: a PID namespace; processes outside cannot
  be seen or signalled, and when the call's first process ends the kernel kills
  everything left in the namespace, so nothing outlives the call.
- the new /proc read-only, and /proc/sys bound read-only over it: root inside
  is still root to sysctl files (and /proc/irq, /proc/sysrq-trigger), which
  check only the owner; bubblewrap itself covers only some of them.
- `--unshare-net`, `--unshare-ipc`, `--unshare-uts`: no network (abstract unix
  sockets live in the network namespace too), no shared memory or message
  queues with processes outside.
- `--unshare-user`: the call has no capability outside its namespace;
  `--cap-drop ALL` makes that explicit when stepagent itself runs as root. (A
  nested user namespace is refused by the seccomp filter, which costs nothing
  per call; bwrap's --disable-userns costs one more namespace, about 5 ms.)
- `--dev /dev`: a minimal /dev (null, zero, random, tty …), read-only but for
  a small private /dev/shm.
- empty read-only /tmp, /var/tmp and /run, so no FIFO another program keeps
  there can be read (private_folders.py, which also says what stays open);
  the workspace, the home folder and the call's private folder come back
  beneath them, read-only, and a bounded tmpfs (`--size`) on an empty folder
  made for the call is TMPDIR: the call's only scratch space, gone with the
  call. The Read tool still reads files in the host's /tmp.
- `--die-with-parent`: killed when stepagent dies; `--new-session`: no
  terminal to push keystrokes into (TIOCSTI).
- `--seccomp FD`: the system-call filter of seccomp.py, loaded last; then
  the call's first program applies Landlock (landlock_in_bwrap.py).
- `--args FD`: for a call, the mounts above (`bwrap_mounts`) come on a pipe,
  looked up while bwrap starts (mounts_pipe.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

from tools import linux_only
from tools.bash.sandbox.private_folders import private_folders_argv

SHM_BYTES = 8 << 20
SYSTEM_FOLDERS = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/etc/ld.so.cache")
# Every view: namespaces of its own (no network), no capabilities, gone with stepagent, no terminal.
ISOLATED = ("--unshare-all", "--unshare-user", "--cap-drop", "ALL", "--die-with-parent", "--new-session")


@lru_cache(maxsize=1)
def bwrap_path() -> str | None:
    """The bwrap binary when it runs here (installed and allowed to make namespaces)."""
    found = shutil.which("bwrap") if linux_only.available() else None
    if not found:
        return None
    try:
        with tempfile.TemporaryDirectory(prefix="stepagent-bwrap-probe-") as private:
            os.mkdir(os.path.join(private, "tmp"))
            done = subprocess.run([*bwrap_argv(found, Path("/"), None, os.path.join(private, "tmp")),
                                   "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found if done.returncode == 0 else None


def bwrap_argv(bwrap: str, workspace: Path, seccomp_fd: int | None, scratch: str,
               mounts_fd: int | None = None) -> list[str]:
    """The bwrap command line that runs what follows it read-only, in its own namespaces.

    A private tmpfs on the empty folder `scratch` is its TMPDIR. With `mounts_fd`, the
    mounts (`bwrap_mounts`) are not on the command line: bwrap reads them from that
    descriptor (`--args`) before it makes anything, so they can be looked up while it starts.
    """
    mounts = ["--args", str(mounts_fd)] if mounts_fd is not None else bwrap_mounts(workspace, scratch)
    argv = [bwrap, *mounts, *ISOLATED, "--setenv", "TMPDIR", os.path.realpath(scratch),
            "--chdir", str(workspace)]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    return [*argv, "--"]


def bwrap_mounts(workspace: Path, scratch: str, leased: list[str] | None = None) -> list[str]:
    """The filesystem the call sees, as bwrap options, the covers of leased files among them.

    `leased`: the leased files to cover, looked up when None.
    / read-only, a minimal /dev, its own /proc, and the private folders (private_folders.py).
    The root comes first: given none of these, bwrap has nothing to run a command from."""
    return ["--ro-bind", "/", "/",
            "--dev", "/dev", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
            "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--remount-ro", "/proc",
            *private_folders_argv(os.path.realpath(workspace), os.path.realpath(scratch), leased)]


def search_view_argv(bwrap: str, tree: Path, program: str, cwd: Path) -> list[str]:
    """A bwrap for ripgrep (Grep, Glob): it sees `tree` and what it needs to run, read-only.

    ripgrep opens every ignore file it meets (.gitignore, .ignore, .rgignore)
    and follows symbolic links to do so, and a cloned repository can carry such
    links: to a FIFO outside (opening it wakes the writer), to /proc/kmsg (reads
    block, and consume the kernel's log), to /dev/zero (endless). In this view
    nothing outside `tree` exists: no /proc, no /dev, no /tmp, only the system's
    /usr and libraries and the rg binary, so such a link dangles. Everything is
    read-only, so reading leaves access times alone too (the kernel skips the
    update on a read-only mount), and the namespaces are its own.
    """
    system = [argument for folder in SYSTEM_FOLDERS for argument in ("--ro-bind-try", folder, folder)]
    home = Path.home()
    git_ignores = [argument for path in (home / ".gitconfig", home / ".config" / "git")
                   for argument in ("--ro-bind-try", str(path), str(path))]
    return [bwrap, *system, *git_ignores, "--ro-bind", str(tree), str(tree),
            "--ro-bind", program, program, *ISOLATED, "--chdir", str(cwd), "--"]


def snapshot_view_argv(bwrap: str, work_tree: Path, git_dir: Path, readable: list[Path]) -> list[str]:
    """A bwrap for rewind's git reading the workspace: it sees the workspace and little else.

    `work_tree` and `readable` are read-only, `git_dir` writable; beside them
    /dev/null and /dev/urandom (git needs both) and the system's /usr and libraries.
    git follows what the workspace names, a `.git` file's `gitdir:` anywhere, and in
    this view nothing outside exists, so a FIFO, /proc/kmsg or /dev/zero out there is
    never opened; the work tree is read-only, so reading it leaves access times alone.
    """
    system = [argument for folder in SYSTEM_FOLDERS for argument in ("--ro-bind-try", folder, folder)]
    extra = [argument for path in readable for argument in ("--ro-bind-try", str(path), str(path))]
    return [bwrap, *system, "--dev-bind", "/dev/null", "/dev/null", "--dev-bind", "/dev/urandom",
            "/dev/urandom", "--ro-bind", str(work_tree), str(work_tree), *extra,
            "--bind", str(git_dir), str(git_dir), *ISOLATED, "--chdir", str(work_tree), "--"]


def file_view_argv(bwrap: str, descriptor: int, target: str, program: str) -> list[str]:
    """A bwrap in which `program` sees one open file, read-only at `target`, and nothing else of ours.

    `--ro-bind-fd` binds the file the descriptor holds open: bwrap finds it by
    the descriptor's current name, mounts it, and stops unless the mount is
    that very file (device and inode). Mounting opens nothing, so a FIFO or a
    device swapped in under the name is never opened; a file removed since it
    was opened has no name and cannot be bound. The mount is read-only, so
    reading leaves the access time alone. Beside it only the system's /usr and
    libraries and `program`; no /proc, /dev or /tmp; namespaces of its own.
    """
    system = [argument for folder in SYSTEM_FOLDERS for argument in ("--ro-bind-try", folder, folder)]
    return [bwrap, *system, "--ro-bind", program, program, "--ro-bind-fd", str(descriptor), target,
            *ISOLATED, "--"]


def root_view_argv(bwrap: str) -> list[str]:
    """A bwrap in which what follows sees the whole file system read-only (quiet_links.py's lookups).

    Read-only, so the kernel updates no access time, a link's included; namespaces of its own.
    """
    return [bwrap, "--ro-bind", "/", "/", *ISOLATED, "--"]
