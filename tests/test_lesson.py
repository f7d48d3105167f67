"""The lesson as a learner meets it: the offline model, the quiz, the scenario file."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

from step42_plan_mode.quiz import main as quiz_main
from step42_plan_mode.quiz import run_quiz
from step42_plan_mode.quiz_bash import bash_questions
from step42_plan_mode.quiz_plan import plan_questions
from step42_plan_mode.quiz_question import dealt
from tools.bash.classifier.classify import classify
from tools.base import Judgement
from tests.product_run import run_product

ROOT = Path(__file__).resolve().parent.parent


def run_index(workspace: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return run_product(*args, cwd=workspace, env=env, input=stdin)


def quiz(*args: str, answers: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "step42_plan_mode.quiz", *args], cwd=ROOT,
                          input=answers, capture_output=True, text=True, timeout=60)


def test_bash_quiz_is_marked_by_the_classifier_itself():
    def inverted(command: str) -> Judgement:
        return Judgement(not classify(command).read_only, "inverted")

    honest = bash_questions()
    for question in honest:
        command = question.prompt.removeprefix("$ ").split("\n")[0]
        says_read_only = question.choices[question.answer].startswith("yes")
        assert says_read_only == classify(command).read_only, command
    flipped = bash_questions(inverted)
    assert [q.answer for q in flipped] == [1 - q.answer for q in honest]
    assert {q.answer for q in honest} == {0, 1}, "the quiz has commands of both kinds"


def test_quiz_scores_right_and_wrong_answers():
    pool = plan_questions()[:3]
    right = iter("abcd"[q.answer] for q in pool)
    assert run_quiz(pool, lambda prompt: next(right)) == 3
    wrong = iter("abcd"[(q.answer + 1) % len(q.choices)] for q in pool)
    assert run_quiz(pool, lambda prompt: next(wrong)) == 0


def test_an_answer_that_is_not_a_letter_offered_is_asked_again(capsys):
    pool = plan_questions()[:1]
    answers = iter(["", "z", "maybe", "abcd"[pool[0].answer]])
    assert run_quiz(pool, lambda prompt: next(answers)) == 1
    assert capsys.readouterr().out.count("Please answer with one letter") == 3


def test_quiz_text_wraps_between_words_at_the_terminal_width(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    pool = plan_questions()
    run_quiz(pool, lambda prompt: "a")
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 40
    words = set(out.split())
    for question in pool:
        for text in (question.prompt, *question.choices, question.why):
            assert set(text.split()) <= words, f"a word was cut in two: {text!r}"


def test_both_quizzes_run_from_the_command_line():
    for topic in ("plan", "bash"):
        done = quiz(topic, "-n", "2", "--seed", "3", answers="a\nb\n")
        assert done.returncode == 0 and "Score: " in done.stdout and "/2" in done.stdout


def test_the_bash_quiz_takes_y_or_no_for_its_yes_no_question():
    done = quiz("bash", "-n", "2", "--seed", "3", answers="y\nno\n")
    assert done.returncode == 0 and "Please answer" not in done.stdout and "Score: " in done.stdout


def test_a_quiz_left_early_scores_only_what_was_answered():
    done = quiz("plan", "-n", "5", "--seed", "1", answers="a\n")
    assert done.returncode == 0 and "/1 (stopped after 1 of 5 questions)" in done.stdout


def test_ctrl_c_in_a_quiz_ends_it_quietly_with_exit_code_130():
    import pexpect

    child = pexpect.spawn(sys.executable, ["-m", "step42_plan_mode.quiz", "plan", "-n", "3"],
                          cwd=str(ROOT), encoding="utf-8", timeout=30)
    child.delaybeforesend = None
    child.expect("Your answer: ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and "Traceback" not in child.before, child.before


def test_answering_the_same_letter_every_time_scores_at_most_a_third(capsys, monkeypatch):
    """The quiz's command line in this process (the two tests above run it as a program)."""
    for seed in range(3):
        for letter in "abcd":
            monkeypatch.setattr(sys, "stdin", io.StringIO(f"{letter}\n" * 9))
            assert quiz_main(["plan", "-n", "9", "--seed", str(seed)]) == 0
            assert int(capsys.readouterr().out.split("Score: ")[1].split("/")[0]) <= 3, (seed, letter)


def test_each_run_shuffles_the_choices_and_keeps_the_right_answer():
    pool = plan_questions()
    runs = [dealt(pool, len(pool), random.Random(seed)) for seed in range(4)]
    orders = {tuple(q.choices for q in sorted(run, key=lambda q: q.prompt)) for run in runs}
    assert len(orders) > 1
    right = {q.prompt: q.choices[q.answer] for q in pool}
    for run in runs:
        assert {q.prompt: q.choices[q.answer] for q in run} == right
        assert all(sorted(q.choices) == sorted(p.choices) for q in run for p in pool
                   if p.prompt == q.prompt)


