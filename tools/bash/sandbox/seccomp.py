"""A seccomp filter: the system calls a read-only command never needs, refused.

One layer of the plan-mode sandbox (tools/bash/sandbox/). With bubblewrap the
program goes to `bwrap --seccomp FD`; without it the child installs it itself
just before exec. What it refuses, and why a read-only mount or Landlock does
not already:
- socket(), every family: a read-only bind of / still lets connect() reach a
  unix socket outside (tmux, docker, an ssh agent), because the kernel checks
  the socket file's permission, not the mount. Claude Code's sandbox runtime
  refuses AF_UNIX sockets for the same reason, and Codex's Linux sandbox
  refuses network calls with seccomp; a read-only command needs neither.
- chmod, chown, utime, xattr and file_setattr calls: Landlock governs
  contents, not metadata.
- io_uring: its operations bypass seccomp altogether.
- setsid and setpgid: a process that leaves the call's process group could
  outlive the call.
- keyrings and SysV / POSIX IPC, removing and receiving included (ipcrm,
  mq_unlink): state shared with processes outside.
- inotify and fanotify instances: they count against a per-user limit, so a
  call holding them all makes every other program's inotify_init fail (tail -f
  falls back to polling).
- clone and unshare with CLONE_NEWUSER: a nested user namespace would give
  back capabilities (inside it) and widen the kernel's attack surface; clone3,
  whose flags seccomp cannot read, answers ENOSYS so libc falls back to clone.
- ioctls that change a file through a descriptor opened for reading: inode
  flags (chattr), fsxattr, fs-verity, encryption policies, freezing a
  filesystem, the inode generation (FS_IOC_SETVERSION), all of btrfs's
  (snapshots), and TIOCSTI. They check ownership,
  not write access, so Landlock lets them through.
- setpriority, ioprio_set, sched_set*, prlimit64, migrate_pages and
  move_pages aimed at any process but the caller (renice, ionice, taskset,
  prlimit -p), and process_madvise: without bubblewrap's PID namespace they
  reach processes outside, and no Landlock scope covers them.
- an exclusive flock and a lease (fcntl F_SETLEASE), which a read-only
  descriptor may take: an outside `flock -n` would fail, and a lease holds an
  outside writer back for up to the kernel's lease-break time.
Allowed on purpose: shared locks, since sqlite3 takes a read lock to read a
database. fcntl's write locks cannot be told from read locks (the type is in a
struct seccomp cannot read); they end with the call, whose processes all die
when it ends (at most its timeout).
The filter is classic BPF assembled here, a few dozen instructions one can
read, rather than a dependency on libseccomp. A call through another ABI (32-bit
code on x86_64, x32) kills the process: its numbers mean other calls.
"""

from __future__ import annotations

import ctypes
import platform
import struct
from dataclasses import dataclass
from functools import lru_cache

from tools import linux_only

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
LOAD_WORD, JUMP_EQUAL, JUMP_AT_LEAST, JUMP_SET, RETURN = 0x20, 0x15, 0x35, 0x45, 0x06
ALLOW, KILL_PROCESS = 0x7FFF0000, 0x80000000
ERRNO_EPERM, ERRNO_ENOSYS = 0x00050000 | 1, 0x00050000 | 38
ARCH_OFFSET, NUMBER_OFFSET, FIRST_ARGUMENT_OFFSET = 4, 0, 16
X32_BIT, CLONE_NEWUSER, CLONE3 = 0x40000000, 0x10000000, 435

REFUSED = ("socket chmod fchmod fchmodat fchmodat2 chown fchown lchown fchownat utime utimes "
           "futimesat utimensat setxattr lsetxattr fsetxattr setxattrat removexattr lremovexattr "
           "fremovexattr removexattrat io_uring_setup io_uring_enter io_uring_register setsid "
           "setpgid add_key request_key keyctl mq_open mq_unlink mq_timedsend mq_timedreceive "
           "mq_notify mq_getsetattr msgget msgsnd msgrcv msgctl semget semop semtimedop semctl "
           "shmget shmat shmctl process_madvise process_mrelease file_setattr inotify_init "
           "inotify_init1 fanotify_init").split()
SELF_ONLY = ("sched_setparam sched_setscheduler sched_setaffinity sched_setattr prlimit64 "
             "migrate_pages move_pages").split()
