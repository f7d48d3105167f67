"""An unquoted heredoc's body runs what it substitutes: the classifier refuses one that could.

bash expands `$(…)`, backquotes and `${…}` in the body of a heredoc whose delimiter is
not quoted. The parser the classifier reads marks a `$(…)` there, but not a backquoted
command, nor anything in the body of a `<<-` heredoc (tabs stripped): it saw plain text
and judged `cat` read-only. Where no sandbox layer contains the call (macOS, or Linux
without bubblewrap, Landlock and seccomp) the command then ran while planning, and ran
unasked in build mode. Such a heredoc is now refused (quote the delimiter: `<<'EOF'`),
on this system and as on one without Linux's layers; a quoted one still reads.
"""

from __future__ import annotations

import pytest

from tests.harness import Session, call, turn

SUBSTITUTING = ["cat <<EOF\n`touch planted`\nEOF", "cat <<-EOF\n\t$(touch planted)\n\tEOF",
                "cat <<-EOF\n\t`touch planted`\n\tEOF", "grep x <<EOF | head\n`touch planted`\nEOF"]


@pytest.mark.usefixtures("on_each_system")
@pytest.mark.parametrize("command", SUBSTITUTING)
def test_a_heredoc_that_substitutes_a_command_is_denied_while_planning(command, workspace):
    session = Session(workspace, [turn("", call("Bash", command=command)), turn("ok")], mode="plan")
    session.run()
    assert not (workspace / "planted").exists()
    assert session.tool_results()[0].startswith("Denied by plan-mode-guard"), session.tool_results()


@pytest.mark.usefixtures("on_each_system")
def test_build_mode_asks_before_such_a_heredoc_and_a_quoted_one_still_reads(workspace):
    session = Session(workspace, [turn("", call("Bash", command=SUBSTITUTING[0]),
                                       call("Bash", command="cat <<'EOF'\n`date` $(date)\nEOF")), turn("ok")],
                      mode="build", permission_answers=[False])
    session.run()
    assert not (workspace / "planted").exists()
    assert len(session.questions) == 1
    assert session.tool_results()[1].startswith("`date` $(date)"), session.tool_results()
