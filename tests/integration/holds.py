#!/usr/bin/env python3
"""Every exported CMMD/CMAML/CMCN/CMUTIL entry point (and dseek & co.)
in cmmd_compat/*.c holds interrupts for its whole duration: its body,
macros expanded, starts a CM5C_HOLD() -- or it only calls another entry
point.  Usage: holds.py SRCDIR BUILDDIR [CC].  Prints the entry points
without a hold and exits 1 if there is any."""
import re, subprocess, sys, glob
src=sys.argv[1]
build=sys.argv[2] if len(sys.argv) > 2 else src
cc=(sys.argv[3] if len(sys.argv) > 3 else 'cc').split()
names=set(l.strip() for l in subprocess.run(['python3',src+'/doc/cmmd-compat.py',src,'--names'],capture_output=True,text=True).stdout.split())
# also exported names not in the real header (cm5fab-only CMMD/CMCN names)
missing=[]
for f in sorted(glob.glob(src+'/cmmd_compat/*.c')):
    pp=subprocess.run(cc+['-E','-P','-DCMMD_PROTOTYPES','-D_GNU_SOURCE','-std=c11','-I'+src+'/am/api','-I'+src+'/cmmd_compat/api','-I'+src+'/am','-I'+build,f],capture_output=True,text=True)
    if pp.returncode:
        print('cpp failed on', f, pp.stderr[:500])
        sys.exit(1)
    t=pp.stdout
    # function definitions at top level: NAME(params) { ... }
    for m in re.finditer(r'\n[A-Za-z_][\w\s\*]*?\b((?:CM[A-Z]+|cm5c)_\w+|dseek|dtell|dlength|dftruncate)\s*\(([^;{]*?)\)\s*\{', t):
        name=m.group(1)
        if name.startswith('cm5c_'): continue
        # body
        i=m.end(); depth=1; j=i
        while depth:
            c=t[j]
            if c=='{': depth+=1
            elif c=='}': depth-=1
            j+=1
        body=t[i:j-1]
        if 'cm5c_hold_enter()' in body: continue
        stmts=[x.strip() for x in body.strip().split(';') if x.strip()]
        if len(stmts)<=2 and re.match(r'^(return\s+)?\(?\s*(CM[A-Z]+_\w+|dseek|dtell|dlength|dftruncate)\s*\(', stmts[0]):
            continue  # an alias of another entry point
        missing.append((f.split('/')[-1],name))
for f, n in missing:
    print('%s: %s does not hold interrupts' % (f, n))
print('%d entry points without a hold' % len(missing))
sys.exit(1 if missing else 0)
