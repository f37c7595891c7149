#!/usr/bin/env python3
"""Generate doc/cmmd-compat.md: every one of the real CMMD 3.x header's
594 public functions, marked provided, provided with a documented
difference, or not provided (and why).

Inputs, all in the source tree:
  doc/cmmd-real-names.tsv    the real header's names and return types
                             (family, return type, name, ...), from
                             ../shared/cmmd_real_names.tsv
  cmmd_compat/api/cm/**.h    our headers: what is declared, and its type
  doc/cmmd-compat-notes.tsv  hand-written: NAME-or-glob, kind, text;
                             kind "diff" (a provided name's difference)
                             or "missing" (why a name is not provided)

  cmmd-compat.py SRCDIR                 print the table (Markdown)
  cmmd-compat.py SRCDIR --redecl        print a C file that redeclares
                                        every provided name K&R style,
                                        with the real return type
  cmmd-compat.py SRCDIR --names         print the provided names

It fails (exit 1, one line per fault) when a provided name's return type
differs from the real one, or a missing name has no reason.
"""
import fnmatch
import glob
import os
import re
import sys

FAMILIES = [
    ("AM", "Active messages and ports (CMAML)"),
    ("AMI", "Active-message internals (CMAML)"),
    ("MP", "Point-to-point messages (CMMD)"),
    ("MPL", "Lower message layer (CMMP)"),
    ("PR", "Protocol layer (CMPR)"),
    ("CN", "Control network (CMMD, CMCN)"),
    ("HOST", "Host/node model and boot"),
    ("IO", "I/O"),
    ("TIMER", "Timers"),
    ("MISC", "Partition, errors, utilities"),
]

# Typedef names and their base types, to compare return types.
BASE = {
    "CMMD_mcb": "int", "CMMP_mcb": "int", "unsigned int": "unsigned",
    "LONGLONG_INT": "long", "LONGLONG_UINT": "unsigned long",
    "CMAML_handler_t": "fnptr", "cmpr_handler_t": "fnptr",
    "CMPR_matching_function_t": "intfnptr",
    "CMMD_matching_function_t": "intfnptr", "CMMD_errno_t": "int",
    "CMMD_io_mode_t": "CMMD_file_mode_t",
}

# How a real return type is spelled in a K&R redeclaration.
REDECL = {
    "fnptr": "void (*{}())()",
    "cmpr_handler_t*": "cmpr_handler_t *{}()",
}


def norm(t):
    t = re.sub(r"\s+", " ", t.replace("*", " * ")).strip()
    t = t.replace(" *", "*").replace("* ", "*")
    t = re.sub(r"^const ", "", t)
    return BASE.get(t, t)


