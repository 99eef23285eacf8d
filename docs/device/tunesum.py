import re, sys
def dur(s):
    m = re.match(r'([\d.]+)(ns|µs|ms|s)$', s)
    return float(m.group(1)) * {'ns': 1e-9, 'µs': 1e-6, 'ms': 1e-3, 's': 1}[m.group(2)]
tot = n = keys = 0
try:
    for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
        m = re.search(r'compilation & bench: ([\d.]+(?:ns|µs|ms|s))\)', line)
        if m:
            tot += dur(m.group(1)); n += 1
        if line.startswith('Fastest result'):
            keys += 1
except FileNotFoundError:
    pass
print(f"{sys.argv[2]}: autotune {keys} keys, {n} candidates compiled and timed, {tot:.2f} s")
