"""Check a call's arguments against its tool's JSON schema, before any hook runs.

Covers what our schemas use: object, string, integer, boolean, array, required,
enum, minimum/maximum, minLength/maxLength, minItems/maxItems, pattern and
additionalProperties. The message says
which argument is wrong, so the model can correct itself.
"""

from __future__ import annotations

import re
from typing import Any

TYPES = {"object": dict, "string": str, "integer": int, "boolean": bool, "array": list,
         "number": (int, float)}


def schema_errors(value: Any, schema: dict[str, Any], where: str = "arguments") -> list[str]:
    """Every way `value` breaks `schema`, each naming the argument; empty when it fits."""
    expected = schema.get("type")
    if expected and not _is_type(value, expected):
        return [f"{where} must be {expected}, got {type(value).__name__}"]
    problems: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where} must be one of {', '.join(map(str, schema['enum']))}")
    if "minimum" in schema and value < schema["minimum"]:
        problems.append(f"{where} must be at least {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        problems.append(f"{where} must be at most {schema['maximum']}")
    if "minLength" in schema and len(value) < schema["minLength"]:
        problems.append(f"{where} must not be empty")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        problems.append(f"{where} must be at most {schema['maxLength']} characters")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        problems.append(f"{where} must match {schema['pattern']}")
    if "minItems" in schema and len(value) < schema["minItems"]:
        problems.append(f"{where} must have at least {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        problems.append(f"{where} must have at most {schema['maxItems']} items")
    if expected == "object":
        properties = schema.get("properties", {})
        problems += [f"{where}.{name} is required" for name in schema.get("required", [])
                     if name not in value]
        if schema.get("additionalProperties") is False:
            problems += [f"{where}.{name} is not a known argument" for name in value
                         if name not in properties]
        for name, item in value.items():
            if name in properties:
                problems += schema_errors(item, properties[name], f"{where}.{name}")
    if expected == "array" and "items" in schema:
        for index, item in enumerate(value):
            problems += schema_errors(item, schema["items"], f"{where}[{index}]")
    return problems


def _is_type(value: Any, expected: str) -> bool:
    if isinstance(value, bool) and expected in {"integer", "number"}:
        return False
    return isinstance(value, TYPES[expected])
