"""Docs that cannot drift: every file, function and command the README and the walkthrough
name exists, and every failure-mode number cited in the code is in the repository's list."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "step42_plan_mode" / "README.md"]
FILE = re.compile(r"`((?:[\w.-]+/)*[\w.-]+\.(?:py|json|md))`")
FILE_AND_NAMES = re.compile(r"`((?:[\w-]+/)*[\w-]+\.py)`: ((?:`[\w.]+`(?:, )?)+)")
TABLE_ROW = re.compile(r"^\| `((?:[\w-]+/)*[\w-]+\.py)` \|(.*)$", re.M)
NAME = re.compile(r"`([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)`")
COMMAND = re.compile(r"\./bin/([\w-]+)")
WALKTHROUGH = ROOT / "step42_plan_mode" / "README.md"
DELTA_ROW = re.compile(r"^\| `((?:[\w-]+/)*[\w-]+\.py)` \|(.*)\| ([\d + ]+) \|$", re.M)


def doc_text(doc: Path) -> str:
    return doc.read_text(encoding="utf-8")


def resolve(doc: Path, name: str) -> Path:
    for base in (ROOT, doc.parent):
        if (base / name).exists():
            return base / name
    return ROOT / name


def defined(path: Path, dotted: str) -> bool:
    """Whether the last part of `dotted` is a name in the file (def, class, field or constant)."""
    last = dotted.split(".")[-1]
    return re.search(rf"\b{re.escape(last)}\b", path.read_text(encoding="utf-8")) is not None


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_named_file_exists(doc):
    missing = [name for name in FILE.findall(doc_text(doc)) if not resolve(doc, name).exists()]
    assert not missing


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_named_function_is_in_its_file(doc):
    text = doc_text(doc)
    pairs = [(f, n) for f, names in FILE_AND_NAMES.findall(text) for n in NAME.findall(names)]
    pairs += [(f, n) for f, row in TABLE_ROW.findall(text) for n in NAME.findall(row)
              if not n.endswith(".py")]
    assert pairs, "the doc names functions"
    missing = [f"{f}: {n}" for f, n in pairs if not defined(resolve(doc, f), n)]
    assert not missing


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_bin_command_exists(doc):
    missing = [c for c in COMMAND.findall(doc_text(doc)) if not (ROOT / "bin" / c).exists()]
    assert not missing


def test_every_cited_failure_mode_is_in_the_list():
    listed = set(re.findall(r"^(\d+)\. ", (ROOT / "step42_plan_mode" / "failure_modes.md").read_text(),
                            re.M))
    cited = set()
    for path in ROOT.rglob("*.py"):
        if ".venv" in path.parts:
            continue
        cited |= set(re.findall(r"failure[ _]mode[ _](\d+)", path.read_text(encoding="utf-8")))
    assert cited and cited <= listed


def definitions(tree: ast.AST, prefix: str = "") -> dict[str, ast.AST]:
    """Every def, class, constant and field by dotted name, at module and class level."""
    found: dict[str, ast.AST] = {}
    for node in getattr(tree, "body", []):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        elif isinstance(node, ast.Assign):
            names = [target.id for target in node.targets if isinstance(target, ast.Name)]
        else:
            continue
        for name in names:
            found[prefix + name] = node
        if isinstance(node, ast.ClassDef):
            found.update(definitions(node, f"{prefix}{node.name}."))
    return found


def length(node: ast.AST) -> int:
    """Lines from the first decorator (or the definition itself) to the last line of its body."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return node.end_lineno - first + 1


def counted_lines(path: Path, row: str) -> str:
    """The lines cell a delta-table row should have: each named definition's length, or the file's."""
    defined = definitions(ast.parse(path.read_text(encoding="utf-8")))
    counts = []
    for name in NAME.findall(row):
        matches = [node for dotted, node in defined.items() if dotted == name or dotted.endswith("." + name)]
        if len(matches) == 1:
            counts.append(length(matches[0]))
    return " + ".join(map(str, counts or [len(path.read_text(encoding="utf-8").splitlines())]))


def test_the_step_41_delta_counts_the_lines_of_the_current_code():
    rows = DELTA_ROW.findall(doc_text(WALKTHROUGH))
    assert len(rows) >= 8, "the walkthrough's delta table has rows with line counts"
    drifted = [f"{file}: the table says {cell.strip()}, the code has {counted_lines(ROOT / file, row)}"
               for file, row, cell in rows if cell.strip() != counted_lines(ROOT / file, row)]
    assert not drifted


def test_the_readme_names_every_repl_command_and_every_flag():
    from index import argument_parser
    from ui.slash import command_names

    readme = doc_text(ROOT / "README.md")
    code = "\n".join(re.findall(r"```.*?```", readme, re.S) + re.findall(r"`[^`\n]+`", readme))
    flags = [flag for action in argument_parser()._actions for flag in action.option_strings
             if flag.startswith("--")]
    assert "--approve-plan" in flags and "/lesson" in command_names()
    missing = [name for name in command_names() + flags
               if not re.search(rf"(?<![\w/-]){re.escape(name)}(?![\w-])", code)]
    assert not missing, f"README.md does not name: {missing}"
