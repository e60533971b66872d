import socket, sys, time, re
out = open(sys.argv[1], 'w')
for i in range(200):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect('/tmp/qmon.sock'); break
    except Exception:
        time.sleep(0.2)
s.settimeout(2)
def cmd(c):
    s.sendall((c + '\n').encode())
    buf = b''
    while True:
        try:
            d = s.recv(65536)
        except socket.timeout:
            break
        if not d: raise SystemExit
        buf += d
        if buf.rstrip().endswith(b'(qemu)'): break
    return buf.decode(errors='replace')
cmd('')
t0 = time.time()
while True:
    try:
        r = cmd('info jit')
    except (SystemExit, OSError):
        break
    vals = dict(re.findall(r'\n\s*([A-Za-z][A-Za-z /-]*?)\s{2,}(\d+)', r))
    out.write('%.2f %s\n' % (time.time() - t0, ' | '.join('%s=%s' % kv for kv in vals.items())))
    out.flush()
    time.sleep(1)
