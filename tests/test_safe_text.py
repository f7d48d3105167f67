"""safe() and reveal(): untrusted text can never carry a control, escape or bidi character to the screen."""

from __future__ import annotations

import io
import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

from tests.hostile_text import BEL, ESC, SEQUENCES
from ui.headless import write_answer
from ui.safe_text import invisible_warning, reveal, safe

FORBIDDEN = ({chr(c) for c in range(0x20)} - {"\n", "\t"}) | {chr(0x7F)} | {chr(c) for c in range(0x80, 0xA0)} \
    | {chr(c) for c in [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]}


@pytest.mark.parametrize("text", SEQUENCES.values(), ids=SEQUENCES.keys())
def test_every_kind_of_sequence_becomes_visible_text(text: str) -> None:
    shown = safe(text)
    assert not FORBIDDEN & set(shown)
    assert len(shown) >= len(text)


def test_placeholders_name_what_was_there() -> None:
    assert safe(f"{ESC}[2J") == "␛[2J"
    assert safe("echo ok\r# rest") == "echo ok␍# rest"
    assert safe(f"{ESC}]0;t{BEL}") == "␛]0;t␇"
    assert safe("\x9b2J") == "\\x9b2J"
    assert safe("\u202egnp") == "\\u202egnp"
    assert safe("\x7f") == "␡"


def test_ordinary_text_newlines_tabs_and_markup_are_untouched() -> None:
    text = "# Title\n\tcode — naïve ☑ 漢字 [bold]not markup[/bold] :smile:"
    assert safe(text) == text


def test_windows_line_endings_are_not_shown_but_a_lone_carriage_return_is() -> None:
    assert safe("a\r\nb\r") == "a\nb␍"


def test_lone_surrogates_cannot_crash_the_print() -> None:
    assert safe("bad \udc80 byte").encode("utf-8") == b"bad \\udc80 byte"


def test_reveal_shows_every_invisible_character_of_a_command() -> None:
    command = "rm\u200b -rf\u00a0/tmp/x\u2028; echo\u3164 \U000e0041 ok\r"
    shown = reveal(command)
    assert shown == "rm\\u200b -rf\\xa0/tmp/x\\u2028; echo\\u3164 \\U000e0041 ok␍"
    assert invisible_warning(command)
    assert not invisible_warning("ls -la 'a b'\n\tgrep x | wc -l — ü")



def test_a_command_with_invisible_characters_is_flagged_with_their_placeholders() -> None:
    assert invisible_warning("ls -la") == ""
    warning = invisible_warning("echo ok\r# rest\u200b")
    assert "invisible characters" in warning and "␍" in warning and "\\u200b" in warning


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.one_of(st.text(), st.sampled_from(list(SEQUENCES.values())),
                          st.sampled_from(sorted(FORBIDDEN)))).map("".join))
def test_no_input_gets_a_control_an_escape_or_a_bidi_override_through(text: str) -> None:
    shown = safe(text)
    assert not FORBIDDEN & set(shown)
    assert not any(unicodedata.category(c) == "Cs" for c in shown)
    assert not any(c in FORBIDDEN or unicodedata.category(c) in {"Cf", "Zl", "Zp", "Cc"}
                   for c in reveal(text) if c not in "\n\t")


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"),
                                      blacklist_characters=sorted(FORBIDDEN))))
def test_text_without_controls_is_shown_exactly(text: str) -> None:
    assert safe(text) == text


def test_a_piped_answer_is_kept_byte_for_byte_and_an_unencodable_character_is_escaped() -> None:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    write_answer("\x1b[2J naïve \udc80 end", out)
    assert out.buffer.getvalue() == "\x1b[2J naïve \\udc80 end\n".encode()


def test_an_endpoint_error_in_the_doctor_table_stays_text() -> None:
    from rich.console import Console

    from models.base import ModelError
    from ui.doctor import endpoint_row, show_doctor

    def failing_model():
        raise ModelError("HTTP 500: \x1b]0;pwned\x07\x1b[2J [red]fine[/red]")

    console = Console(file=io.StringIO(), force_terminal=True, width=200)
    show_doctor(console, [endpoint_row(failing_model)[0]])
    screen = console.file.getvalue()
    assert "\x1b]" not in screen and "\x1b[2J" not in screen
    assert "␛]0;pwned␇␛[2J [red]fine[/red]" in screen


def test_an_internal_error_line_cannot_carry_an_escape(monkeypatch, capsys) -> None:
    import index

    def broken(argv=None):
        raise RuntimeError("\x1b]0;pwned\x07")

    monkeypatch.setattr(index, "main", broken)
    monkeypatch.delenv("STEPAGENT_DEBUG", raising=False)
    assert index.run_guarded([]) == 1
    assert "\x1b" not in capsys.readouterr().err
