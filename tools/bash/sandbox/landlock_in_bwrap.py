"""Landlock inside bubblewrap: the ruleset applied after bubblewrap's mounts.

A layer of the plan-mode sandbox. A read-only mount stops writes to files, but
not the opening of a FIFO for writing (that writes nothing to the filesystem):
without this, `echo x > /outside/pipe` hands data to whoever reads the pipe.
Landlock's write right covers that open, on this kernel as on every kernel
with Landlock, and is checked before the open blocks.

Two facts shape how it is applied:
- A Landlocked process may not mount, so the ruleset cannot be applied before
  bubblewrap starts; it is applied by the call's first program, inside, just
  before it executes bash. That program is perl (Debian's perl-base, always
  installed): one system call, landlock_restrict_self, on a ruleset made by
  stepagent and passed as a file descriptor. Perl starts in about 2 ms; a
  Python interpreter would add about 10 ms to every call. Perl skips the locale
  (PERL_SKIP_LOCALE_INIT, a quarter of its start: bash loads it again) and
  removes the variable before bash runs, unless the user had set it.
- Landlock skips the folder a filesystem is mounted on when it walks up from a
  file, so the rule that allows writes names the parent of the call's tmpfs.
  The parent itself stays read-only through the bind mount.
Reading an outside FIFO is not stopped by this layer (Landlock cannot tell a
FIFO from a file when it allows reading): bubblewrap hides the folders where
other programs keep theirs (private_folders.py), and one kept elsewhere stays
readable.
"""

from __future__ import annotations

import os
import shutil
from functools import lru_cache

RESTRICT_SELF = 446
SKIP_LOCALE, OURS = "PERL_SKIP_LOCALE_INIT", "stepagent"
JOIN_CGROUP = ("for my $fd (split /,/, shift) { open(my $cgroup, '>&=', $fd) or die \"stepagent: no cgroup\\n\";"
               " syswrite($cgroup, '0') == 1 or die \"stepagent: cannot join the cgroup: $!\\n\"; close($cgroup); }")
WAIT_AT_GATE = ("my $gate = 0 + shift; my $byte = ''; open(my $go, '<&=', $gate) or die \"stepagent: no gate\\n\";"
                " sysread($go, $byte, 1) == 1 or die \"stepagent: stopped before the command ran\\n\"; close($go);")
RESTRICT_THEN_EXEC = (
    f"my $fd = 0 + shift; syscall({RESTRICT_SELF}, $fd, 0) == 0"
    " or die \"stepagent: Landlock refused: $!\\n\";"
    " open(my $ruleset, '<&=', $fd) or die \"stepagent: no ruleset\\n\"; close($ruleset);"
    f" delete $ENV{{{SKIP_LOCALE}}} if ($ENV{{{SKIP_LOCALE}}} // '') eq '{OURS}';"
    " exec {$ARGV[0]} @ARGV or die \"stepagent: cannot run $ARGV[0]: $!\\n\";")


@lru_cache(maxsize=1)
def perl_path() -> str | None:
    """The perl that applies the ruleset inside bubblewrap, where there is one."""
    return shutil.which("perl")


def restrict_then_exec(perl: str, ruleset_fd: int, gate_fd: int | None = None,
                       cgroup_fds: list[int] = ()) -> list[str]:
    """A command prefix: apply the ruleset `ruleset_fd`, close it, then run what follows.

    Given `cgroup_fds`, it first joins the cgroup through each (CallCgroup.joining_ends); given
    `gate_fd`, it then waits for a byte there (lease_gate.py); at end of file it runs nothing.
    landlock_restrict_self's number is the same on every architecture.
    """
    steps = [(JOIN_CGROUP, ",".join(map(str, cgroup_fds)))] if cgroup_fds else []
    if gate_fd is not None:
        steps.append((WAIT_AT_GATE, str(gate_fd)))
    steps.append((RESTRICT_THEN_EXEC, str(ruleset_fd)))
    return [perl, "-e", " ".join(code for code, _ in steps), "--", *(argument for _, argument in steps)]


def perl_environment() -> dict[str, str]:
    """What perl's environment adds: its locale skipped (a value the user set stays, as it is)."""
    return {SKIP_LOCALE: os.environ.get(SKIP_LOCALE, OURS)}
