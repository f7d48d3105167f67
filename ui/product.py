"""The product: the layers stepagent attaches to the core, and one run as the command line asked.

`product_layers` lists the layers the product attaches to the core (agent/assemble.py),
each one function beside its feature. `run` builds the state and the model, injects the
UI callbacks — ExitPlanMode's `present`, the permission `approve` and AskUserQuestion's
`ask` (ui/callbacks.py) — and hands the agent to the REPL or to one headless turn. Which
model runs is ui/model_choice.py's; the store, its journal and resume are ui/startup.py's.
index.py imports this module only once the command line has been parsed (ui/command_line.py),
so `--help` and a bad flag load none of it.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

from rich.console import Console

from agent.assemble import Layer, assemble
from agent.plan_model import plan_model_layer, plan_model_of
from agent.subagents import subagent_layer
from hooks.configuration_edits import configuration_edits_layer
from hooks.session_rules import session_rules_layer
from models.base import Model
from session.compaction import compaction_layer
from session.context_tool import session_context_layer
from session.mentions import mentions_layer
from session.recording import Recorder, load_recording, replay_answers
from session.reminders import reminders_layer
from session.rewind.layer import rewind_layer
from session.live import NoSuchSession, Session
from session.home import default_home
from session.store import SessionStore
from settings.user_hooks import UserHooks, load_user_settings
from settings.user_layer import user_events_layer, user_rules_layer
from state import AppState
from tools.ask_user import Answers, Questionnaire, ask_user_layer
from tools.base import Judgement
from tools.bash.classifier.classify import classify
from tools.bash.layer import bash_layer
from tools.bash.sandbox.status import sandbox_status
from tools.bash.stop_left_running import stop_left_running_layer
from tools.list_models import list_models_layer
from tools.memory import memory_layer
from tools.plan_mode import PlanReview
from tools.line_ends import line_ends_layer, replaced
from tools.preview import preview_layer
from tools.safe_read import hardened_reads_layer, read_capped
from tools.search import search_layer
from tools.todos import todo_layer
from ui import startup
from ui.callbacks import UICallbacks, callbacks_for
from ui.console import ConsoleView
from ui.model_choice import choose_model, open_model, open_plan_model
from ui.modes import select
from ui.safe_text import safe
from ui.try_calls import NotCalls, read_calls
from ui.workspace_trust import off_line, trusted_workspace


def product_layers(home: Path | None = None, store: SessionStore | None = None,
                   ask: Callable[[Questionnaire], Answers] | None = None,
                   ask_timeout: float | None = None, window: tuple[int, float] = (128_000, 0.8),
                   classifier: Callable[[str], Judgement] = classify,
                   model_named: Callable[[str], Model] | None = None,
                   user_hooks: UserHooks | None = None) -> list[Layer]:
    """The product: what attaches to the core, in order. Sub-agents get the tool layers only.

    Without `home` there is no memory and no rewind, without `store` no ReadSessionContext
    (and rewind's checkpoints last only as long as the process), without `user_hooks` none of
    the user's settings (hooks and permission rules).
    """
    tool_layers: list[Layer] = [
        session_rules_layer,  # "yes, and don't ask again": the rules a yes adds
        hardened_reads_layer,  # Read, Write and Edit read host files the safe way
        partial(line_ends_layer, read_capped=read_capped),  # Edit keeps each file's line ends
        partial(bash_layer, classifier=classifier),  # judged once, sandboxed while planning
        search_layer,  # Glob and Grep: ripgrep, in a read-only view
        todo_layer,  # TodoWrite and TodoRead
        list_models_layer,  # ListModels: the endpoint's catalog
        partial(preview_layer, read_capped=read_capped,  # Write and Edit show their diff first
                edit_replace=replaced),  # the Edit's own replace, so the diff shown is the one made
    ]
    if home is not None:
        tool_layers.append(partial(memory_layer, home=home))  # Remember, Forget, the memory section
    if store is not None:
        tool_layers.append(partial(session_context_layer, store=store))  # ReadSessionContext
    if user_hooks is not None:
        tool_layers.append(partial(user_rules_layer, hooks=user_hooks))  # deny/ask/allow rules, tool hooks
    tool_layers.append(configuration_edits_layer)  # edit mode asks before a change in .git or .stepagent
    prompt_layers = [partial(user_events_layer, hooks=user_hooks)] if user_hooks is not None else []
    layers = [
        *tool_layers,
        partial(ask_user_layer, ask=ask, timeout=ask_timeout),  # AskUserQuestion
        stop_left_running_layer,  # plan mode stops what Bash calls left running
        partial(subagent_layer, child_layers=tool_layers, model_named=model_named),  # Agent
        plan_model_layer,  # while planning, requests (a sub-agent's too) go to the plan model
        partial(compaction_layer, window_tokens=window[0], share=window[1]),
        reminders_layer,  # plan-mode, plan-ended and todo reminders
        mentions_layer,  # a #sess_… in the user's message points at ReadSessionContext
        *prompt_layers,  # the user's UserPromptSubmit, SessionStart and Stop hooks
    ]
    if home is not None:  # a checkpoint before each prompt, and /rewind
        layers.append(partial(rewind_layer, home=home, store=store))
    return layers


def run(args: argparse.Namespace) -> int:
    """Run stepagent as the checked command line asks; the return value is the exit code."""
    headless, workspace, home = args.prompt is not None or args.try_calls, Path.cwd(), default_home()
    if args.doctor:
        from ui.doctor import run_doctor

        return run_doctor(lambda: choose_model(args.script, args.model, lesson=args.lesson,
                                               deadline=args.timeout)[0])
    view = console_view(bool(headless))
    if args.resume == "":
        return startup.list_sessions(startup.open_store(home, view), workspace, view)
    if args.export_html is not None:
        from ui.export import export_from_command_line

        return export_from_command_line(startup.open_store(home, view), workspace, args.resume or "",
                                        args.export_html, view)
    started = start(args, AppState(), view)
    if isinstance(started, int):
        return started
    session = started.session
    if args.check:
        from ui.replay import run_check

        return run_check(session.agent, load_recording(args.script), view)
    if headless:
        from ui.headless import run_headless

        return run_headless(session.agent, args.prompt, view, args.output_format,
                            saved=lambda: session.store is not None)
    from ui.prompt import history_at, repl_prompt
    from ui.repl import run_repl

    prompt = repl_prompt(session.agent.state, history_at(home / "history"), lambda: session,
                         lambda: session.agent.model.name, session.context_line, session.todos)
    return run_repl(session, view, prompt, args.message or "", started.callbacks)


def console_view(headless: bool) -> ConsoleView:
    """The screen: the REPL's, or -p's (everything but the answer on standard error)."""
    return ConsoleView(Console(stderr=headless, soft_wrap=headless), stream_markdown=not headless,
                       repl=not headless, sandbox_status=sandbox_status)


@dataclass(frozen=True)
class Started:
    """A live session with the screen it shows on and the questions it puts to the user."""

    session: Session
    callbacks: UICallbacks


def start(args: argparse.Namespace, state: AppState, view: ConsoleView) -> Started | int:
    """The model, the store, the questions, the user's settings and the agent, as a live session.

    It is resumed if asked and in the mode asked; an exit code comes back instead when it
    cannot start, or when --try-calls has run.
    """
    headless, workspace, home = args.prompt is not None or args.try_calls, Path.cwd(), default_home()
    resuming = bool(args.resume or args.continue_latest)
    store = startup.open_store(home, view) if resuming else None
    try:
        calls = read_calls(args.try_calls) if args.try_calls else []
        wanted = startup.session_named(store, workspace, args.resume, args.continue_latest)
    except (NotCalls, NoSuchSession) as failure:
        print(f"stepagent: {safe(str(failure))}", file=sys.stderr)
        return 2
    model = open_model(args.script, args.model, view, lesson=args.lesson, deadline=args.timeout,
                       plan_name=args.plan_model, announce=not args.try_calls)
    if model is None:
        return 2
    plan_model = open_plan_model(args.plan_model, model)
    if plan_model is None:
        return 2
    if not resuming:
        store = startup.open_store(home, view)
    callbacks = callbacks_for(view, state, headless, args.approve_plan)
    present, approve, ask, confirm = callbacks[:4]
    user_hooks = open_user_settings(home, workspace, view, confirm, args.trust_workspace)
    if args.try_calls:
        return try_calls_from(args, calls, state, model, present, view, user_hooks)
    state.events.subscribe(view.on_event)
    if args.check:
        present, approve = replay_answers(load_recording(args.script))
    if args.record:
        recorder = Recorder(args.record, state, workspace, f"Recorded with {model.name}")
        state.events.subscribe(recorder.on_event)
    agent = assemble(workspace, state, model, present, approve,
                     product_layers(home, store, ask, args.ask_timeout,
                                    (args.context_window, args.compact_at), user_hooks=user_hooks))
    startup.show_agent_on(view, agent)
    session = startup.open_session(agent, store, home, view, args.context_window)
    session.user_hooks = user_hooks
    callbacks.bind(session)
    failed = startup.resume_if_asked(wanted, session, view, confirm)
    if failed is not None:
        return failed
    if args.plan_model is not None:
        plan_model_of(state).choose(plan_model, "--plan-model")
    if args.mode:
        planning = state.plan_mode
        select(state, args.mode, f"--mode {args.mode}")
        if planning and not state.plan_mode:
            view.notice(f"The resumed session was planning: --mode {args.mode} left plan mode, and "
                        "no plan was approved.", style="yellow")
    return Started(session, callbacks)


def open_user_settings(home: Path, workspace: Path, view: ConsoleView,
                       confirm: Callable[[str], bool] | None, trust_flag: bool) -> UserHooks:
    """The user's hooks and rules for this run: trust asked about once, each problem one line."""
    loaded = load_user_settings(home, workspace, trusted_workspace(home, workspace, view, confirm,
                                                                   trust_flag))
    for problem in loaded.settings.problems:
        view.error(problem)
    if off := off_line(home, workspace, loaded.waiting_for_trust, asked=confirm is not None):
        view.notice(off, style="yellow")
    return UserHooks(loaded.settings, workspace, home, notify=view.error, waiting=loaded.waiting_for_trust,
                     running=view.running_hook)


def try_calls_from(args: argparse.Namespace, calls: list[dict], state: AppState, model: Model,
                   present: Callable[[str], PlanReview], view: ConsoleView, user_hooks: UserHooks) -> int:
    """--try-calls FILE: its calls decided by the hooks and rules, nothing run (ui/try_calls.py)."""
    from ui.try_calls import try_calls, would_ask

    agent = assemble(Path.cwd(), state, model, present, would_ask,
                     product_layers(default_home(), user_hooks=user_hooks))
    if args.mode:
        select(state, args.mode, "--mode")
    return try_calls(agent, calls, view)
