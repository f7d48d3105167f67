"""Every public class and function says what it is for in one line: its docstring's summary.

Public means a name without a leading underscore, at the top of a module or inside a
public class (nested classes too), in the project's own code (tests and bench aside). Functions
defined inside other functions are details of those and are not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_layout import ROOT, source_files

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def public_definitions(tree: ast.AST, prefix: str = "") -> list[tuple[str, ast.AST]]:
    """Each public def and class under `tree`, by dotted name, without entering function bodies."""
    found = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, DEFINITIONS):
            if not node.name.startswith("_"):
                found.append((prefix + node.name, node))
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found += public_definitions(node, f"{prefix}{node.name}.")
        elif not isinstance(node, ast.Lambda):
            found += public_definitions(node, prefix)
    return found


def summary_problem(docstring: str | None) -> str | None:
    """What is wrong with a docstring's summary line, or None when it is a complete one-liner."""
    if not docstring or not docstring.strip():
        return "no docstring"
    lines = docstring.strip().splitlines()
    if not lines[0].rstrip().endswith((".", "?", "!")):
        return "the first line is not a whole sentence"
    if len(lines) > 1 and lines[1].strip():
        return "the summary runs on to a second line"
    return None


def problems_in(path: Path) -> list[str]:
    """`file: name: problem` for each public definition of the file whose summary is missing or broken."""
    where = path.relative_to(ROOT).as_posix()
    found = []
    for name, node in public_definitions(ast.parse(path.read_text(encoding="utf-8"))):
        problem = summary_problem(ast.get_docstring(node))
        if problem:
            found.append(f"{where}:{node.lineno}: {name}: {problem}")
    return found


def test_every_public_class_and_function_has_a_one_line_summary():
    problems = [problem for path in source_files() for problem in problems_in(path)]
    assert not problems, "\n".join(problems)


def test_the_check_sees_what_it_must():
    tree = ast.parse('def f():\n    def inner(): pass\nclass C:\n    def m(self): pass\n'
                     '    def _private(self): pass\n    class D:\n        def n(self): pass\n'
                     'if True:\n    def g(): pass\nclass _E:\n    def hidden(self): pass\n')
    assert [name for name, _ in public_definitions(tree)] == ["f", "C", "C.m", "C.D", "C.D.n", "g"]
    assert summary_problem(None) == "no docstring"
    assert summary_problem("Runs on\n    to the next line.") == "the first line is not a whole sentence"
    assert summary_problem("One line.\nAnd more.") == "the summary runs on to a second line"
    assert summary_problem("One line.\n\n    Then the details.") is None
