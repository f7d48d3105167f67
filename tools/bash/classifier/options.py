"""Read a command's options the way GNU getopt does, from a table of the options it has.

The classifier's option allowlist: an option the table does not name makes the
command unsafe, because nobody can say what it does (`xargs --process-slot-var`,
an abbreviation such as `sort --o=FILE`). The table also says which options take
a value, so a value that looks like an option (`sort -T -- -o FILE`: the `--`
is -T's value, and -o still counts) is read as the command will read it.
Rules followed: short options cluster (`-rn`), a short option's value may be
attached (`-k2`) or the next argument; long options take `=value` or the next
argument and may be abbreviated to any unique prefix; `--` ends the options.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    """What options a command has: short letters with and without a value, long names too.

    `optional` short letters take a value only when it is attached (xargs -i, -e, -l);
    `numeric` accepts `-5` (nice); ripgrep, unlike GNU tools, takes no abbreviations.
    """

    flags: str = ""
    valued: str = ""
    long_flags: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    optional: str = ""
    numeric: bool = False
    abbreviations: bool = True


@dataclass
class Reading:
    """The options found (name, value), the operands, and the first unknown option if any."""

    options: list[tuple[str, str | None]]
    operands: list[str]
    unknown: str = ""
    first_operand: int = -1

    def has(self, *names: str) -> str:
        """The first option given among `names` (as the user wrote its name), or ''."""
        return next((name for name, _ in self.options if name in names), "")


def long_options(text: str) -> frozenset[str]:
    """The set of `--name` options spelled out in `text`, names separated by blanks."""
    return frozenset(f"--{name}" for name in text.split())


def read_options(args: Sequence[str], table: Options, stop_at_operand: bool = False) -> Reading:
    """Read `args` by `table` into options and operands.

    With stop_at_operand (wrappers, POSIX mode) the first operand ends the
    options, and `first_operand` says where it is.
    """
    reading = Reading([], [])
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            reading.first_operand = i + 1 if reading.first_operand < 0 else reading.first_operand
            reading.operands.extend(args[i + 1:])
            break
        if table.numeric and arg[1:].isdigit():
            reading.options.append(("-N", arg[1:]))
            i += 1
            continue
        if arg == "-" or not arg.startswith("-"):
            if stop_at_operand:
                reading.first_operand = i
                reading.operands.extend(args[i:])
                break
            reading.operands.append(arg)
            i += 1
            continue
        step = _long(args, i, table, reading) if arg.startswith("--") else _short(args, i, table, reading)
        if reading.unknown:
            return reading
        i += step
    if reading.first_operand < 0:
        reading.first_operand = len(args)
    return reading


def _long(args: Sequence[str], i: int, table: Options, reading: Reading) -> int:
    written, has_value, value = args[i].partition("=")
    names = table.long_flags | table.long_valued
    name = written if written in names else _unique_prefix(written, names) if table.abbreviations else ""
    if not name or (has_value and name in table.long_flags):
        reading.unknown = args[i]
        return 1
    if name in table.long_valued and not has_value:
        if i + 1 >= len(args):
            reading.unknown = args[i]
            return 1
        reading.options.append((name, args[i + 1]))
        return 2
    reading.options.append((name, value if has_value else None))
    return 1


def _unique_prefix(written: str, names: frozenset[str]) -> str:
    matches = [name for name in names if name.startswith(written)] if len(written) > 2 else []
    return matches[0] if len(matches) == 1 else ""


def _short(args: Sequence[str], i: int, table: Options, reading: Reading) -> int:
    cluster = args[i][1:]
    for position, letter in enumerate(cluster):
        rest = cluster[position + 1:]
        if letter in table.valued:
            if rest:
                reading.options.append((f"-{letter}", rest))
                return 1
            if i + 1 >= len(args):
                reading.unknown = args[i]
                return 1
            reading.options.append((f"-{letter}", args[i + 1]))
            return 2
        if letter in table.optional:
            reading.options.append((f"-{letter}", rest or None))
            return 1
        if letter not in table.flags:
            reading.unknown = args[i]
            return 1
        reading.options.append((f"-{letter}", None))
    return 1
