"""A call the model runs without the user sees no secret in its environment; an approved one does.

While planning, and for a read-only command run without a question, Bash's environment
leaves out the variables whose names mark a secret (tools/bash/sandbox/secret_variables.py):
`env` there would put the key into the conversation, the store and every export. What the
user approved runs with the environment whole.
"""

from __future__ import annotations

import pytest

from tests.harness import Session, call, turn

SECRETS = {"OPENAI_API_KEY": "sk-planted-openai", "GITHUB_TOKEN": "ghp-planted-github",
           "AWS_SECRET_ACCESS_KEY": "planted-aws", "DB_PASSWORD": "planted-db",
           "my_api_key": "planted-lowercase", "DB_PASS": "planted-pass",
           "GOOGLE_CREDENTIALS": "planted-credentials", "NPM_CONFIG__AUTH": "planted-auth",
           "SENTRY_DSN": "https://planted-dsn@o1.ingest.example/1", "PRIVATE_SIGNING": "planted-private",
           "SESSION_COOKIE": "planted-cookie",
           # a name that says nothing, a value that does: a URL carrying its password
           "DATABASE_URL": "postgres://app:planted-url-password@db.example/app",
           "UPSTREAM": "https://bot:planted-url-token@git.example/org/repo.git"}


@pytest.fixture
def secrets(workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """Set after the workspace fixture, which clears the real OPENAI_API_KEY."""
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("STEPAGENT_TEST_PLAIN", "plain-and-shown")
    monkeypatch.setenv("STEPAGENT_TEST_URL", "https://example.org/plain-url-shown")


def env_seen(workspace, mode: str, command: str = "env", answers=()) -> str:
    session = Session(workspace, [turn("", call("Bash", command=command)), turn("ok")], mode=mode,
                      permission_answers=list(answers))
    session.run()
    return session.tool_results()[0]


@pytest.mark.usefixtures("on_each_system", "secrets")
@pytest.mark.parametrize("mode", ["plan", "build", "edit"])
def test_a_call_the_model_runs_unasked_sees_no_secret(workspace, mode):
    seen = env_seen(workspace, mode)
    assert "plain-and-shown" in seen and "plain-url-shown" in seen and "[exit code 0]" in seen, seen
    assert not [value for value in SECRETS.values() if value in seen], seen


@pytest.mark.usefixtures("secrets")
@pytest.mark.parametrize("mode, answers", [("build", [True]), ("yolo", [])])
def test_a_call_the_user_approved_sees_the_environment_whole(workspace, mode, answers):
    seen = env_seen(workspace, mode, "env && touch approved.txt", answers)
    assert (workspace / "approved.txt").exists()
    assert all(value in seen for value in SECRETS.values()), seen


@pytest.mark.usefixtures("secrets")
def test_git_in_the_sandbox_still_gets_its_settings(workspace):
    seen = env_seen(workspace, "plan", "git config --get core.hooksPath; git config --get protocol.allow")
    assert "/dev/null\nnever" in seen, seen
