"""ListModels: the endpoint's model catalog, one model per line, for choosing a sub-agent's model.

It reads the catalog afresh on every call through an injected callable (the
model client's `list_models`), so this file needs neither openai nor a network.
It changes nothing, so it runs while planning and never asks. An endpoint
without a catalog is reported as a capability the endpoint lacks, not as a
setting the user forgot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from models.base import ModelError
from models.catalog import CatalogUnavailable, ModelInfo, format_catalog
from tools.base import Tool, ToolResult, error, object_schema

if TYPE_CHECKING:
    from agent.loop import Agent

MAX_OUTPUT_CHARS = 24_000
DESCRIPTION = ("List the models this endpoint offers, one per line, with the context window where "
               "the server reports it; the session's model is marked [current]. Use it to pick a "
               "`model` for a sub-agent. It does NOT change the model you run on: the session's "
               "model is the user's choice, and only the user changes it (/model).")


def make_list_models_tool(list_models: Callable[[], list[ModelInfo]] | None,
                          current: Callable[[], str]) -> Tool:
    """The ListModels tool over a catalog reader; None means the model has no catalog at all."""
    def run(args: dict[str, Any]) -> ToolResult:
        if list_models is None:
            return error("model_catalog_unavailable: this model has no catalog to list. That is a "
                         "capability it lacks, not a missing configuration; keep the current model.")
        try:
            models = list_models()
        except CatalogUnavailable as missing:
            return error(f"model_catalog_unavailable: {missing}. Keep the current model.")
        except ModelError as failure:
            return error(f"Could not read the model catalog: {failure}")
        listing = format_catalog(models, current())
        if len(listing) > MAX_OUTPUT_CHARS:
            listing = listing[:MAX_OUTPUT_CHARS].rsplit("\n", 1)[0] + "\n[… more models not shown]"
        return ToolResult(listing)

    return Tool("ListModels", DESCRIPTION, object_schema({}), run, read_only=True)


def list_models_layer(agent: "Agent") -> None:
    """The layer: ListModels over the agent's model's catalog, if it has one."""
    tool = make_list_models_tool(getattr(agent.model, "list_models", None), lambda: agent.model.name)
    agent.executor.tools[tool.name] = tool
