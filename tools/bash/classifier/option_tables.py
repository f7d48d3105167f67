"""The option tables: every option of the commands whose options are judged, and
which take a value (from each tool's --help: GNU coreutils, findutils, ripgrep 14).

An option missing here is refused as unknown, so a table errs on the side of no.
"""

from __future__ import annotations

from tools.bash.classifier.options import Options, long_options

SORT = Options(
    flags="bdfgiMhnRrVcCmsuz", valued="kSoTt",
    long_flags=long_options("ignore-leading-blanks dictionary-order ignore-case general-numeric-sort "
                            "ignore-nonprinting month-sort human-numeric-sort numeric-sort "
                            "random-sort reverse version-sort check merge stable unique "
                            "zero-terminated debug help version"),
    long_valued=long_options("key output buffer-size field-separator temporary-directory parallel "
                             "batch-size compress-program files0-from random-source sort"))
SORT_WRITES = ("-o", "--output", "--compress-program", "-T", "--temporary-directory")

UNIQ = Options(
    flags="cdDiuz", valued="fsw",
    long_flags=long_options("count repeated all-repeated group ignore-case unique zero-terminated "
                            "help version"),
    long_valued=long_options("skip-fields skip-chars check-chars"))

RIPGREP = Options(
    flags="0abcFhHiIlLnNopPqsSuUvVwxz.", valued="ABCdeEfgjmMrtT",
    long_flags=long_options(
        "binary block-buffered byte-offset case-sensitive column count count-matches crlf "
        "files files-with-matches files-without-match fixed-strings follow glob-case-insensitive "
        "heading no-heading hidden ignore-case ignore-file-case-insensitive include-zero "
        "invert-match json line-buffered line-number no-line-number line-regexp max-columns-preview "
        "mmap multiline multiline-dotall no-config no-ignore no-ignore-dot no-ignore-exclude "
        "no-ignore-files no-ignore-global no-ignore-parent no-ignore-vcs no-messages "
        "no-require-git null null-data one-file-system only-matching passthru pcre2 "
        "pretty quiet search-zip smart-case sort-files stats text trim type-list unrestricted "
        "vimgrep with-filename no-filename word-regexp auto-hybrid-regex no-unicode "
        "no-pcre2-unicode help version no-binary no-column no-follow no-hidden no-mmap "
        "no-multiline no-stats no-text no-trim no-byte-offset no-crlf no-fixed-strings "
        "no-invert-match no-messages no-search-zip no-sort-files no-include-zero files-with-matches"),
    long_valued=long_options(
        "after-context before-context context color colors context-separator encoding engine "
        "file glob iglob ignore-file max-columns max-count max-depth max-filesize "
        "path-separator regexp replace sort sortr threads type type-not type-add type-clear "
        "field-context-separator field-match-separator dfa-size-limit regex-size-limit "
        "generate"),
    abbreviations=False)

TIMEOUT = Options(flags="v", valued="ks",
                  long_flags=long_options("foreground preserve-status verbose"),
                  long_valued=long_options("kill-after signal"))
NICE = Options(valued="n", long_valued=long_options("adjustment"), numeric=True)
STDBUF = Options(valued="ioe", long_valued=long_options("input output error"))
TIME = Options(flags="p")
XARGS = Options(
    flags="0rtx", valued="adEILnPs", optional="eil",
    long_flags=long_options("null no-run-if-empty verbose exit"),
    long_valued=long_options("arg-file delimiter max-lines max-args max-procs max-chars "
                             "replace eof"))
WRAPPERS = {"timeout": TIMEOUT, "nice": NICE, "stdbuf": STDBUF, "time": TIME}

TEST_EVALUATES = ("-v", "-R")

HOSTNAME = Options(  # no -F/--file and no -b/--boot: they set the name
    flags="aAdfiIsyVh",
    long_flags=long_options("alias all-fqdns domain fqdn long ip-address all-ip-addresses short yp "
                            "nis version help"))
XXD_VALUED = frozenset("-c -cols -g -groupsize -l -len -n -name -o -offset -s -seek".split())
