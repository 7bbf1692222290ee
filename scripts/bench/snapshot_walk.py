#!/usr/bin/python3
# Baseline for scripts/bench/snapshot: the os.walk + hashlib snapshot.py from
# the article "Free Server, Untrusted Model: Diff the Filesystem Before You
# Trust the Exit Code" (/work/shared/seeds/000_*.txt), unchanged.
#
# Usage: snapshot_walk.py ROOT OUT
#
# Records every file under ROOT as (relative path, size, SHA-256), sorted,
# as indented JSON in OUT (/dev/null to time it alone).
import hashlib, json, os, sys

root, out = sys.argv[1], sys.argv[2]

def snapshot(root):
    items = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            h = hashlib.sha256()
            with open(p, 'rb') as f:
                for chunk in iter(lambda: f.read(65536), b''):
                    h.update(chunk)
            st = os.stat(p)
            items.append((rel, st.st_size, h.hexdigest()))
    items.sort()
    return items

json.dump(snapshot(root), open(out, 'w'), indent=2)
