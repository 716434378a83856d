# One connection with a tiny receive buffer and segment size (set before
# connect, so the TCP window stays small and the server's socket fills after
# some KB), the requests on stdin written at once (a pipeline), nothing read
# for the delay given (ms), then everything read until the server closes or
# 5 s pass. The bytes go to stdout as they came; the last line on stderr is
# "closed" and the ms from the write to the close, or "open".
import socket, sys, time

host, port, delay = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
reqs = sys.stdin.buffer.read()
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
# A small segment size too: the server's kernel sizes the socket's send buffer from it (about 20 segments),
# as over a real network, rather than from loopback's 64 KB segments (over a MB).
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
s.connect((host, port))
t0 = time.monotonic()
s.sendall(reqs)
time.sleep(delay / 1000)
s.settimeout(0.2)
got, closed = [], None
while time.monotonic() - t0 < 5:
    try:
        b = s.recv(65536)
    except socket.timeout:
        continue
    except ConnectionResetError:
        b = b""
    if not b:
        closed = time.monotonic() - t0
        break
    got.append(b)
sys.stdout.buffer.write(b"".join(got))
sys.stderr.write(f"closed {closed * 1000:.0f}\n" if closed is not None else "open\n")
s.close()
