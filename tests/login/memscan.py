import sys, re
# memscan.py PID NEEDLE...: exit 0 if no needle is in the process's writable private memory
pid = int(sys.argv[1]); needles = [n.encode() for n in sys.argv[2:]]
found = []; scanned = 0
with open(f"/proc/{pid}/maps") as m, open(f"/proc/{pid}/mem", "rb", 0) as mem:
    for line in m:
        f = line.split()
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        perms = f[1]; name = f[5] if len(f) > 5 else ""
        if "rw" not in perms[:2] or name.startswith("/") and not name.startswith("/dev/zero"):
            continue
        if hi - lo > (1 << 30):
            continue   # ASan shadow and reserved ranges: sparse, not data
        try:
            mem.seek(lo); data = mem.read(hi - lo)
        except (OSError, ValueError, OverflowError):
            continue
        scanned += len(data)
        for n in needles:
            if n in data: found.append(n.decode())
print("scanned", scanned, "bytes; found", sorted(set(found)))
sys.exit(1 if found else 0)
