#!/usr/bin/env python3
"""Header hygiene (issue 24, item 3): the installed headers survive the
macros old code defined before including them, and their own macros
expand only to names in the headers' own spaces.

1. Every installed header compiles after every one- and two-letter
   identifier, and the words old code used as macros, are defined as
   object-like macros (one run) and as function-like macros (another):
   in C (gnu11) and C++11, 64-bit and, where gcc can, 32-bit (the legacy
   build's).  The program then calls every function-like macro of the
   API (CMAML_request & co.).
2. Every macro of the headers, expanded (function-like ones with
   arguments named by the test), gives only keywords, its arguments and
   identifiers that start with CMMD_, CMAML_, CMCN_, CMUTIL_, cm5/CM5_ or
   a reserved _X or __ prefix.

    python3 hygiene.py SRCDIR CC CXX     TAP on stdout
"""

import os
import re
import string
import subprocess
import sys

SRC, CC, CXX = sys.argv[1], sys.argv[2], sys.argv[3]
INC = ["-I" + os.path.join(SRC, d)
       for d in ("am/api", "cmmd_compat/api", "algos/api")]

HEADERS = sorted(
    [os.path.relpath(os.path.join(r, f), os.path.join(SRC, "cmmd_compat/api"))
     for r, _, fs in os.walk(os.path.join(SRC, "cmmd_compat/api"))
     for f in fs if f.endswith(".h")] +
    ["cm5/" + f for f in os.listdir(os.path.join(SRC, "am/api/cm5"))
     if f.endswith(".h")] +
    ["cm5/" + f for f in os.listdir(os.path.join(SRC, "algos/api/cm5"))
     if f.endswith(".h")])

# Identifiers a C or C++ program cannot define as macros, or that name
# the language itself.
KEYWORDS = set("""
auto break case char const continue default do double else enum extern float
for goto if inline int long register restrict return short signed sizeof
static struct switch typedef union unsigned void volatile while _Bool
_Complex _Imaginary _Static_assert _Alignas _Alignof _Noreturn _Generic
_Thread_local asm bool catch class const_cast decltype delete dynamic_cast
explicit export false friend mutable namespace new noexcept nullptr
operator private protected public reinterpret_cast static_assert
static_cast template this throw true try typeid typename using virtual
wchar_t and or not xor bitand bitor compl and_eq or_eq xor_eq not_eq
alignas alignof char16_t char32_t constexpr thread_local __attribute__
__extension__ __typeof__ __builtin_classify_type __VA_ARGS__ __VA_OPT__
defined
""".split())

WORDS = """N M P K T X Y Z MAX MIN SIZE BUF BUFSIZE DEBUG TRUE FALSE ERROR OK
FAIL SUCCESS NODES NODE HOST SELF LEN WORD BYTE INT VOID ARGS min max abs
swap""".split()

SHORT = [a for a in string.ascii_letters] + \
    [a + b for a in string.ascii_letters
     for b in string.ascii_letters + string.digits + "_"]
POISON = [i for i in SHORT + WORDS if i not in KEYWORDS]

SYSTEM = """#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
"""

CALLS = """
static void hyg_handler() {}
static void hyg_calls(void)
{
    CMAML_request(0, hyg_handler, 1, 2, 3, 4);
    CMAML_reply(0, hyg_handler, 1);
    CMAML_rpc(0, hyg_handler);
    CMAML_request_tohost(hyg_handler, 1, 2);
    CMAML_reply_tohost(hyg_handler, 1, 2, 3, 4);
    CMAML_rpc_tohost(hyg_handler);
}
"""
CALLS_CXX = CALLS.replace("hyg_handler() {}",
                          "hyg_handler(int, int, int, int) {}").replace(
    "hyg_handler,", "(CMAML_handler_t)hyg_handler,").replace(
    "hyg_handler)", "(CMAML_handler_t)hyg_handler)")

tap = 0
failed = 0


def report(ok, desc, detail=""):
    global tap, failed
    tap += 1
    if ok:
        print("ok %d - %s" % (tap, desc))
    else:
        failed += 1
        print("not ok %d - %s" % (tap, desc))
        for ln in detail.splitlines()[:12]:
            print("#   " + ln)


def compiles(lang, arch):
    comp = CC if lang == "c" else CXX
    std = "-std=gnu11" if lang == "c" else "-std=c++11"
    return comp.split() + [std, "-m" + arch, "-fsyntax-only", "-w"] + INC


def can_m32():
    out = subprocess.run(CC.split() + ["-m32", "-x", "c", "-fsyntax-only",
                                       "-"], input="#include <stdio.h>\n",
                         capture_output=True, text=True)
    return out.returncode == 0


