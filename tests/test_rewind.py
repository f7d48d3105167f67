"""Rewind through the whole session: checkpoints before each prompt, /rewind N restoring the
files (Bash's changes too), the conversation, the modes, the todos and the plan; undoing a
rewind; a resumed session rewinding again."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.events import ModeChanged
from models.catalog import ModelInfo
from session.plan_revisions import saved_plan
from session.rewind.checkpoints import RewindRefused
from session.rewind.layer import rewind_of
from session.store import SessionStore
from tests.harness import call, journaled, turn
from tests.test_rewind_snapshots import fingerprint
from tools.todos import todos_of
from ui.export import export_markdown, export_page
from ui.rewind_command import run_rewind
from ui.slash import run_slash_command

TODOS = [{"content": "Write the greeting", "status": "in_progress", "activeForm": "Writing it"}]


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "home" / "sessions.db")


def rewindable(workspace: Path, store: SessionStore, turns: list, **options):
    """A journaled test session of the product (rewind attached, as it is with a home), and its Rewind."""
    session, live = journaled(workspace, store, turns, home=store.path.parent, **options)
    return session, live, rewind_of(session.agent)


class Asked:
    """A yes/no answerer that keeps every question it was asked."""

    def __init__(self, answer: bool) -> None:
        self.answer, self.questions = answer, []

    def __call__(self, question: str) -> bool:
        self.questions.append(question)
        return self.answer


def user_texts(request: list[dict]) -> list[str]:
    return [m["content"] for m in request if m["role"] == "user"]


def two_prompts(workspace: Path, store: SessionStore, extra: list | None = None):
    """Prompt 1 Writes new.txt; prompt 2 changes changed.txt through Bash and deletes gone.txt."""
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / "changed.txt").write_text("before\n")
    (workspace / "gone.txt").write_text("keep me\n")
    session, live, rewind = rewindable(workspace, store, [
        turn("", call("Write", file_path="new.txt", content="new\n")), turn("written"),
        turn("", call("Bash", command="echo after > changed.txt && rm gone.txt")), turn("done"),
        *(extra or [])], mode="yolo")
    session.run("write new.txt")
    session.run("change one file and delete another")
    assert (workspace / "new.txt").exists() and not (workspace / "gone.txt").exists()
    return session, live, rewind


def test_rewind_to_the_first_prompt_brings_every_file_back_and_the_model_hears_neither_prompt(
        workspace: Path, store: SessionStore):
    git_before = None
    session, _, rewind = two_prompts(workspace, store, [turn("fresh start")])
    git_before = fingerprint(workspace / ".git")
    listed = rewind.listing()
    assert [(item.checkpoint.number, item.checkpoint.label) for item in listed] == [
        (1, "write new.txt"), (2, "change one file and delete another")]
    assert [(c.status, c.path) for c in listed[0].changes] == [("A", "new.txt")]
    assert sorted((c.status, c.path) for c in listed[1].changes) == [("D", "gone.txt"),
                                                                     ("M", "changed.txt")]

    done = rewind.rewind(1)

    assert not (workspace / "new.txt").exists()
    assert (workspace / "changed.txt").read_text() == "before\n"
    assert (workspace / "gone.txt").read_text() == "keep me\n"
    assert done.messages == 0 and session.agent.messages == []
    session.run("start again")
    assert user_texts(session.last_request()) == ["start again"]
    assert fingerprint(workspace / ".git") == git_before


def test_a_file_the_gitignore_lists_is_named_when_a_rewind_cannot_bring_it_back(
        workspace: Path, store: SessionStore):
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / ".gitignore").write_text("lesson.txt\n")
    session, _, rewind = rewindable(workspace, store, [
        turn("", call("Write", file_path="lesson.txt", content="hello\n"),
             call("Write", file_path="kept.txt", content="kept\n")), turn("written")], mode="yolo")
    session.run("write two files")
    shown, failed = run_rewind(rewind, "1 code", Asked(True))
    assert not failed and not (workspace / "kept.txt").exists()
    assert (workspace / "lesson.txt").exists()
    kept_out = next(line for line in shown.splitlines() if "lesson.txt" in line)
    assert ".gitignore" in kept_out and "kept.txt" not in kept_out
    assert "removed (1): kept.txt" in shown, "the file the rewind removed is named as removed"


def test_undoing_a_rewind_brings_the_agents_file_back_and_does_not_blame_a_gitignore(
        workspace: Path, store: SessionStore):
    session, _, rewind = rewindable(workspace, store, [
        turn("", call("Write", file_path="greeting.txt", content="hello\n")), turn("written")],
        mode="yolo")
    session.run("write a greeting")
    run_rewind(rewind, "1", Asked(True))
    assert not (workspace / "greeting.txt").exists()

    shown, failed = run_rewind(rewind, "2", Asked(True))

    assert not failed and (workspace / "greeting.txt").read_text() == "hello\n"
    assert "1 written back" in shown and ".gitignore" not in shown


def test_a_rewind_is_listed_and_restoring_what_it_checkpointed_undoes_it(
        workspace: Path, store: SessionStore):
    session, _, rewind = two_prompts(workspace, store, [turn("both prompts are back")])
    history = list(session.agent.messages)
    undo = rewind.rewind(1).undo
    entries = store.entries(session.state.session_id)
    assert "rewound here to checkpoint 1" in export_markdown(session.state.session_id, entries)
    assert "rewound here to checkpoint 1" in export_page(session.state.session_id, entries, workspace)
    assert (undo.number, undo.kind, undo.label) == (3, "rewind", "/rewind 1")
    assert sorted((c.status, c.path) for c in rewind.listing()[2].changes) == [
        ("A", "gone.txt"), ("D", "new.txt"), ("M", "changed.txt")]

    rewind.rewind(3)

    assert (workspace / "new.txt").read_text() == "new\n"
    assert (workspace / "changed.txt").read_text() == "after\n"
    assert not (workspace / "gone.txt").exists()
    assert session.agent.messages == history
    session.run("go on")
    assert user_texts(session.last_request()) == [
        "write new.txt", "change one file and delete another", "go on"]


def test_code_alone_or_conversation_alone(workspace: Path, store: SessionStore):
    session, _, rewind = two_prompts(workspace, store)
    history = list(session.agent.messages)
    rewind.rewind(2, "code")
    assert (workspace / "gone.txt").exists() and session.agent.messages == history
    rewind.rewind(2, "conversation")
    assert (workspace / "gone.txt").exists()
    assert user_texts(session.agent.messages) == ["write new.txt"]


def test_a_resumed_session_rewinds_its_stored_checkpoints(workspace: Path, store: SessionStore):
    first, _, _ = two_prompts(workspace, store)
    session_id = first.state.session_id
    second, live, rewind = rewindable(workspace, store, [turn("after the resume")])
    live.resume(session_id)
    assert [item.checkpoint.label for item in rewind.listing()] == [
        "write new.txt", "change one file and delete another"]

    rewind.rewind(2)

    assert (workspace / "gone.txt").read_text() == "keep me\n"
    assert (workspace / "new.txt").exists()
    second.run("again")
    assert user_texts(second.last_request()) == ["write new.txt", "again"]
    third, live, rewind = rewindable(workspace, store, [])
    live.resume(session_id)
    assert user_texts(third.agent.messages) == ["write new.txt", "again"]
    assert [item.checkpoint.label for item in rewind.listing()][2:] == ["/rewind 2", "again"]


def test_the_conversation_comes_back_with_plan_mode_the_todos_and_the_plan(
        workspace: Path, store: SessionStore):
    session, live, rewind = rewindable(workspace, store, [
        turn("", call("TodoWrite", todos=TODOS), call("ExitPlanMode", plan="# Greet\nWrite it.")),
        turn("", call("Write", file_path="hello.txt", content="hi\n")), turn("written")],
        plan_answers=["y"], mode="edit")
    session.state.enter_plan_mode("/plan")
    session.run("plan a greeting")
    session.run("now write it")
    assert not session.state.plan_mode and todos_of(session.state)
    assert saved_plan(workspace, session.state.session_id) is not None
    changes: list[ModeChanged] = []
    session.state.events.subscribe(lambda e: changes.append(e) if isinstance(e, ModeChanged) else None)

    rewind.rewind(1)

    assert session.state.plan_mode and session.state.permission_mode.value == "edit"
    assert [(e.plan_mode, e.cause) for e in changes] == [(True, "/rewind 1")]
    assert todos_of(session.state) == ()
    assert saved_plan(workspace, session.state.session_id) is None
    assert not (workspace / "hello.txt").exists()

    rewind.rewind(2, "conversation")
    assert session.state.plan_mode is False and [t.content for t in todos_of(session.state)] == [
        "Write the greeting"]
    assert saved_plan(workspace, session.state.session_id).read_text() == "# Greet\nWrite it.\n"
    assert changes[-1] == ModeChanged(False, "edit", "/rewind 2")


def test_while_planning_a_checkpoint_changes_nothing_in_the_workspace(
        workspace: Path, store: SessionStore):
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / "a.txt").write_text("a\n")
    session, _, rewind = rewindable(workspace, store, [turn("just looking")])
    session.state.enter_plan_mode("/plan")
    before = fingerprint(workspace)
    session.run("look around")
    assert fingerprint(workspace) == before
    assert rewind.checkpoints()[0].commit and rewind.checkpoints()[0].plan_mode


def test_without_git_the_session_goes_on_and_only_the_conversation_can_rewind(
        workspace: Path, store: SessionStore, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    session, _, rewind = rewindable(workspace, store, [turn("fine")])
    assert session.run("hello").ending == "answered"
    assert "git cannot run" in rewind.checkpoints()[0].problem
    with pytest.raises(RewindRefused, match="holds no snapshot of the files"):
        rewind.rewind(1)
    rewind.rewind(1, "conversation")
    assert session.agent.messages == []


def test_a_checkpoint_that_does_not_exist_is_refused_with_the_range(
        workspace: Path, store: SessionStore):
    session, _, rewind = rewindable(workspace, store, [turn("one")])
    with pytest.raises(RewindRefused, match="none yet"):
        rewind.rewind(1)
    session.run("first")
    with pytest.raises(RewindRefused, match=r"1 to 1"):
        rewind.rewind(4)


def test_the_conversation_comes_back_with_the_plan_model_chosen_then(
        workspace: Path, store: SessionStore):
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    session, live, rewind = rewindable(workspace, store, [turn("looked"), turn("looked again")])
    session.model.catalog = [ModelInfo("planner"), ModelInfo("deep-planner")]
    session.state.enter_plan_mode("/plan")
    session.run("look around")
    run_slash_command("/model plan planner", live)
    session.run("look again")
    run_slash_command("/model plan deep-planner", live)
    assert session.agent.model.name == "deep-planner"

    rewind.rewind(2)
    assert session.agent.model.name == "planner"
    assert "  ◆ plan model → planner (by /rewind 2)" in live.trace()
    rewind.rewind(1)
    assert session.agent.model.name == "scripted"
    assert run_slash_command("/model plan", live).message.startswith("No plan model")

    resumed, live, rewind = rewindable(workspace, store, [])
    live.resume(session.state.session_id)
    rewind.rewind(2, "conversation")
    assert resumed.agent.model.name == "planner", "the stored checkpoint keeps the plan model"


def by_hand_after_the_first_prompt(workspace: Path, store: SessionStore):
    """Prompt 1 Writes new.txt and changes changed.txt; then, outside the agent, the user
    makes mywork.txt and notes/plan.txt by hand."""
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / "changed.txt").write_text("before\n")
    session, live, rewind = rewindable(workspace, store, [
        turn("", call("Write", file_path="new.txt", content="new\n"),
             call("Write", file_path="changed.txt", content="after\n")), turn("written")],
        mode="yolo")
    session.run("write new.txt")
    (workspace / "mywork.txt").write_text("my notes\n")
    (workspace / "notes").mkdir()
    (workspace / "notes" / "plan.txt").write_text("mine too\n")
    return session, live, rewind


def test_a_rewind_that_would_remove_a_file_made_by_hand_names_it_and_no_keeps_everything(
        workspace: Path, store: SessionStore):
    session, live, rewind = by_hand_after_the_first_prompt(workspace, store)
    history, checkpoints = list(session.agent.messages), len(rewind.checkpoints())
    asked = Asked(False)

    outcome = run_slash_command("/rewind 1", live, asked)

    [question] = asked.questions
    assert question.splitlines()[-1] == "Rewind the files?"
    removing = next(line for line in question.splitlines() if "remove" in line)
    assert {"mywork.txt", "new.txt", "notes/plan.txt"} <= set(removing.split())
    assert "changed.txt" in next(line for line in question.splitlines() if "write back" in line)
    assert not outcome.is_error and "Not rewound" in outcome.message
    assert (workspace / "mywork.txt").read_text() == "my notes\n"
    assert (workspace / "notes" / "plan.txt").read_text() == "mine too\n"
    assert (workspace / "new.txt").exists() and (workspace / "changed.txt").read_text() == "after\n"
    assert session.agent.messages == history and len(rewind.checkpoints()) == checkpoints


def test_yes_removes_the_file_made_by_hand_and_the_answer_names_it(
        workspace: Path, store: SessionStore):
    session, live, rewind = by_hand_after_the_first_prompt(workspace, store)

    outcome = run_slash_command("/rewind 1", live, Asked(True))

    assert not outcome.is_error
    assert not (workspace / "mywork.txt").exists() and not (workspace / "notes").exists()
    assert (workspace / "changed.txt").read_text() == "before\n"
    removed = next(line for line in outcome.message.splitlines() if line.lstrip().startswith("removed"))
    assert {"mywork.txt", "new.txt", "notes/plan.txt"} <= set(removed.split())
    assert "changed.txt" in next(line for line in outcome.message.splitlines()
                                 if line.lstrip().startswith("written back"))
    assert session.agent.messages == []
    run_slash_command("/rewind 2", live, Asked(True))
    assert (workspace / "mywork.txt").read_text() == "my notes\n"


def test_many_paths_are_capped_in_the_question(workspace: Path, store: SessionStore):
    _, live, _ = by_hand_after_the_first_prompt(workspace, store)
    for number in range(6):
        (workspace / f"extra{number}.txt").write_text("x\n")
    asked = Asked(False)
    run_slash_command("/rewind 1", live, asked)
    removing = next(line for line in asked.questions[0].splitlines() if "remove" in line)
    assert removing.endswith("and 5 more")


def test_nothing_is_asked_when_the_files_part_changes_nothing_or_for_the_conversation_alone(
        workspace: Path, store: SessionStore):
    session, live, rewind = by_hand_after_the_first_prompt(workspace, store)
    asked = Asked(False)
    assert not run_slash_command("/rewind 1 conversation", live, asked).is_error
    assert (workspace / "mywork.txt").exists() and session.agent.messages == []
    assert not run_slash_command("/rewind 2 code", live, asked).is_error
    assert asked.questions == []


def test_with_nobody_to_ask_a_rewind_that_would_remove_files_is_refused_and_names_them(
        workspace: Path, store: SessionStore):
    session, live, _ = by_hand_after_the_first_prompt(workspace, store)
    history = list(session.agent.messages)

    outcome = run_slash_command("/rewind 1", live)

    assert outcome.is_error and "mywork.txt" in outcome.message
    assert (workspace / "mywork.txt").exists() and (workspace / "new.txt").exists()
    assert session.agent.messages == history


def test_a_file_made_while_the_question_waits_stops_the_rewind_before_it_touches_any(
        workspace: Path, store: SessionStore):
    _, live, _ = by_hand_after_the_first_prompt(workspace, store)

    def meanwhile(question: str) -> bool:
        (workspace / "during.txt").write_text("typed while asked\n")
        return True

    outcome = run_slash_command("/rewind 1", live, meanwhile)

    assert outcome.is_error
    assert (workspace / "during.txt").exists() and (workspace / "mywork.txt").exists()
    assert (workspace / "new.txt").exists() and (workspace / "changed.txt").read_text() == "after\n"
