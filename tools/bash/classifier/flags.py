"""Find a forbidden flag among a command's arguments, the way the tool reads them.

Short flags may be clustered (`-no` is `-n -o`), long ones may be abbreviated
(GNU tools accept `--out` for `--output`) or carry `=value`. A `--` usually
ends the options, but it can also be an option's value (`git grep -e -- -O…`
hands `--` to -e, and -O still opens its program), so every argument is looked
at: a file named like a forbidden flag is refused too, which is the safe side.
"""

from __future__ import annotations

from collections.abc import Iterable


def forbidden_flag(args: Iterable[str], short: str = "", long: Iterable[str] = ()) -> str:
    """The first argument that sets one of these flags, or ''."""
    long = tuple(long)
    for arg in args:
        if arg.startswith("--"):
            name = arg.split("=", 1)[0]
            if len(name) > 2 and any(full.startswith(name) for full in long):
                return arg
        elif arg.startswith("-") and len(arg) > 1 and any(letter in short for letter in arg[1:]):
            return arg
    return ""


def positionals(args: Iterable[str], takes_value: str = "",
                long_values: Iterable[str] = ()) -> list[str]:
    """The arguments that are not options (the values of flags that take one skipped)."""
    long_values = set(long_values)
    found: list[str] = []
    skip = False
    rest = False
    for arg in args:
        if skip:
            skip = False
        elif rest or arg == "-" or not arg.startswith("-"):
            found.append(arg)
        elif arg == "--":
            rest = True
        elif arg.startswith("--"):
            skip = arg in long_values
        elif arg[-1] in takes_value:
            skip = True
    return found
