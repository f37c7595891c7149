#!/usr/bin/env python3
"""Every program the test scripts, the benchmarks and the demo call comes
from a package that quickstart.sh installs (issue 23).

Parses each shell script with shfmt (its JSON syntax tree, not a regular
expression), takes the command of every simple command (through wrappers
such as timeout, env, exec, nice and "ip netns exec", and through
variables given a literal default such as MPICC=${MPICC:-mpicc}), and
finds the Debian package that owns that program here (dpkg -S).  The
package must be in the minimal Debian root (Essential packages and apt,
what mmdebstrap --variant=apt makes) or be among quickstart.sh's packages
for that kind of script, or be a dependency of one of them (apt-cache
depends --recurse, Depends and Pre-Depends only).  A program that is not
installed at all fails too, unless it is one of the OPTIONAL ones below
and the script tests for it (command -v) before calling it.

    python3 tests/prereqs.py SRCDIR        TAP on stdout, exit 0
    python3 tests/prereqs.py SRCDIR -v     and each command's package
"""

import json
import os
import re
import shutil
import subprocess
import sys

# Shell builtins and keywords: nothing to install.
BUILTINS = set("""
. : [ alias bg break builtin cd command continue declare echo eval exec exit
export false fc fg getopts hash jobs kill let local printf pwd read readonly
return set shift shopt source test times trap true type typeset ulimit umask
unalias unset wait mapfile readarray disown enable help logout suspend
""".split())

# Programs a script may call only where present: the script must test for
# them (command -v NAME) and say in one line that it skips, and why.
OPTIONAL = {
    "srun": "Slurm's launcher: the Slurm cluster test (issue 27)",
    "sbatch": "Slurm (issue 27)",
    "prterun": "PRRTE's launcher, not in Debian 12's Open MPI 4.1",
    "flux": "Flux (issue 27)",
}

# Wrappers: the program they run is a later word.  The value says how
# many words to skip after the options: a number, or a function.
WRAPPERS = {
    "exec": 0, "nohup": 0, "setsid": 0, "stdbuf": 0, "nice": 0,
    "env": 0, "chrt": 1, "taskset": 1, "timeout": 1, "xargs": 0,
    "unshare": 0, "nsenter": 0, "chroot": 1, "runuser": 0, "time": 0,
    "ionice": 0, "valgrind": 0, "strace": 0, "perf": None,
}
# Options that take an argument of their own, by wrapper.
OPT_ARGS = {
    "timeout": {"-k", "-s", "--kill-after", "--signal"},
    "nice": {"-n", "--adjustment"},
    "stdbuf": {"-i", "-o", "-e"},
    "env": {"-u", "-C", "--unset", "--chdir"},
    "xargs": {"-n", "-P", "-I", "-L", "-d", "-s", "-E", "-a"},
    "nsenter": {"-t", "--target", "-n", "-m", "-p", "-u", "-i", "-U"},
    "chrt": set(),
    "taskset": set(),
    "ionice": {"-c", "-n", "-p"},
    "strace": {"-o", "-e", "-p", "-s", "-E"},
    "valgrind": set(),
    "runuser": {"-u", "-g", "-G"},
    "unshare": {"--propagation", "-S", "-G", "--setuid", "--setgid",
                "-R", "--root", "-w", "--wd"},
}


def lit(word):
    """The literal text of a shfmt Word, or None if any part expands."""
    out = []
    for part in word.get("Parts", []):
        t = part.get("Type")
        if t == "Lit":
            out.append(part.get("Value", ""))
        elif t == "SglQuoted":
            out.append(part.get("Value", ""))
        elif t == "DblQuoted":
            for q in part.get("Parts", []):
                if q.get("Type") != "Lit":
                    return None
                out.append(q.get("Value", ""))
        else:
            return None
    return "".join(out)


def param_name(word):
    """NAME if the word is just $NAME or "$NAME" (or ${NAME})."""
    parts = word.get("Parts", [])
    if len(parts) == 1 and parts[0].get("Type") == "DblQuoted":
        parts = parts[0].get("Parts", [])
    if len(parts) == 1 and parts[0].get("Type") == "ParamExp":
        p = parts[0]
        if not p.get("Exp") and not p.get("Slice") and not p.get("Repl"):
            return p["Param"]["Value"]
    return None


def default_of(word):
    """For ${NAME:-lit} / ${NAME:=lit}: (NAME, lit)."""
    parts = word.get("Parts", [])
    if len(parts) == 1 and parts[0].get("Type") == "DblQuoted":
        parts = parts[0].get("Parts", [])
    if len(parts) != 1 or parts[0].get("Type") != "ParamExp":
        return None
    p = parts[0]
    exp = p.get("Exp")
    if not exp or not exp.get("Word"):
        return None
    value = lit(exp["Word"])
    if value is None:
        return None
    return p["Param"]["Value"], value