def real_names(src):
    rows = []
    with open(os.path.join(src, "doc", "cmmd-real-names.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 3 and cols[2]:
                rows.append((cols[0], cols[1], cols[2]))
    return rows


DECL = re.compile(
    r"CMMD_API\s+(?:CMMD_NORETURN\s+)?([A-Za-z_][\w\s\*]*?)\s*\b(\w+)\s*"
    r"(?:CMMD_KR\s*)?\(")


def our_decls(src):
    """name -> (return type, header) for every CMMD_API function."""
    decls = {}
    hdrs = sorted(glob.glob(os.path.join(src, "cmmd_compat", "api", "cm",
                                         "**", "*.h"), recursive=True))
    for h in hdrs:
        text = open(h).read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        for m in DECL.finditer(text):
            ret, name = m.group(1).strip(), m.group(2)
            rel = os.path.relpath(h, os.path.join(src, "cmmd_compat", "api"))
            decls.setdefault(name, (ret, rel))
    return decls


def notes(src):
    out = []
    with open(os.path.join(src, "doc", "cmmd-compat-notes.tsv")) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 3 or cols[1] not in ("diff", "missing"):
                sys.exit("cmmd-compat-notes.tsv:%d: expected NAME<TAB>"
                         "diff|missing<TAB>TEXT" % n)
            out.append(tuple(cols))
    return out


def note_for(nts, name, kind):
    for pat, k, text in nts:
        if k == kind and fnmatch.fnmatchcase(name, pat):
            return text
    return None


def table(src):
    rows, decls, nts = real_names(src), our_decls(src), notes(src)
    faults, out = [], []
    counts = {"provided": 0, "differs": 0, "missing": 0}
    per_fam = {}
    for fam, rtype, name in rows:
        d = decls.get(name)
        if d:
            if norm(d[0]) != norm(rtype):
                faults.append("%s: returns %s here, %s in the real header"
                              % (name, d[0], rtype))
            diff = note_for(nts, name, "diff")
            status = "provided, differs" if diff else "provided"
            counts["differs" if diff else "provided"] += 1
            text = diff or ""
            where = d[1]
        else:
            why = note_for(nts, name, "missing")
            if not why:
                faults.append("%s: not provided, and "
                              "doc/cmmd-compat-notes.tsv gives no reason"
                              % name)
                why = "?"
            status, text, where = "not provided", why, ""
            counts["missing"] += 1
        per_fam.setdefault(fam, []).append((name, rtype, status, where,
                                            text))
    return counts, per_fam, faults


def cell(s):
    return s.replace("|", "\\|")


def markdown(src):
    counts, per_fam, faults = table(src)
    total = sum(counts.values())
    p = print
    p("# CMMD 3.x compatibility table")
    p()
    p("Generated by `doc/cmmd-compat.py` from the real CMMD 3.x header's "
      "names (`doc/cmmd-real-names.tsv`), cm5fab's headers "
      "(`cmmd_compat/api/cm/`) and the notes in "
      "`doc/cmmd-compat-notes.tsv`; `tests/integration/compat_table.sh` "
      "fails when this file is stale, when a provided name's return type "
      "differs from the real one, or when a legacy K&R redeclaration of a "
      "provided name (`extern int CMAML_scopy();`) does not compile "
      "against `<cm/cmmd.h>`. Regenerate with `make compat-table`.")
    p()
    p("Of the real header's %d functions, cm5fab provides **%d**: %d as "
      "in the real library and %d with a documented difference; **%d** "
      "are not provided, each with the reason."
      % (total, counts["provided"] + counts["differs"], counts["provided"],
         counts["differs"], counts["missing"]))
    p()
    p("| Family | Real | Provided | Differs | Not provided |")
    p("|---|---|---|---|---|")
    for fam, title in FAMILIES:
        r = per_fam.get(fam, [])
        pr = sum(1 for x in r if x[2] == "provided")
        di = sum(1 for x in r if x[2] == "provided, differs")
        p("| %s | %d | %d | %d | %d |" % (title, len(r), pr, di,
                                          len(r) - pr - di))
    for fam, title in FAMILIES:
        r = per_fam.get(fam, [])
        if not r:
            continue
        p()
        p("## %s" % title)
        p()
        p("| Name | Real return | Status | Header | Note |")
        p("|---|---|---|---|---|")
        for name, rtype, status, where, text in sorted(r):
            p("| `%s` | `%s` | %s | %s | %s |"
              % (name, cell(rtype), status,
                 "`<%s>`" % where if where else "", cell(text)))
    return faults


def redecl(src):
    rows, decls = real_names(src), our_decls(src)
    print("/* Generated by doc/cmmd-compat.py --redecl: every provided name")
    print(" * redeclared as a legacy file of the 1990s would, K&R style, with")
    print(" * the real header's return type.  Must compile as gnu89. */")
    print("#include <cm/cmmd.h>")
    for fam, rtype, name in rows:
        if name not in decls:
            continue
        if rtype in REDECL:
            print("extern %s;" % REDECL[rtype].format(name))
        else:
            t = rtype.replace("*", " *")
            print("extern %s%s%s();" % (t, "" if t.endswith("*") else " ",
                                        name))
    print("int main(void) { return 0; }")
    return []


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else ""
    if mode == "--redecl":
        faults = redecl(src)
    elif mode == "--names":
        decls = our_decls(src)
        for _, _, name in real_names(src):
            if name in decls:
                print(name)
        faults = []
    else:
        faults = markdown(src)
    for f in faults:
        print("cmmd-compat.py: %s" % f, file=sys.stderr)
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
