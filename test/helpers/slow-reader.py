# Slow HTTP readers for the backpressure tests: N connections with a tiny
# receive buffer (set before connect, so the TCP window stays small), each
# sending one GET and reading only its first bytes. Optional fifth argument:
# Accept-Encoding values separated by '|', given to the connections in turn
# ('' for none). Prints "ready" once every
# connection has bytes (with the count of each status), then holds until
# stdin closes; exits closing them all.
import socket, sys

host, port, path, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
codings = sys.argv[5].split("|") if len(sys.argv) > 5 else [""]
socks = []
for i in range(n):
    coding = codings[i % len(codings)]
    extra = f"Accept-Encoding: {coding}\r\n" if coding else ""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((host, port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{extra}\r\n".encode())
    socks.append(s)
heads = [s.recv(1024) for s in socks]
statuses = [h.split(b" ")[1].decode() if h.startswith(b"HTTP/1.1 ") else "none" for h in heads]
counts = {k: statuses.count(k) for k in sorted(set(statuses))}
print(f"ready {sum(len(h) for h in heads)} {' '.join(f'{k}:{v}' for k, v in counts.items())}", flush=True)
sys.stdin.read()
for s in socks:
    s.close()
