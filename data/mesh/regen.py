#!/usr/bin/env python3
"""Make the shipped mesh graphs data/mesh/NAME.graph.gz again.

Each is the nodal graph (vertices and tetrahedron edges) of a 3-D
tetrahedral mesh made by gmsh from our own geometry (ALGORITHMS.md 5.9):
the box [-1.5,2.5]x[-1.5,1.5]x[-0.75,2.25] minus a wing, an extruded
ellipse of semi-axes 0.5 x 0.15 and span 1.5; OpenCASCADE kernel,
CharacteristicLengthMax 0.45, curvature sizing with 10 elements per 2 pi,
and Mesh.MeshSizeFactor as the size knob.  The vertices are renumbered in
Cuthill-McKee order (smaller files; METIS does not care).

The factors below were picked to come close to the vertex counts of
wang1993's ICASE meshes (2800, 9428, 53961), which are not public.  gmsh's
vertex count is not monotonic in the factor and may change with the gmsh
version: after a gmsh upgrade, search the factor again (--try F).

usage: data/mesh/regen.py [--try FACTOR] [--stats P] [NAME...]
needs: gmsh (Debian gmsh 4.8.4 made the shipped files); --stats also
needs gpmetis (Debian metis)."""
import gzip
import os
import subprocess
import sys
import tempfile
from collections import deque

MESHES = {'airfoil2800': 1.26, 'airfoil9428': 0.66, 'airfoil53961': 0.263}
HERE = os.path.dirname(os.path.abspath(__file__))

GEO = """SetFactory("OpenCASCADE");
Box(1)={-1.5,-1.5,-0.75,4,3,3};
Disk(10)={0.5,0,0,0.5,0.15};
w[]=Extrude{0,0,1.5}{Surface{10};};
BooleanDifference{Volume{1};Delete;}{Volume{w[1]};Delete;}
Mesh.CharacteristicLengthMax=0.45;
Mesh.CharacteristicLengthFromCurvature=1;
Mesh.MinimumElementsPerTwoPi=10;
Mesh.MshFileVersion=2.2;
Mesh.MeshSizeFactor=%g;
"""


def mesh(factor, tmp):
    geo, msh = os.path.join(tmp, 'm.geo'), os.path.join(tmp, 'm.msh')
    open(geo, 'w').write(GEO % factor)
    subprocess.run(['gmsh', '-3', '-nt', '1', geo, '-o', msh], check=True,
                   stdout=subprocess.DEVNULL)
    return msh


def msh_graph(msh):
    """Vertices of the tetrahedra, edges of the tetrahedra (MSH 2.2)."""
    f = open(msh).read().split('\n')
    edges = set()
    i = f.index('$Elements')
    for line in f[i + 2:i + 2 + int(f[i + 1])]:
        a = line.split()
        if a[1] != '4':  # tetrahedra only
            continue
        vs = [int(x) for x in a[3 + int(a[2]):]]
        for p in range(4):
            for q in range(p + 1, 4):
                u, v = vs[p], vs[q]
                edges.add((min(u, v), max(u, v)))
    used = sorted({x for e in edges for x in e})
    idx = {v: k for k, v in enumerate(used)}
    adj = [[] for _ in used]
    for u, v in edges:
        adj[idx[u]].append(idx[v])
        adj[idx[v]].append(idx[u])
    return adj


def bfs(adj, s, seen):
    order, q = [s], deque([s])
    seen[s] = True
    while q:
        v = q.popleft()
        for u in sorted(adj[v], key=lambda u: (len(adj[u]), u)):
            if not seen[u]:
                seen[u] = True
                order.append(u)
                q.append(u)
    return order


def cuthill_mckee(adj):
    n, seen, order = len(adj), [False] * len(adj), []
    for s in range(n):
        if not seen[s]:
            last = bfs(adj, s, [False] * n)[-1]  # pseudo-peripheral start
            order += bfs(adj, last, seen)
    new = [0] * n
    for k, v in enumerate(order):
        new[v] = k
    return [sorted(new[u] for u in adj[v]) for v in order]


def write(name, factor, adj, path):
    m = sum(len(a) for a in adj) // 2
    with gzip.GzipFile(path, 'wb', 9, mtime=0) as z:
        z.write(('%% %s: nodal graph of a gmsh tetrahedral mesh (cm5fab '
                 'data/mesh/regen.py, MeshSizeFactor %g)\n%d %d\n'
                 % (name, factor, len(adj), m)).encode())
        for a in adj:
            z.write((' '.join(str(u + 1) for u in a) + '\n').encode())


def stats(graph, p):
    """Fan-out and length statistics of the vertex halo matrix on p
    METIS parts (gpmetis -seed=1), as in ALGORITHMS.md 5.3."""
    subprocess.run(['gpmetis', '-seed=1', graph, str(p)], check=True,
                   stdout=subprocess.DEVNULL)
    part = [int(x) for x in open('%s.part.%d' % (graph, p))]
    os.unlink('%s.part.%d' % (graph, p))
    adj = [[int(x) - 1 for x in line.split()]
           for line in open(graph) if not line.startswith('%')][1:]
    com = {}
    for v, nb in enumerate(adj):
        for q in {part[u] for u in nb} - {part[v]}:
            com[part[v], q] = com.get((part[v], q), 0) + 1
    fan = [sum(1 for (i, _) in com if i == r) for r in range(p)]
    ln = list(com.values())
    return ('V=%d fan-out max/min/avg %d/%d/%.2f len max/min/avg %d/%d/%.2f'
            % (len(adj), max(fan), min(fan), sum(fan) / p, max(ln), min(ln),
               sum(ln) / len(ln)))


def main(argv):
    p, names = 0, []
    while argv:
        a = argv.pop(0)
        if a == '--try':
            with tempfile.TemporaryDirectory() as tmp:
                print('factor', argv[0], 'vertices',
                      len(msh_graph(mesh(float(argv.pop(0)), tmp))))
            return
        if a == '--stats':
            p = int(argv.pop(0))
        else:
            names.append(a)
    for name in names or sorted(MESHES):
        out = os.path.join(HERE, name + '.graph.gz')
        with tempfile.TemporaryDirectory() as tmp:
            adj = cuthill_mckee(msh_graph(mesh(MESHES[name], tmp)))
            write(name, MESHES[name], adj, out)
            line = '%s: %d vertices' % (out, len(adj))
            if p:
                g = os.path.join(tmp, 'g.graph')
                open(g, 'wb').write(gzip.open(out).read())
                line += '; %d parts: %s' % (p, stats(g, p))
            print(line)


main(sys.argv[1:])
