# A client that pipelines N requests for one path in one go and never reads
# (a 4 KB receive buffer, set before connect): the server must not hold their
# answers. Prints "sent <n>" once the requests are out, then holds the
# connection until a line arrives on stdin.
import socket, sys

host, port, path, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect((host, port))
req = f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n".encode()
s.settimeout(10)
sent = 0
try:
    for _ in range(n // 10):
        s.sendall(req * 10)
        sent += 10
except OSError:
    pass  # the server closed the connection: what it should do
print(f"sent {sent}", flush=True)
sys.stdin.readline()
s.close()