SECOND_ARGUMENT_OFFSET = 24
PRIO_PROCESS, IOPRIO_WHO_PROCESS = 0, 1
AND, WRITE_DIRECTION_AND_TYPE, TYPE = 0x54, 0x4000FF00, 0xFF00
TIOCSTI, FS_IOC_SET_ENCRYPTION_POLICY = 0x5412, 0x800C6613
WRITES_OF_TYPE = {"inode flags, versions, fs-verity ('f')": 0x40006600,
                  "fsxattr, freeze, trim ('X')": 0x40005800,
                  "inode generation, FS_IOC_SETVERSION ('v')": 0x40007600}
LOCK_EX, F_SETLEASE = 2, 1024
BTRFS = 0x9400


@dataclass(frozen=True)
class Architecture:
    """The audit architecture and syscall numbers of one CPU family."""

    audit_arch: int
    numbers: dict[str, int]
    x32_bit: bool = False


X86_64 = Architecture(0xC000003E, {
    "clone": 56, "unshare": 272, "socket": 41, "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94,
    "fchownat": 260, "fchmodat": 268, "fchmodat2": 452, "utime": 132, "utimes": 235,
    "futimesat": 261, "utimensat": 280, "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190,
    "setxattrat": 463, "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199,
    "removexattrat": 466, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "setsid": 112, "setpgid": 109, "add_key": 248, "request_key": 249, "keyctl": 250,
    "mq_open": 240, "msgget": 68, "msgsnd": 69, "semget": 64, "semop": 65, "semtimedop": 220,
    "shmget": 29, "shmat": 30, "ioctl": 16, "setpriority": 141, "ioprio_set": 251,
    "sched_setparam": 142, "sched_setscheduler": 144, "sched_setaffinity": 203, "sched_setattr": 314,
    "prlimit64": 302, "migrate_pages": 256, "move_pages": 279, "process_madvise": 440,
    "process_mrelease": 448, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243,
    "mq_notify": 244, "mq_getsetattr": 245, "msgrcv": 70, "msgctl": 71, "semctl": 66,
    "shmctl": 31, "file_setattr": 469, "inotify_init": 253, "inotify_init1": 294,
    "fanotify_init": 300, "flock": 73, "fcntl": 72}, x32_bit=True)
AARCH64 = Architecture(0xC00000B7, {
    "clone": 220, "unshare": 97, "socket": 198, "fchmod": 52, "fchmodat": 53, "fchmodat2": 452, "fchownat": 54, "fchown": 55,
    "utimensat": 88, "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463,
    "removexattr": 14, "lremovexattr": 15, "fremovexattr": 16, "removexattrat": 466,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "setsid": 157,
    "setpgid": 154, "add_key": 217, "request_key": 218, "keyctl": 219, "mq_open": 180,
    "msgget": 186, "msgsnd": 189, "semget": 190, "semop": 193, "semtimedop": 192, "shmget": 194,
    "shmat": 196, "ioctl": 29, "setpriority": 140, "ioprio_set": 30, "sched_setparam": 118,
    "sched_setscheduler": 119, "sched_setaffinity": 122, "sched_setattr": 274, "prlimit64": 261,
    "migrate_pages": 238, "move_pages": 239, "process_madvise": 440, "process_mrelease": 448,
    "mq_unlink": 181, "mq_timedsend": 182, "mq_timedreceive": 183, "mq_notify": 184,
    "mq_getsetattr": 185, "msgrcv": 188, "msgctl": 187, "semctl": 191, "shmctl": 195,
    "file_setattr": 469, "inotify_init1": 26, "fanotify_init": 262, "flock": 32, "fcntl": 25})
ARCHITECTURES = {"x86_64": X86_64, "aarch64": AARCH64}


