# Held HTTP readers for the shutdown test: N connections with a tiny receive
# buffer (set before connect, so the server meets backpressure), each sending
# one GET and reading only its first bytes. Prints "ready" once every
# connection has bytes; on a line from stdin reads each response to its end
# and prints one JSON line: per connection, the status and the body's CSV rows.
import json, socket, sys

host, port, path, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
socks, first = [], []
for _ in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((host, port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    socks.append(s)
for s in socks:
    first.append(s.recv(1024))
print("ready", flush=True)
sys.stdin.readline()
out = []
for s, head in zip(socks, first):
    s.settimeout(30)
    data = bytearray(head)
    while True:
        b = s.recv(1 << 16)
        if not b:
            break
        data += b
    s.close()
    header, _, body = bytes(data).partition(b"\r\n\r\n")
    status = int(header.split(b" ")[1])
    if b"transfer-encoding: chunked" in header.lower():
        plain, i = bytearray(), 0
        while True:
            j = body.index(b"\r\n", i)
            size = int(body[i:j], 16)
            if size == 0:
                break
            plain += body[j + 2:j + 2 + size]
            i = j + 2 + size + 2
        body = bytes(plain)
    out.append({"status": status, "rows": body.count(b"\r\n") - 1, "ends_with_crlf": body.endswith(b"\r\n")})
print(json.dumps(out), flush=True)
