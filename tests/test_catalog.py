"""The model catalog: reading /models as each server family writes it, and resolving names."""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.catalog import (CatalogUnavailable, ModelInfo, UnknownModel, format_catalog,
                            parse_catalog, resolve_model)
from models.openai_chat import OpenAIChatModel
from models.scripted import ScriptedModel
from tests.fake_families import FAMILIES

VLLM_ENTRY = {"id": "Qwen/Qwen2.5-Coder-7B-Instruct", "object": "model", "owned_by": "vllm",
              "max_model_len": 32768}
LLAMA_CPP_ENTRY = {"id": "qwen2.5-coder.gguf", "object": "model", "owned_by": "llamacpp",
                   "meta": {"n_ctx_train": 131072, "n_ctx": 8192, "n_vocab": 151936}}
OLLAMA_ENTRY = {"id": "qwen2.5-coder:latest", "object": "model", "owned_by": "library"}


def test_each_family_s_context_window_is_read():
    models = parse_catalog({"data": [VLLM_ENTRY, LLAMA_CPP_ENTRY, OLLAMA_ENTRY]})
    windows = {model.id: model.context_window for model in models}
    assert windows == {"Qwen/Qwen2.5-Coder-7B-Instruct": 32768, "qwen2.5-coder.gguf": 8192,
                       "qwen2.5-coder:latest": None}


def test_the_listing_marks_the_current_model_one_per_line():
    models = parse_catalog({"data": [VLLM_ENTRY, OLLAMA_ENTRY]})
    lines = format_catalog(models, "qwen2.5-coder:latest").splitlines()
    assert lines == ["Qwen/Qwen2.5-Coder-7B-Instruct  (vllm)  context 32k tokens",
                     "qwen2.5-coder:latest  (library)  [current]"]


@pytest.mark.parametrize("name, expected", [
    ("gpt-4o", "gpt-4o"),
    ("GPT-4O", "gpt-4o"),
    ("qwen2.5-coder-7b-instruct", "Qwen/Qwen2.5-Coder-7B-Instruct"),
    ("llama3.2", "llama3.2:latest"),
])
def test_names_resolve_case_insensitively_to_one_id(name, expected):
    models = [ModelInfo(i) for i in ("gpt-4o", "gpt-4o-mini", "Qwen/Qwen2.5-Coder-7B-Instruct",
                                     "llama3.2:latest", "llama3.2:1b")]
    assert resolve_model(name, models) == expected


def test_an_unknown_name_lists_at_most_40_ids_nearest_first():
    models = [ModelInfo(f"model-{n:03d}") for n in range(60)] + [ModelInfo("gpt-4o-mini")]
    with pytest.raises(UnknownModel) as failure:
        resolve_model("gpt-4o-mimi", models)
    listed = str(failure.value).split("nearest first: ")[1].split(", ")
    assert listed[0] == "gpt-4o-mini" and len(listed) == 40


def test_an_ambiguous_bare_name_is_an_error_naming_the_candidates():
    models = [ModelInfo("a/coder"), ModelInfo("b/coder")]
    with pytest.raises(UnknownModel, match="ambiguous.*a/coder.*b/coder"):
        resolve_model("coder", models)


def test_the_catalog_is_read_from_the_server(server):
    server.models = [VLLM_ENTRY, OLLAMA_ENTRY]
    models = OpenAIChatModel("m", "k", server.url).list_models()
    assert [model.id for model in models] == ["Qwen/Qwen2.5-Coder-7B-Instruct", "qwen2.5-coder:latest"]


def test_a_server_without_a_catalog_is_a_missing_capability(server):
    server.family = replace(FAMILIES["openai"], catalog=None)
    with pytest.raises(CatalogUnavailable, match="no model catalog.*nothing is misconfigured"):
        OpenAIChatModel("m", "k", server.url).list_models()


def test_a_scripted_model_has_a_catalog_only_when_given_one():
    with pytest.raises(CatalogUnavailable):
        ScriptedModel([]).list_models()
    assert ScriptedModel([], catalog=[ModelInfo("x")]).list_models() == [ModelInfo("x")]