def walk(node, visit):
    if isinstance(node, dict):
        visit(node)
        for v in node.values():
            walk(v, visit)
    elif isinstance(node, list):
        for v in node:
            walk(v, visit)


class Script:
    def __init__(self, path):
        self.path = path
        out = subprocess.run(["shfmt", "--tojson"], stdin=open(path),
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit("%s: shfmt cannot parse it: %s"
                             % (path, out.stderr.strip()))
        self.tree = json.loads(out.stdout)
        self.funcs = set()
        self.defaults = {}
        self.calls = []      # (name, line)
        self.guarded = set()  # names tested with command -v
        walk(self.tree, self.collect)

    def collect(self, node):
        t = node.get("Type")
        if t == "FuncDecl":
            self.funcs.add(node["Name"]["Value"])
        if t == "ParamExp" and node.get("Exp") and node["Exp"].get("Word"):
            d = default_of({"Parts": [node]})
            if d:
                self.defaults.setdefault(d[0], set()).add(d[1])
        if t != "CallExpr":
            return
        for a in node.get("Assigns") or []:
            if a.get("Value"):
                d = default_of(a["Value"])
                if d:
                    self.defaults.setdefault(a["Name"]["Value"],
                                             set()).add(d[1])
                v = lit(a["Value"])
                if v is not None and re.fullmatch(r"[\w.+-]+", v):
                    self.defaults.setdefault(a["Name"]["Value"],
                                             set()).add(v)
        args = node.get("Args") or []
        if args:
            self.command(args, node["Pos"]["Line"])

    def command(self, args, line):
        i = 0
        while i < len(args):
            w = args[i]
            name = lit(w)
            if name is None:
                var = param_name(w)
                if var:
                    self.calls.append(("$" + var, line))
                return
            if name == "command" and i + 1 < len(args) and \
                    lit(args[i + 1]) in ("-v", "-V"):
                for g in args[i + 2:]:
                    gl = lit(g)
                    if gl is not None:
                        self.guarded.add(gl)
                    else:
                        var = param_name(g)
                        if var:
                            self.guarded.add("$" + var)
                return
            if name == "ip" and [lit(a) for a in args[i + 1:i + 3]] == \
                    ["netns", "exec"]:
                self.calls.append((name, line))
                i += 4
                continue
            if re.fullmatch(r"[A-Za-z_]\w*=.*", name):
                i += 1  # env's NAME=value
                continue
            self.calls.append((name, line))
            if name not in WRAPPERS or WRAPPERS[name] is None:
                return
            skip = WRAPPERS[name]
            opts = OPT_ARGS.get(name, set())
            i += 1
            while i < len(args):
                a = lit(args[i])
                if a is not None and a.startswith("-") and a != "-":
                    i += 2 if a in opts else 1
                    continue
                break
            i += skip


def packages(src, mode):
    out = subprocess.run(["sh", os.path.join(src, "quickstart.sh"),
                          "packages", mode], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("quickstart.sh packages %s: %s"
                         % (mode, out.stderr.strip()))
    return out.stdout.split()


def closure(pkgs):
    """The packages and their Depends/Pre-Depends, recursively."""
    pkgs = [p.split(":")[0] for p in pkgs]
    out = subprocess.run(
        ["apt-cache", "depends", "--recurse", "--important",
         "--no-recommends", "--no-suggests", "--no-conflicts", "--no-breaks",
         "--no-replaces", "--no-enhances"] + pkgs,
        capture_output=True, text=True)
    have = set(pkgs)
    for ln in out.stdout.splitlines():
        ln = ln.strip()
        m = re.match(r"\|?(?:Pre)?Depends: (\S+)", ln)
        if m:
            have.add(m.group(1).strip("<>").split(":")[0])
        elif ln and not ln.endswith(":") and " " not in ln:
            have.add(ln.strip("<>").split(":")[0])
    return have


def base_root():
    """What mmdebstrap --variant=apt installs: Essential packages, apt."""
    out = subprocess.run(["dpkg-query", "-W", "-f",
                          "${Package} ${Essential}\n"],
                         capture_output=True, text=True)
    ess = [ln.split()[0] for ln in out.stdout.splitlines()
           if ln.endswith(" yes")]
    return closure(ess + ["apt"])


owner_cache = {}


def owner(prog):
    """(package, path) of the Debian package that ships prog here."""
    if prog in owner_cache:
        return owner_cache[prog]
    found = None
    cands = []
    p = shutil.which(prog)
    if p:
        cands += [p, os.path.realpath(p)]
    for d in ("/usr/bin", "/usr/sbin", "/bin", "/sbin"):
        q = os.path.join(d, prog)
        if os.path.exists(q):
            cands += [q, os.path.realpath(q)]
    for c in cands:
        out = subprocess.run(["dpkg", "-S", c], capture_output=True,
                             text=True)
        for ln in out.stdout.splitlines() if out.returncode == 0 else ():
            if ln.startswith("diversion by "):
                continue
            m = re.match(r"([\w.+:-]+)(?:, [\w.+:-]+)*: /", ln)
            if m:
                found = (m.group(1).split(":")[0], c)
                break
        if found:
            break
    owner_cache[prog] = found or (None, cands[0] if cands else None)
    return owner_cache[prog]


def project_programs(src):
    """Programs the tree builds (tools/cm5run, examples/am_flood, ...)."""
    names = set()
    for root, _, files in os.walk(src):
        if "/.git" in root or "/_build" in root:
            continue
        for f in files:
            if f.endswith((".inc", ".am")):
                text = open(os.path.join(root, f), errors="replace").read()
                for m in re.finditer(r"_PROGRAMS\s*\+?=((?:[^\n]*\\\n)*"
                                     r"[^\n]*)", text):
                    for w in m.group(1).replace("\\\n", " ").split():
                        names.add(os.path.basename(w.replace("$(EXEEXT)",
                                                             "")))
            elif f.endswith(".in"):
                names.add(f[:-3])
    return names


def scripts(src):
    """(path, mode) of every shell script: tests, benchmarks, quickstart."""
    out = [(os.path.join(src, "quickstart.sh"), "check"),
           (os.path.join(src, ".ci", "run"), "check")]
    for top, mode in (("tests", "check"), ("bench", "bench")):
        for root, _, files in os.walk(os.path.join(src, top)):
            for f in sorted(files):
                if f.endswith(".sh"):
                    m = "fresh" if root.endswith("tests/fresh") else mode
                    out.append((os.path.join(root, f), m))
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "."
    verbose = "-v" in sys.argv[2:]
    if not shutil.which("shfmt"):
        print("1..0 # SKIP shfmt not found (quickstart.sh check installs it)")
        return 0
    if not shutil.which("apt-cache") or not shutil.which("dpkg"):
        print("1..0 # SKIP not a Debian system (no dpkg/apt-cache)")
        return 0
    base = base_root()
    modes = ("check", "bench", "fresh")
    allowed = {m: closure(packages(src, m)) | base for m in modes}
    out = subprocess.run(["dpkg-query", "-W", "-f",
                          "${Package} ${Status}\n"],
                         capture_output=True, text=True)
    installed = {ln.split()[0] for ln in out.stdout.splitlines()
                 if ln.endswith("install ok installed")}
    # A mode whose packages are not all here (quickstart.sh fresh's, on a
    # machine that ran only "check") cannot tell where a missing program
    # would come from: its scripts' missing programs are skipped, named.
    absent = {m: [p for p in packages(src, m)
                  if p.split(":")[0] not in installed and ":" not in p]
              for m in modes}
    ours = project_programs(src)
    todo = [(Script(p), m) for p, m in scripts(src)]
    funcs = set()
    for s, _ in todo:
        funcs |= s.funcs
    print("1..%d" % len(todo))
    n = 0
    for s, mode in todo:
        n += 1
        rel = os.path.relpath(s.path, src)
        bad = []
        unknown = []
        seen = set()
        for name, line in s.calls:
            names = [name]
            if name.startswith("$"):
                names = sorted(s.defaults.get(name[1:], ()))
            for prog in names:
                if prog in seen or prog in BUILTINS or prog in funcs:
                    continue
                seen.add(prog)
                if "/" in prog or prog in ours or \
                        not re.fullmatch(r"[\w.+-]+", prog):
                    continue
                pkg, path = owner(prog)
                guarded = prog in s.guarded or name in s.guarded
                if verbose:
                    print("# %s:%d %s -> %s" % (rel, line, prog, pkg))
                if pkg in allowed[mode]:
                    continue
                if prog in OPTIONAL and guarded:
                    continue
                if pkg is None and path is None and absent[mode]:
                    unknown.append(prog)
                    continue
                if pkg is None and path is None:
                    why = "not installed here"
                elif pkg is None:
                    why = "%s is in no Debian package" % path
                else:
                    why = "package %s" % pkg
                bad.append("%s (line %d): %s, which quickstart.sh %s does "
                           "not install" % (prog, line, why, mode))
        if bad:
            print("not ok %d - %s calls only what quickstart.sh installs"
                  % (n, rel))
            for b in bad:
                print("#   " + b)
        elif unknown:
            print("ok %d - %s calls only what quickstart.sh installs # SKIP "
                  "%s not installed, nor quickstart.sh %s's %s: cannot tell"
                  % (n, rel, ", ".join(unknown), mode,
                     " ".join(absent[mode])))
        else:
            print("ok %d - %s calls only what quickstart.sh installs"
                  % (n, rel))
    return 0


if __name__ == "__main__":
    sys.exit(main())
