"""AppState on its own: the plan flag's two doors, the permission mode beside it, and the
audit trail each change leaves (ModeChanged with its cause)."""

from __future__ import annotations

import re

from agent.events import ModeChanged
from state import AppState, PermissionMode, StateView, new_session_id
from ui.modes import cycle, select


def watched(state: AppState) -> list[ModeChanged]:
    changes: list[ModeChanged] = []
    state.events.subscribe(lambda event: changes.append(event) if isinstance(event, ModeChanged) else None)
    return changes


def test_entering_and_leaving_say_whether_anything_changed_and_record_who_did_it():
    state = AppState()
    changes = watched(state)
    assert state.enter_plan_mode("first") is True
    assert state.enter_plan_mode("again") is False
    assert state.plan_mode is True
    assert state.leave_plan_mode("approval") is True
    assert state.leave_plan_mode("again") is False
    assert state.plan_mode is False
    assert changes == [ModeChanged(True, "build", "first"), ModeChanged(False, "build", "approval")]


def test_the_permission_mode_changes_under_plan_mode_and_leaving_returns_to_it():
    state = AppState()
    changes = watched(state)
    state.enter_plan_mode("plan")
    state.set_permission_mode(PermissionMode.YOLO, "user")
    assert state.plan_mode and state.mode_label == "plan"
    state.leave_plan_mode("done")
    assert state.mode_label == "yolo"
    assert changes[1:] == [ModeChanged(True, "yolo", "user"), ModeChanged(False, "yolo", "done")]


def test_select_by_name_enters_or_leaves_plan_mode_with_the_cause():
    state = AppState()
    changes = watched(state)
    select(state, "plan", "/plan")
    select(state, "edit", "/mode edit")
    select(state, "edit", "/mode edit again")
    assert state.mode_label == "edit"
    assert changes == [ModeChanged(True, "build", "/plan"), ModeChanged(False, "edit", "/mode edit")]


def test_shift_tab_out_of_plan_goes_straight_to_build_never_through_the_mode_before():
    state = AppState(permission_mode=PermissionMode.YOLO)
    state.enter_plan_mode("/plan")
    changes = watched(state)
    labels = []
    state.events.subscribe(lambda event: labels.append(state.mode_label))
    cycle(state, "Shift+Tab")
    assert changes == [ModeChanged(False, "build", "Shift+Tab")]
    assert labels == ["build"], "no listener ever saw yolo on the way out of plan mode"


def test_shift_tab_cycles_plan_build_edit_yolo_and_back():
    state = AppState()
    state.enter_plan_mode("start")
    changes = watched(state)
    seen = []
    for _ in range(4):
        cycle(state, "Shift+Tab")
        seen.append(state.mode_label)
    assert seen == ["build", "edit", "yolo", "plan"]
    assert {change.cause for change in changes} == {"Shift+Tab"}


def test_hooks_see_a_snapshot_of_the_flag_the_mode_and_the_session():
    state = AppState(session_id="sess_x")
    state.enter_plan_mode("test")
    state.set_permission_mode(PermissionMode.EDIT, "test")
    assert state.view() == StateView(True, PermissionMode.EDIT, "sess_x")


def test_session_ids_are_sess_and_16_hex_digits_and_hooks_see_the_one_in_use():
    assert re.fullmatch(r"sess_[0-9a-f]{16}", new_session_id())
    assert new_session_id() != new_session_id()
    state = AppState()
    state.session_id = "sess_stored"  # a resume carries on under the stored id
    assert state.view().session_id == "sess_stored"

