#!/usr/bin/env python3
"""The module graph of am/ (issue 25), computed from the library's
objects: module A depends on module B when A's object references a
symbol (function or variable) that B's object defines.  A registered
function pointer is no edge: the module that registers it names its own
static function, and the one that calls it names only the registry.

    python3 modules_graph.py SRCDIR BUILDDIR cycles   the modules in a call
                                               cycle, one cycle per line
                                               (members, then the
                                               edges inside it)
    python3 modules_graph.py SRCDIR BUILDDIR edges    every edge, with the
                                               symbols behind it
    python3 modules_graph.py SRCDIR BUILDDIR layers   the modules by layer (a
                                               module's layer is one
                                               more than the highest
                                               layer it calls)
    python3 modules_graph.py SRCDIR - includes        the same from the
                                               sources' #include lines
                                               alone (A -> B when a.c or
                                               a.h includes b.h): cycles,
                                               then the layers

A module is a source file of am/ (am/fabric/fab.c is "fabric/fab"); an
object left in the build tree by a source that is gone does not count.
CM5_GRAPH_DIR=algos CM5_GRAPH_LIB=libcm5sched_la draws another library
(the scheduling algorithms) the same way.
"""

import collections
import glob
import os
import re
import subprocess
import sys


DIR = os.environ.get("CM5_GRAPH_DIR", "am")
LIB = os.environ.get("CM5_GRAPH_LIB", "libcm5fab_la")


def objects(src, build):
    """{module: object file}, PIC objects first (libtool's .libs)."""
    found = {}
    for pat in (DIR + "/**/.libs/" + LIB + "-*.o", DIR + "/**/" + LIB + "-*.o"):
        for o in sorted(glob.glob(os.path.join(build, pat), recursive=True)):
            d = os.path.dirname(o)
            if d.endswith("/.libs"):
                d = d[:-6]
            rel = os.path.relpath(d, os.path.join(build, DIR))
            name = re.sub(r".*" + LIB + "-", "", o)[:-2]
            mod = name if rel == "." else rel + "/" + name
            if os.path.exists(os.path.join(src, DIR, mod + ".c")):
                found.setdefault(mod, o)
    return found


def graph(src, build):
    mods = objects(src, build)
    defs, uses = {}, collections.defaultdict(set)
    for m, o in mods.items():
        out = subprocess.run(["nm", o], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRGSVWC":
                defs[f[2]] = m
            elif len(f) == 2 and f[0] == "U":
                uses[m].add(f[1])
    edges = {m: collections.defaultdict(set) for m in mods}
    for m, syms in uses.items():
        for s in syms:
            if s in defs and defs[s] != m:
                edges[m][defs[s]].add(s)
    return mods, edges


def sccs(nodes, edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def include_graph(src):
    """{module: {module it includes the header of: {header}}}."""
    am = os.path.join(src, DIR)
    files = [os.path.relpath(f, am)
             for f in glob.glob(os.path.join(am, "**", "*.[ch]"),
                                recursive=True)
             if "/api/" not in f]
    mods = {f[:-2] for f in files}
    edges = {m: collections.defaultdict(set) for m in mods}
    for f in files:
        m = f[:-2]
        with open(os.path.join(am, f)) as fh:
            for inc in re.findall(r'^#include "([^"]+)\.h"', fh.read(), re.M):
                if inc in mods and inc != m:
                    edges[m][inc].add(inc + ".h")
    return mods, edges


def main():
    src, build, what = sys.argv[1], sys.argv[2], sys.argv[3]
    if what == "includes":
        mods, edges = include_graph(src)
        for comp in sccs(mods, edges):
            if len(comp) > 1:
                print("cycle: " + " ".join(comp))
        return
    mods, edges = graph(src, build)
    if not mods:
        print("no objects of %s under %s/%s" % (LIB, build, DIR),
              file=sys.stderr)
        sys.exit(2)
    if what == "edges":
        for m in sorted(edges):
            for t in sorted(edges[m]):
                print("%s -> %s: %s" % (m, t, " ".join(sorted(edges[m][t]))))
    elif what == "cycles":
        for comp in sccs(mods, edges):
            if len(comp) > 1:
                inside = ["%s->%s" % (a, b) for a in comp
                          for b in sorted(edges[a]) if b in comp]
                print(" ".join(comp) + " | " + " ".join(inside))
    elif what == "layers":
        layer = {}
        comps = sccs(mods, edges)  # reverse topological order
        for comp in comps:
            lv = 0
            for a in comp:
                for b in edges[a]:
                    if b not in comp:
                        lv = max(lv, layer[b] + 1)
            for a in comp:
                layer[a] = lv
        by = collections.defaultdict(list)
        for m, lv in layer.items():
            by[lv].append(m)
        for lv in sorted(by):
            print("%d: %s" % (lv, " ".join(sorted(by[lv]))))
    else:
        sys.exit("usage: modules_graph.py SRCDIR BUILDDIR cycles|edges|layers")


main()
