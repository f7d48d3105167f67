"""The endpoint's model catalog (`GET /models`) and resolving a model name against it.

Used by `--model` at start, by the ListModels tool, by `/model` and by the
sub-agent `model` argument. A server without a catalog is a missing capability,
not a missing configuration: CatalogUnavailable says so. Servers describe their
models differently; the context window is read where a server reports one
(vLLM's `max_model_len`, llama.cpp's `meta.n_ctx`, `context_length` elsewhere).

Name resolution, case-insensitive: the full id; else a bare name that is the
last part of exactly one id (`Llama-3-8B` for `meta-llama/Llama-3-8B`) or one
id's Ollama `:latest` tag. Anything else is an error listing up to 40 ids,
nearest first.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable

from models.base import ModelError

MAX_LISTED = 40
CATALOG_TIMEOUT = 10.0
CONTEXT_KEYS = ("context_window", "context_length", "max_model_len", "max_context_length")


@dataclass(frozen=True)
class ModelInfo:
    """One model the endpoint offers."""

    id: str
    owned_by: str = ""
    context_window: int | None = None


class CatalogUnavailable(ModelError):
    """The endpoint lists no models: a capability it lacks, not a setting the user missed."""


class UnknownModel(ModelError):
    """A model name that matches no id, or more than one, in the catalog."""


def parse_catalog(body: Any) -> list[ModelInfo]:
    """The models in a `/models` response body; CatalogUnavailable when it is not a list of models."""
    entries = body.get("data") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        raise CatalogUnavailable("the endpoint's /models answer is not a model list")
    models = [ModelInfo(entry["id"], str(entry.get("owned_by") or ""), _context_window(entry))
              for entry in entries if isinstance(entry, dict) and isinstance(entry.get("id"), str)]
    return sorted(models, key=lambda model: model.id.lower())


def _context_window(entry: dict[str, Any]) -> int | None:
    meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
    for value in [*(entry.get(key) for key in CONTEXT_KEYS), meta.get("n_ctx"), meta.get("n_ctx_train")]:
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def fetch_catalog(client: Any, endpoint: str) -> list[ModelInfo]:
    """GET /models through an openai client; a ModelError for anything but a model list."""
    import openai

    try:
        body = client.get("/models", cast_to=object, options={"timeout": CATALOG_TIMEOUT})
    except openai.AuthenticationError as exc:
        raise ModelError(f"{endpoint} refused the API key (HTTP {exc.status_code}); "
                         "check OPENAI_API_KEY.") from None
    except openai.APIStatusError as exc:
        raise CatalogUnavailable(f"{endpoint} has no model catalog (GET /models answered HTTP "
                                 f"{exc.status_code}); this server cannot list its models, "
                                 "nothing is misconfigured") from None
    except openai.APIConnectionError:
        raise ModelError(f"cannot reach {endpoint} to list its models") from None
    try:
        return parse_catalog(body)
    except CatalogUnavailable:
        raise CatalogUnavailable(f"{endpoint} has no model catalog (GET /models did not answer "
                                 "with a model list); this server cannot list its models, "
                                 "nothing is misconfigured") from None


def describe(model: ModelInfo, current: str) -> str:
    """One catalog line: id, owner, context window, and `[current]` for the session's model."""
    parts = [model.id]
    if model.owned_by:
        parts.append(f"({model.owned_by})")
    if model.context_window:
        parts.append(f"context {_tokens(model.context_window)}")
    if model.id == current:
        parts.append("[current]")
    return "  ".join(parts)


def format_catalog(models: list[ModelInfo], current: str) -> str:
    """The whole catalog, one model per line; a last line when the session's model is not in it."""
    lines = [describe(model, current) for model in models] or ["(the catalog is empty)"]
    if current and current not in {model.id for model in models}:
        lines.append(f"The session's model, {current}, is not in this catalog: requests to it may fail.")
    return "\n".join(lines)


def _tokens(count: int) -> str:
    return f"{count // 1024}k tokens" if count % 1024 == 0 else f"{count:,} tokens"


def resolve_model(name: str, models: list[ModelInfo]) -> str:
    """The catalog id `name` means; UnknownModel (listing nearest ids) when none or several."""
    ids = [model.id for model in models]
    if name in ids:
        return name
    wanted = name.strip().lower()
    for rule in (_same, _bare_name, _latest_tag):
        matches = [model_id for model_id in ids if rule(wanted, model_id.lower())]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise UnknownModel(f"model {name!r} is ambiguous here; it could be: "
                               f"{', '.join(nearest(name, matches))}")
    raise UnknownModel(f"no model {name!r} at this endpoint; available, nearest first: "
                       f"{', '.join(nearest(name, ids)) or '(none)'}")


def _same(wanted: str, model_id: str) -> bool:
    return wanted == model_id


def _bare_name(wanted: str, model_id: str) -> bool:
    return "/" in model_id and model_id.rsplit("/", 1)[1] == wanted


def _latest_tag(wanted: str, model_id: str) -> bool:
    return model_id == f"{wanted}:latest"


def checked_name(name: str, list_models: Callable[[], list[ModelInfo]]) -> str:
    """The catalog's id for `name`; UnknownModel when the catalog lacks it.

    The name itself when the endpoint has no catalog or cannot be reached: the
    first request will say why.
    """
    try:
        models = list_models()
    except ModelError:
        return name
    return resolve_model(name, models)


def nearest(name: str, ids: list[str], limit: int = MAX_LISTED) -> list[str]:
    """Up to `limit` ids, the most similar to `name` first."""
    key: Callable[[str], float] = lambda model_id: -difflib.SequenceMatcher(
        None, name.lower(), model_id.lower()).ratio()
    return sorted(ids, key=lambda model_id: (key(model_id), model_id))[:limit]