def poisoned(kind):
    if kind == "object-like":
        return "".join("#define %s ) ] @\n" % i for i in POISON)
    return "".join("#define %s(...) ) ] @\n" % i for i in POISON)


def check_poison():
    archs = ["64"] + (["32"] if can_m32() else [])
    for lang in ("c", "c++"):
        # The legacy (32-bit) build is for C programs (cm5cc --legacy).
        for arch in archs if lang == "c" else ["64"]:
            for kind in ("object-like", "function-like"):
                bad = []
                for h in HEADERS:
                    body = SYSTEM + poisoned(kind) + "#include <%s>\n" % h
                    if h in ("cm/cmmd.h", "cm/cmaml.h"):
                        body += CALLS if lang == "c" else CALLS_CXX
                    out = subprocess.run(
                        compiles(lang, arch) +
                        ["-x", "c" if lang == "c" else "c++", "-"],
                        input=body, capture_output=True, text=True)
                    if out.returncode != 0:
                        hit = sorted(set(re.findall(
                            r"(\S+\.h:\d+):\d+: note: in expansion of "
                            r"macro .(\w+).", out.stderr)))
                        first = ["%s uses %s" % x for x in hit][:6] or [
                            ln for ln in out.stderr.splitlines()
                            if "error" in ln][:2]
                        bad.append("%s: %s" % (h, "; ".join(first)))
                report(not bad, "%s, %s-bit: all %d headers compile after "
                       "%d identifiers are defined as %s macros%s"
                       % (lang, arch, len(HEADERS),
                          len(POISON), kind,
                          " (then CMAML_request & co. are called)"),
                       "\n".join(bad))
    if "32" not in archs:
        report(True, "32-bit (legacy) headers # SKIP gcc cannot build "
               "-m32 here (gcc-multilib)")


def macros():
    """(name, params or None) of every macro the headers define."""
    found = {}
    for h in HEADERS:
        for base in ("cmmd_compat/api", "am/api", "algos/api"):
            p = os.path.join(SRC, base, h)
            if os.path.exists(p):
                text = open(p).read().replace("\\\n", " ")
                for m in re.finditer(r"^\s*#\s*define\s+(\w+)(\(([^)]*)\))?",
                                     text, re.M):
                    name = m.group(1)
                    if re.fullmatch(r"_CM\w*_H|_CM5_\w*_H|CM5_\w+_H", name):
                        continue  # include guards
                    params = None
                    if m.group(2):
                        params = [x.strip() for x in m.group(3).split(",")
                                  if x.strip()]
                    found.setdefault(name, params)
    return found


ALLOWED = re.compile(r"(CMMD_|CMAML_|CMCN_|CMUTIL_|cm5|CM5_|_[A-Z_])")


def check_expansions(lang):
    ms = macros()
    lines = [SYSTEM]
    for h in HEADERS:
        lines.append("#include <%s>" % h)
    names = []
    for name, params in sorted(ms.items()):
        if params is None:
            use = name
        else:
            args = []
            for i, p in enumerate(params):
                if p == "...":
                    args += ["hygArgV%d" % k for k in range(4)]
                else:
                    args.append("hygArg%d" % i)
            use = "%s(%s)" % (name, ", ".join(args))
        names.append(name)
        lines.append("hyg_begin_%s %s hyg_end" % (name, use))
    out = subprocess.run(compiles(lang, "64")[:-1 - len(INC)] + INC +
                         ["-E", "-P", "-x", "c" if lang == "c" else "c++",
                          "-"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True)
    bad = []
    text = out.stdout
    for name in names:
        m = re.search(r"hyg_begin_%s\b(.*?)\bhyg_end" % re.escape(name),
                      text, re.S)
        if not m:
            continue  # not defined in this language/mode
        body = re.sub(r'"(\\.|[^"\\])*"', '""', m.group(1))
        for ident in set(re.findall(r"\b[A-Za-z_]\w*\b", body)):
            if ident in KEYWORDS or ident.startswith("hygArg") or \
                    ALLOWED.match(ident) or ident == name:
                continue
            bad.append("%s expands to %s" % (name, ident))
    report(out.returncode == 0 and not bad,
           "%s: the headers' %d macros expand only to keywords, their "
           "arguments and CMMD_/CMAML_/CMCN_/CMUTIL_/cm5/CM5_/reserved names"
           % (lang, len(names)), out.stderr + "\n".join(sorted(bad)))


check_poison()
check_expansions("c")
check_expansions("c++")
print("1..%d" % tap)
sys.exit(0)