def test_offline_lesson_runs_headless_without_a_key_and_changes_nothing(workspace):
    done = run_index(workspace, "-p", "add a greeting file")
    assert done.returncode == 4, done.stderr
    assert "offline lesson model" in done.stderr
    assert "denied by plan-mode-guard" in done.stderr
    assert "rule: writes files" in done.stderr and "'Write'" not in done.stderr
    assert "## Plan" in done.stdout, "the unapproved plan is the headless answer"
    assert list(workspace.iterdir()) == []


def test_a_bad_script_file_is_one_clear_error(workspace):
    (workspace / "bad.json").write_text("[{]")
    done = run_index(workspace, "--script", "bad.json", "-p", "hi")
    assert done.returncode == 2
    assert "not valid JSON" in done.stderr and "Traceback" not in done.stderr


def test_a_script_replays_and_prints_the_final_answer(workspace):
    (workspace / "s.json").write_text('[{"text": "hello from the script"}]')
    done = run_index(workspace, "--script", "s.json", "-p", "hi")
    assert done.returncode == 0 and done.stdout.strip() == "hello from the script"


def test_importing_index_starts_nothing(workspace):
    done = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                           "import index; print('openai' in sys.modules)", str(ROOT)],
                          cwd=workspace, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False"
    assert list(workspace.iterdir()) == []


def test_an_empty_prompt_is_refused(workspace):
    done = run_index(workspace, "-p", "  ")
    assert done.returncode == 2 and "-p needs a prompt" in done.stderr


def test_approve_plan_without_p_is_refused_before_anything_runs(workspace):
    done = run_index(workspace, "--approve-plan=edit")
    assert done.returncode == 2 and "--approve-plan works with -p only" in done.stderr
    assert list(workspace.iterdir()) == []


def test_a_p_only_flag_or_a_mode_that_cannot_build_is_refused_in_one_line(workspace):
    for args, said in ((["--output-format", "json"], "--output-format json works with -p only"),
                       (["-p", "x", "--approve-plan=plan"], "build, edit or yolo")):
        done = run_index(workspace, *args)
        assert done.returncode == 2 and said in done.stderr and "''" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and list(workspace.iterdir()) == []


def test_end_of_input_at_the_plan_question_rejects_the_plan():
    from rich.console import Console

    from state import AppState
    from ui.console import ConsoleView
    from ui.plan_review import PlanReviewScreen
    from ui.question_commands import QuestionCommands

    def closed(question: str, **options) -> str:
        raise EOFError

    view = ConsoleView(Console(file=open(os.devnull, "w")))
    review = PlanReviewScreen(view, closed, AppState(), QuestionCommands(view))("the plan")
    assert review.outcome == "reject"


def test_headless_answers_permission_questions_no_unless_yolo(workspace):
    (workspace / "w.json").write_text('[{"tool_calls": [{"name": "Write", "arguments": '
                                      '{"file_path": "out.txt", "content": "x"}}]}, {"text": "done"}]')
    refused = run_index(workspace, "--script", "w.json", "-p", "write", "--output-format", "json")
    assert refused.returncode == 5 and "denied: nobody here can answer" in refused.stderr
    assert json.loads(refused.stdout)["unanswered"] == [
        {"tool": "Write", "subject": "out.txt", "reason": json.loads(refused.stdout)["unanswered"][0]["reason"]}]
    assert "nobody can answer" in json.loads(refused.stdout)["unanswered"][0]["reason"]
    assert not (workspace / "out.txt").exists()
    allowed = run_index(workspace, "--script", "w.json", "--mode", "yolo", "-p", "write")
    assert allowed.returncode == 0 and (workspace / "out.txt").read_text() == "x"


def test_a_write_says_it_appended_or_changed_nothing_rather_than_overwrote(workspace):
    (workspace / "stepagent_lesson.txt").write_text("kept\n")
    done = run_index(workspace, "-p", "add a greeting file", "--approve-plan=yolo")
    assert done.returncode == 0, done.stderr
    assert "Appended 1 line to stepagent_lesson.txt: 2 lines now" in done.stderr, done.stderr
    again = json.dumps([{"text": "", "tool_calls": [{"name": "Write", "arguments": {
        "file_path": "stepagent_lesson.txt", "content": (workspace / "stepagent_lesson.txt").read_text()}}]},
        {"text": "done"}])
    (workspace.parent / "same.json").write_text(again)
    same = run_index(workspace, "--script", str(workspace.parent / "same.json"), "--mode", "yolo", "-p", "x")
    assert "Unchanged stepagent_lesson.txt: the same 2 lines it held" in same.stderr, same.stderr
    assert "Overwrote" not in done.stderr + same.stderr
