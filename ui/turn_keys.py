"""Keys typed while a turn runs: Shift+Tab switches the mode at once, the rest waits for the prompt.

The REPL's seam around a turn (ui/repl.py: `send_turn`). While the agent works, a
thread reads the keyboard, the terminal set to hand over each key unechoed (so
nothing typed garbles the spinner) and still to turn Ctrl-C into SIGINT, which
cancels the turn as it always did.

- Shift+Tab cycles the mode the moment it is pressed, as at the prompt (ui/modes.py,
  journaled with its cause). The mode lives in the state and the plan guard reads it
  at every call, so the next call meets the new mode; the spinner shows it at once.
  Out of plan mode it does not go while the turn runs: the model would go on, outside
  plan mode, with a plan nobody approved. At the prompt no turn runs, and at the plan
  review leaving ends the turn (ui/plan_review.py); here the screen says how to leave
  (Ctrl-C stops the turn, then Shift+Tab).
- Every other key is held, shown under the spinner, and handed to the next prompt
  through prompt-toolkit's type-ahead store: as typed after a turn that ended (an
  Enter sends the line, as keys typed ahead always did), and after Ctrl-C with each
  Enter made a new line, so the draft waits for the user to send it.
- A question pauses the reader and drops what it held (ui/type_ahead.py): keys typed
  before a question is drawn never answer it.
"""

from __future__ import annotations

import codecs
import os
import select
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterator

from ui.modes import cycle
from ui.uninterrupted import uninterrupted

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.key_binding import KeyPress

    from state import AppState

DRAFT_SHOWN = 60  # characters of the held draft the line under the spinner shows
STAYS_PLANNING = ("Plan mode stays on while the agent works: leaving it now would let the agent act "
                  "on a plan you have not approved. Ctrl-C stops the turn; then Shift+Tab leaves plan mode.")


@dataclass
class TurnKeys:
    """Reads the keyboard during a turn (`start`, `finish`); a question `paused` drops its keys."""

    state: AppState
    notify: Callable[[str], None] = lambda text: None
    terminal: Input | None = None  # standard input, once a turn starts on a terminal
    held: list[KeyPress] = field(default_factory=list)
    _running: bool = False
    _reader: threading.Thread | None = None
    _wake: tuple[int, int] | None = None
    _cooked: list | None = None

    def start(self) -> None:
        """The turn begins: read the keys from now on (keys the last prompt read ahead too)."""
        if self.terminal is None and sys.stdin.isatty():
            from prompt_toolkit.input import create_input

            self.terminal = create_input()
        if self.terminal is None or self._running:
            return
        from prompt_toolkit.input.typeahead import get_typeahead

        self.held, self._running = list(get_typeahead(self.terminal)), True
        self._listen()

    def finish(self, ended: bool) -> None:
        """The turn is over: hand the held keys to the next prompt (`ended`: not cancelled)."""
        if not self._running:
            return
        self._running = False
        self._quiet()
        from prompt_toolkit.input.typeahead import store_typeahead

        store_typeahead(self.terminal, self.held if ended else as_draft(self.held))
        self.held = []

    @contextmanager
    def paused(self) -> Iterator[int]:
        """For a question: stop reading, drop what was held (yields how many keys), read again after."""
        running = self._running
        if running:
            self._quiet()
        dropped, self.held = len(self.held), []
        try:
            yield dropped
        finally:
            if running and self._running:
                self._listen()

    def draft(self) -> str:
        """What the held keys would put on the prompt's line, for the line under the spinner."""
        from prompt_toolkit.keys import Keys

        text: list[str] = []
        for press in list(self.held):
            if press.key in (Keys.ControlH, Keys.Backspace):
                text = text[:-1]
            elif press.key in (Keys.ControlM, Keys.ControlJ):
                text.append("⏎")
            elif not isinstance(press.key, Keys) and press.key.isprintable():
                text.append(press.key)
        shown = "".join(text)
        return shown if len(shown) <= DRAFT_SHOWN else "…" + shown[-DRAFT_SHOWN + 1:]

    @property
    def fd(self) -> int:
        """The terminal's file descriptor."""
        assert self.terminal is not None
        return self.terminal.fileno()

    def _listen(self) -> None:
        import termios

        settings = key_by_key(self.fd)
        if settings is None:
            return
        self._cooked, keys = settings
        with uninterrupted():  # the reader thread keeps SIGINT blocked: Ctrl-C stays the main thread's
            termios.tcsetattr(self.fd, termios.TCSANOW, keys)
            self._wake = os.pipe()
            self._reader = threading.Thread(target=self._read, args=(self._wake[0],),
                                            name="turn-keys", daemon=True)
            self._reader.start()

    def _quiet(self) -> None:
        """Stop the reader and give the terminal back as it was; keys not read yet stay queued."""
        import termios

        if self._reader is None or self._wake is None:
            return
        with uninterrupted():  # a Ctrl-C half-way would leave the terminal without echo
            os.write(self._wake[1], b"x")
            self._reader.join()
            for end in self._wake:
                os.close(end)
            self._reader = self._wake = None
            if self._cooked is not None:
                termios.tcsetattr(self.fd, termios.TCSANOW, self._cooked)

    def _read(self, wake: int) -> None:
        from prompt_toolkit.input.vt100_parser import Vt100Parser

        parser = Vt100Parser(self._key)
        decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        while wake not in select.select([self.fd, wake], [], [])[0]:
            try:
                data = os.read(self.fd, 1024)
            except OSError:
                break
            if not data:
                break
            parser.feed(decoder.decode(data))
        parser.flush()

    def _key(self, press: KeyPress) -> None:
        from prompt_toolkit.keys import Keys

        if press.key == Keys.BackTab:
            self._shift_tab()
        elif press.key != Keys.CPRResponse:  # the terminal answering prompt-toolkit, not a person
            self.held.append(press)

    def _shift_tab(self) -> None:
        if self.state.plan_mode:
            self.notify(STAYS_PLANNING)
            return
        try:
            cycle(self.state, "Shift+Tab")
        except Exception as failure:  # a listener's bug must not end the reader
            self.notify(f"Shift+Tab: {type(failure).__name__}: {failure}")


def key_by_key(fd: int) -> tuple[list, list] | None:
    """The terminal's settings, and the same handing over each key unechoed; None off a terminal.

    ISIG stays: Ctrl-C is still SIGINT."""
    import termios

    try:
        cooked = termios.tcgetattr(fd)
    except termios.error:
        return None
    keys = termios.tcgetattr(fd)
    keys[3] &= ~(termios.ICANON | termios.ECHO)
    keys[6][termios.VMIN], keys[6][termios.VTIME] = 1, 0
    return cooked, keys


def as_draft(keys: list[KeyPress]) -> list[KeyPress]:
    """The keys with each Enter made Alt+Enter (the prompt's new line), so nothing is sent."""
    from prompt_toolkit.key_binding import KeyPress
    from prompt_toolkit.keys import Keys

    drafted: list[KeyPress] = []
    for press in keys:
        if press.key in (Keys.ControlM, Keys.ControlJ):
            drafted += [KeyPress(Keys.Escape, "\x1b"), KeyPress(Keys.ControlM, "\r")]
        else:
            drafted.append(press)
    return drafted