class _Program(ctypes.Structure):
    _fields_ = [("length", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def architecture() -> Architecture | None:
    """The table for this machine, or None where the filter is not written for it (or not Linux)."""
    return ARCHITECTURES.get(platform.machine()) if linux_only.available() else None


@lru_cache(maxsize=1)
def this_machines_program() -> bytes | None:
    """The filter for this machine, assembled once per process; None where there is no table."""
    arch = architecture()
    return program(arch) if arch else None


def program(arch: Architecture) -> bytes:
    """The filter as bytes of `struct sock_filter`, the form `bwrap --seccomp` reads.

    Jumps name their target ("deny", "new_user", …); `_assemble` turns names into
    the forward offsets BPF wants."""
    refused = [arch.numbers[name] for name in REFUSED if name in arch.numbers]
    code: list[tuple] = [(LOAD_WORD, ARCH_OFFSET), (JUMP_EQUAL, arch.audit_arch, "number", None),
                         (RETURN, KILL_PROCESS),
                         ("number", LOAD_WORD, NUMBER_OFFSET)]
    if arch.x32_bit:
        code.append((JUMP_AT_LEAST, X32_BIT, "deny", None))
    code.append((JUMP_EQUAL, CLONE3, "no_such_call", None))
    code += [(JUMP_EQUAL, arch.numbers[name], "new_user", None) for name in ("clone", "unshare")]
    code += [(JUMP_EQUAL, number, "deny", None) for number in refused]
    code += [(JUMP_EQUAL, arch.numbers["ioctl"], "ioctl", None),
             (JUMP_EQUAL, arch.numbers["setpriority"], "setpriority", None),
             (JUMP_EQUAL, arch.numbers["ioprio_set"], "ioprio_set", None),
             (JUMP_EQUAL, arch.numbers["flock"], "flock", None),
             (JUMP_EQUAL, arch.numbers["fcntl"], "fcntl", None)]
    code += [(JUMP_EQUAL, arch.numbers[name], "first_is_self", None) for name in SELF_ONLY]
    code += [(RETURN, ALLOW),
             ("new_user", LOAD_WORD, FIRST_ARGUMENT_OFFSET), (JUMP_SET, CLONE_NEWUSER, "deny", None),
             (RETURN, ALLOW),
             ("ioctl", LOAD_WORD, SECOND_ARGUMENT_OFFSET),
             (JUMP_EQUAL, TIOCSTI, "deny", None),
             (JUMP_EQUAL, FS_IOC_SET_ENCRYPTION_POLICY, "deny", None),
             (AND, WRITE_DIRECTION_AND_TYPE)]
    code += [(JUMP_EQUAL, value, "deny", None) for value in WRITES_OF_TYPE.values()]
    code += [(AND, TYPE), (JUMP_EQUAL, BTRFS, "deny", None),
             (RETURN, ALLOW),
             ("setpriority", LOAD_WORD, FIRST_ARGUMENT_OFFSET),
             (JUMP_EQUAL, PRIO_PROCESS, "second_is_self", "deny"),
             ("ioprio_set", LOAD_WORD, FIRST_ARGUMENT_OFFSET),
             (JUMP_EQUAL, IOPRIO_WHO_PROCESS, "second_is_self", "deny"),
             ("flock", LOAD_WORD, SECOND_ARGUMENT_OFFSET),
             (JUMP_SET, LOCK_EX, "deny", "allow"),
             ("fcntl", LOAD_WORD, SECOND_ARGUMENT_OFFSET),
             (JUMP_EQUAL, F_SETLEASE, "deny", "allow"),
             ("second_is_self", LOAD_WORD, SECOND_ARGUMENT_OFFSET),
             (JUMP_EQUAL, 0, "allow", "deny"),
             ("first_is_self", LOAD_WORD, FIRST_ARGUMENT_OFFSET),
             (JUMP_EQUAL, 0, "allow", "deny"),
             ("allow", RETURN, ALLOW),
             ("deny", RETURN, ERRNO_EPERM),
             ("no_such_call", RETURN, ERRNO_ENOSYS)]
    return _assemble(code)


def _assemble(code: list[tuple]) -> bytes:
    """(label?, op, k) and (op, k, jump-if-true label, jump-if-false label) to BPF bytes."""
    labels = {line[0]: index for index, line in enumerate(code) if isinstance(line[0], str)}
    out = []
    for index, line in enumerate(code):
        op, k, *jumps = line[1:] if isinstance(line[0], str) else line
        offsets = [labels[target] - index - 1 if target else 0 for target in jumps] or [0, 0]
        out.append(struct.pack("HBBI", op, *offsets, k))
    return b"".join(out)


def install(filter_bytes: bytes) -> None:
    """Apply the filter to this process and its future children (call in the child)."""
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(filter_bytes, len(filter_bytes))
    prog = _Program(len(filter_bytes) // 8, ctypes.cast(buffer, ctypes.c_char_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter refused")
