"""The Bash corpus: commands that change something, and commands a planner needs.

Lesson material and test data at once: quiz.py asks learners about these
commands, and tests/test_readonly_bash.py proves each one. Every MUTATING
command is proved to change the scratch folder
(or a file outside the workspace, or $HOME) when run in plain bash, and to
change nothing when stepagent runs it in plan mode. Every READ_ONLY command must
run in plan mode and print what plain bash prints.

CONFIG_DRIVEN commands look read-only and are classified so, but the scratch
repository's own config or hooks make git run a program: an external diff, an
fsmonitor, a hook run when `git status` refreshes the index, a textconv or a
clean filter named by .gitattributes, and the same from a bare repository
inside the workspace. The environment Bash sets while planning (no fsmonitor,
no hooks, no implicit bare repositories) and the sandbox stop them; without
bubblewrap, plan mode refuses such git commands outright.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

FAMILIES: dict[str, list[str]] = {
    "redirection": [
        "echo hi > new.txt", "echo hi >> f.txt", "cat f.txt > copy.txt", "ls &> out.txt",
        "ls >| out.txt", "ls 2> err.txt", "cat < f.txt > o.txt", "echo x 1<>f.txt",
        "ls >& out.txt", ": > f.txt", "exec 3>out.txt", "echo x > ../outside/o.txt",
    ],
    "writers": [
        "rm f.txt", "mv f.txt g.txt", "cp f.txt g.txt", "touch new.txt", "mkdir newdir",
        "rmdir emptydir", "chmod 000 f.txt", "ln -s f.txt link", "tee new.txt < f.txt",
        "ls | tee out.txt", "dd if=f.txt of=out.txt status=none", "truncate -s 0 f.txt",
        "install -m 644 f.txt g.txt", "shred -u f.txt", "cp f.txt ../outside/copy.txt",
        "touch ~/made.txt", "cat f.txt | tee -a ../outside/o.txt",
    ],
    "find actions": [
        "find . -name f.txt -delete", "find . -name f.txt -exec rm {} \\;",
        "find . -name f.txt -execdir rm {} +", "find . -maxdepth 1 -fprint out.txt",
        "find . -maxdepth 1 -fls out.txt", "find . -maxdepth 1 -fprintf out.txt '%p\\n'",
        "yes | find . -name f.txt -ok rm {} \\;", "find . -maxdepth 1 -fprint0 out.txt",
    ],
    "sed": [
        "sed -i s/hello/bye/ f.txt", "sed -i.bak s/hello/bye/ f.txt",
        "sed --in-place s/hello/bye/ f.txt", "sed -n 's/hello/bye/w out.txt' f.txt",
        "sed -n '1w out.txt' f.txt", "sed 's/hello/touch made.txt/e' f.txt",
        "sed -e '1e touch made.txt' f.txt", "sed -ni 's/hello/bye/p' f.txt",
        "sed -n -e p -i f.txt", "sed 'W out.txt' f.txt", "sed -n '1p;w out.txt' f.txt",
        "sed -n -e 'b end' -e ':end' -e 'w out.txt' f.txt",
    ],
    "output flags": [
        "sort -o out.txt f.txt", "sort --output=out.txt f.txt", "sort --out=out.txt f.txt",
        "sort f.txt -o f.txt", "uniq f.txt out.txt", "xxd f.txt out.txt",
        "rg --pre ./pre.sh hello", "sort -mo out.txt f.txt",
    ],
    "git": [
        "git -c alias.x='!touch made.txt' x", "git diff --output=out.txt",
        "git log --output=out.txt", "git commit --allow-empty -qm x", "git branch newbranch",
        "git tag v1", "git checkout -qb other", "git stash -q", "git add f.txt",
        "git rm -q --cached f.txt", "git reset -q --hard", "git config user.name evil",
        "git config --global user.name evil", "git init -q sub", "git clean -fdxq",
        "git notes add -m x", "git gc -q", "GIT_EDITOR='touch made.txt' git commit --allow-empty",
        "git grep -O'touch made.txt' hello", "git update-ref refs/heads/x HEAD",
        "git checkout -- f.txt", "EVIL='!touch made.txt' git --config-env=alias.x=EVIL x",
    ],
    "interpreters": [
        "python3 -c \"open('made.txt', 'w')\"", "perl -e 'open(F, \">made.txt\")'",
        "node -e \"require('fs').writeFileSync('made.txt', '')\"",
        "awk 'BEGIN { print 1 > \"made.txt\" }'", "awk 'BEGIN { system(\"touch made.txt\") }'",
        "awk 'BEGIN { print 1 | \"cat > made.txt\" }'",
    ],
    "shells and wrappers": [
        "bash -c 'touch made.txt'", "sh -c \"rm f.txt\"", "echo touch made.txt | bash",
        "echo dG91Y2ggbWFkZS50eHQ= | base64 -d | sh", "eval 'touch made.txt'", ". ./script.sh",
        "source ./script.sh", "xargs touch <<< made.txt", "echo made.txt | xargs touch",
        "env touch made.txt", "timeout 5 touch made.txt", "nice touch made.txt",
        "command touch made.txt", "exec touch made.txt", "bash -c \"bash -c 'touch made.txt'\"",
        "env -i /usr/bin/touch made.txt", "time touch made.txt",
    ],
    "obfuscation": [
        "t\"ou\"ch made.txt", "\\touch made.txt", "tou\\ch made.txt", "${IFS}touch made.txt",
        "X=touch; $X made.txt", "$(echo touch) made.txt", "`echo touch` made.txt",
        "cat <(touch made.txt)", "ls $(touch made.txt)", "echo \"$(touch made.txt)\"",
        "$'\\x74ouch' made.txt", "{touch,made.txt}", "./script.sh", "/usr/bin/touch made.txt",
    ],
    "lists and constructs": [
        "ls; touch made.txt", "ls && touch made.txt", "false || touch made.txt",
        "ls | touch made.txt", "(touch made.txt)", "{ touch made.txt; }", "ls\ntouch made.txt",
        "for f in f.txt; do rm $f; done", "if true; then touch made.txt; fi",
        "f() { touch made.txt; }; f", "while false; do :; done; touch made.txt",
        "! touch made.txt",
    ],
    "evaluating builtins": [
        "test -v 'a[$(touch made.txt)]'", "printf -v 'a[$(touch made.txt)]' x",
        "test -v 'b[$(rm f.txt)]' && ls", "[ -v 'a[$(touch made.txt)]' ]",
        "printf -v 'v[$(echo x > ../outside/o.txt)]' %s x",
    ],
    "control characters": [
        "ls \r# ; touch made.txt", "ls \f# ; touch made.txt", "ls \v# ; touch made.txt",
        "ls \x1b# ; touch made.txt", "ls\u00a0;touch made.txt",
    ],
    "option parsing": [
        "echo | xargs --process-slot-var ls touch made.txt", "sort --o=made.txt f.txt",
        "sort -T -- -o made.txt f.txt", "\\time -o made.txt ls", "sort $(echo -o made.txt) f.txt",
        "echo | xargs -P 1 --process-slot-var=V touch made.txt",
        "xxd -r -ps f.txt made.txt", "git grep -e -- -e hello -O'touch made.txt'",
    ],
    "redirection targets": [
        "echo hi > made.txt /dev/null", "sort > /dev/null -o made.txt f.txt",
        "cat <<EOF > made.txt\nhi\nEOF", "cat <<EOF >> f.txt\nhi\nEOF",
        "cat <<'EOF' 2> made.txt\nhi\nEOF",
    ],
    "sed labels and awk programs": [
        "sed -n ':a w made.txt' f.txt", "sed -n 'b end w made.txt\n:end' f.txt",
        "sed -n 't x w made.txt\n:x' f.txt",
        "awk 'BEGIN { # \"\n system(\"touch made.txt\") # \"\n}'",
        "awk '/[/\"]/ { } END { print 1 | \"cat > made.txt\" } # \"' f.txt",
        "awk 'BEGIN { x = /\"/; print 1 > \"made.txt\" } /\"/' f.txt",
        "awk 'BEGIN { print 1,\n2 > \"made.txt\" }'",
        "awk 'BEGIN { print 1 \\\n > \"made.txt\" }'",
    ],
    "git config and environment": [
        "git config user.name list", "git config core.pager get", "git remote -v add evil /nowhere",
        "GIT_EXTERNAL_DIFF=./ext.sh git diff", "env GIT_EXTERNAL_DIFF=./ext.sh git diff",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=diff.external GIT_CONFIG_VALUE_0=./ext.sh git diff",
        "git -c diff.external=./ext.sh diff",
    ],
}
MUTATING = [command for commands in FAMILIES.values() for command in commands]

CONFIG_DRIVEN = {
    "git diff": "git config diff.external ./ext.sh",
    "git status": "git config core.fsmonitor ./ext.sh",
    "git status --short": "cp ext.sh .git/hooks/post-index-change && touch -d @1000000000 dir/a.py",
    "git log -p -1": "echo 'f.txt diff=t' > .gitattributes && git config diff.t.textconv ./ext.sh && "
                     "git add .gitattributes f.txt && git commit -qm t",
    "git diff --stat": "echo 'f.txt filter=x' > .gitattributes && "
                       "git config filter.x.clean './ext.sh; cat'",
    "git -C bare.git log -p -1": "git clone -q --bare . bare.git && "
                                 "echo '* diff=t' > bare.git/info/attributes && "
                                 "git -C bare.git config diff.t.textconv 'touch ../made.txt; cat'",
    "git show HEAD": "echo 'f.txt diff=t' > .gitattributes && git config diff.t.textconv "
                     "'touch made.txt; cat' && git add -A && git commit -qm t",
}

READ_ONLY = [
    "ls", "ls -la", "cat f.txt", "head -n 1 f.txt", "tail -n 1 f.txt", "wc -l f.txt",
    "grep -rn hello .", "grep -c world f.txt", "find . -name '*.txt'", "find . -type f -name f.txt",
    "sed -n '1,5p' f.txt", "sed 's/hello/bye/' f.txt", "sed -n '/hello/p' f.txt",
    "awk '{ print $1 }' f.txt", "awk 'NR == 1' f.txt", "sort f.txt", "sort -r f.txt | uniq",
    "uniq f.txt", "cut -c1-3 f.txt", "tr a-z A-Z < f.txt", "git status", "git log --oneline",
    "git diff", "git diff --stat", "git show --stat HEAD", "git blame f.txt", "git branch",
    "git branch -a", "git tag", "git rev-parse HEAD", "git merge-base HEAD HEAD", "git ls-files",
    "git log -p -1", "git config --get user.name", "git remote -v", "git stash list",
    "git describe --always", "git shortlog -sn HEAD", "git cat-file -p HEAD", "git ls-tree HEAD",
    "git rev-list --count HEAD", "git -C . status --short", "git --no-pager log -1 --format=%s",
    "rg --sort path hello", "rg --sort path -n world -g '*.txt'",  # rg's own order varies per run
    "diff f.txt f.txt", "du -s dir", "stat -c %s f.txt",
    "file f.txt", "realpath f.txt", "pwd", "echo hello", "printf '%s\\n' a b", "which ls",
    "od -c f.txt | head -2", "md5sum f.txt", "ls | grep f", "ls 2>/dev/null",
    "cat f.txt 2>&1 | head -1", "cat <<EOF\nhello\nEOF", "bash -c 'ls dir'", "timeout 5 ls",
    "nice -n 5 cat f.txt", "ls *.txt | xargs wc -l", "env ls dir", "command -v git",
    "find . -maxdepth 1 -type d", "seq 3", "basename dir/a.py", "jq -n 1", "xxd f.txt | head -1",
    "git log --format=%H -1 | cut -c1-7", "grep -l hello f.txt dir/a.py || true",
    "echo $(git log -1 --format=%s)", "echo \"$(cat f.txt)\"", "wc -l $(git ls-files)",
    "test -f f.txt", "printf '%s\\n' hello", "sort --reverse f.txt", "rg --sort path -n -i HELLO",
    "timeout -s KILL 5 ls", "awk -F: '{ print $1 }' f.txt", "sed -n ':a;N;$!ba;p' f.txt",
    "xargs -0 echo < /dev/null", "uniq -c f.txt", "sort -k1,1 -t, f.txt",
]


def make_scratch(root: Path) -> Path:
    """A workspace with a git repository (one commit, a dirty file, an untracked file),
    scripts that would write if run, and an `outside` folder beside it."""
    workspace = root / "workspace"
    for folder in (workspace / "dir", workspace / "emptydir", root / "outside", root / "home"):
        folder.mkdir(parents=True)
    (workspace / "f.txt").write_text("hello\nworld\n")
    (workspace / "dir" / "a.py").write_text("print('hello')\n")
    for name in ("script.sh", "pre.sh", "ext.sh"):
        script = workspace / name
        script.write_text("#!/bin/sh\ntouch made.txt\ncat \"$1\" 2>/dev/null\n")
        script.chmod(0o755)
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=Test"]
    env = {**os.environ, "HOME": str(root / "home"), "GIT_CONFIG_NOSYSTEM": "1"}
    # no sample hooks, description or info/exclude (inert; a third of what each test would copy)
    subprocess.run(["git", "init", "-q", "--template="], cwd=workspace, check=True, env=env)
    (workspace / ".git" / "hooks").mkdir()
    subprocess.run(["git", "config", "user.name", "Test"], cwd=workspace, check=True, env=env)
    subprocess.run(["git", "config", "user.email", "t@example.com"], cwd=workspace, check=True, env=env)
    subprocess.run([*git, "add", "."], cwd=workspace, check=True, env=env)
    subprocess.run([*git, "commit", "-qm", "first"], cwd=workspace, check=True, env=env)
    (workspace / "f.txt").write_text("hello\nworld\nagain\n")
    (workspace / "untracked.txt").write_text("u\n")
    return workspace


def snapshot(root: Path) -> dict[str, tuple]:
    """Everything below `root` that a write could change (not access times)."""
    state: dict[str, tuple] = {}
    start = len(os.path.join(root, ""))
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            content = Path(path).read_bytes() if stat.S_ISREG(info.st_mode) else b""
            link = os.readlink(path) if stat.S_ISLNK(info.st_mode) else ""
            state[path[start:]] = (info.st_mode, info.st_ino, info.st_mtime_ns, content, link)
    return state
