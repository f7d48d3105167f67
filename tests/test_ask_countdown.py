"""AskUserQuestion's auto-continue countdown line, on a fake clock: silent during the
grace, then the seconds left and the deadline's time of day, gone at the deadline;
and the --ask-timeout flag that turns it on."""

from __future__ import annotations

import time

import pytest

from tools.ask_user import AskCountdown
from ui.command_line import parse_args
from ui.ask_countdown import Countdown

TIMES = AskCountdown("key", started_at=1000.0, visible_at=1060.0, deadline_at=1300.0)


def at(now: float) -> Countdown:
    return Countdown(TIMES, clock=lambda: now)


def test_silent_during_the_grace_then_the_seconds_left_then_nothing_at_the_deadline():
    deadline = time.strftime("%H:%M:%S", time.localtime(1300.0))
    assert at(1000.0).line() == "" and at(1059.9).line() == ""
    assert f"No answer by {deadline}: continuing without answers in 240 s" in at(1060.0).line()
    assert "in 1 s" in at(1299.5).line()
    assert at(1300.0).line() == ""
    assert not at(1299.9).expired() and at(1300.0).expired()


def test_a_stopped_countdown_never_expires_and_says_so_only_if_it_was_seen():
    now = [1000.0]
    countdown = Countdown(TIMES, clock=lambda: now[0])
    countdown.line()
    countdown.stop()
    assert countdown.line() == "", "stopped during the grace: nothing to take back"
    seen = at(1100.0)
    seen.line()
    seen.stop()
    seen.clock = lambda: 5000.0
    assert not seen.expired()
    assert "stopped" in seen.line()


@pytest.mark.parametrize("value", ["0", "-3", "inf", "nan", "soon"])
def test_ask_timeout_must_be_seconds_above_zero(value):
    with pytest.raises(SystemExit):
        parse_args(["--ask-timeout", value])


def test_ask_timeout_is_off_by_default():
    assert parse_args([]).ask_timeout is None and parse_args(["--ask-timeout", "300"]).ask_timeout == 300
