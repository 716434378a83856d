# A crowd of bulk readers for the stress test and the crowd bench: N clients,
# each on its own connection with a small receive buffer, asking for one path
# again and again for a given time and reading each answer at most RATE
# bytes a second (0: as fast as it comes). A 503 is read whole and the client
# waits its Retry-After (plus up to a second of jitter) before asking again,
# as a well-behaved client does. Bounded in count (N) and time (SECONDS), on
# loopback only.
#
#   python3 crowd.py HOST PORT PATH N RATE SECONDS [RCVBUF]
#
# Prints one JSON line at the end: answers by status, bytes read, completed
# bodies, connections that failed to open.
import json, random, selectors, socket, sys, time

host, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
n, rate, seconds = int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
rcvbuf = int(sys.argv[7]) if len(sys.argv) > 7 else 2048
request = f"GET {path} HTTP/1.1\r\nHost: crowd\r\n\r\n".encode()
sel = selectors.DefaultSelector()
stats = {"status": {}, "bytes": 0, "complete": 0, "connect_failed": 0, "closed_early": 0}
end = time.monotonic() + seconds


class Client:
    def __init__(self):
        self.sock = None
        self.paused = False
        self.wake = time.monotonic() + random.random()  # spread the first requests over a second

    def start(self, now):
        self.wake = None
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            s.setblocking(False)
            s.connect_ex((host, port))
        except OSError:
            stats["connect_failed"] += 1
            self.wake = now + 1
            return
        self.sock, self.buf, self.sent, self.paused = s, bytearray(), False, False
        self.head = None
        self.t0, self.got = now, 0
        sel.register(s, selectors.EVENT_WRITE, self)

    def close(self, retry_after):
        if self.sock is not None:
            if not self.paused:
                sel.unregister(self.sock)
            self.sock.close()
            self.sock = None
        self.wake = time.monotonic() + retry_after + random.random()

    def on_event(self, now):
        if not self.sent:
            try:
                self.sock.send(request)
            except OSError:
                stats["connect_failed"] += 1
                self.close(1)
                return
            self.sent = True
            sel.modify(self.sock, selectors.EVENT_READ, self)
            return
        # Read at most what the rate allows so far.
        allowed = 1 << 16 if rate <= 0 else int(rate * (now - self.t0)) - self.got
        if allowed <= 0:
            sel.unregister(self.sock)
            self.paused = True
            return
        try:
            b = self.sock.recv(min(allowed, 1 << 16))
        except BlockingIOError:
            return
        except OSError:
            b = b""
        if not b:
            if self.head is None:
                stats["closed_early"] += 1
            self.close(0)
            return
        self.got += len(b)
        stats["bytes"] += len(b)
        self.buf += b
        if self.head is None and b"\r\n\r\n" in self.buf:
            head, _, rest = bytes(self.buf).partition(b"\r\n\r\n")
            self.head = head
            status = head.split(b" ")[1].decode()
            stats["status"][status] = stats["status"].get(status, 0) + 1
            self.status = int(status)
            self.buf = bytearray(rest)
        if self.head is not None:
            # The end of an answer: a whole Content-Length body, or the last chunk of a chunked one.
            lower = self.head.lower()
            if b"content-length:" in lower:
                length = int(lower.split(b"content-length:")[1].split(b"\r\n")[0])
                done = len(self.buf) >= length
            else:
                done = self.buf.endswith(b"0\r\n\r\n")
            if done:
                if self.status == 200:
                    stats["complete"] += 1
                self.close(1 if self.status == 503 else 0)
            elif len(self.buf) > 1 << 16:
                del self.buf[:-8]  # keep only the tail, to spot the end


clients = [Client() for _ in range(n)]
print("ready", flush=True)
while True:
    now = time.monotonic()
    if now >= end:
        break
    for c in clients:
        if c.sock is None and c.wake is not None and c.wake <= now:
            c.start(now)
        elif c.sock is not None and c.paused and int(rate * (now - c.t0)) > c.got:
            c.paused = False
            sel.register(c.sock, selectors.EVENT_READ, c)
    for key, _ in sel.select(timeout=0.02):
        key.data.on_event(time.monotonic())
for c in clients:
    if c.sock is not None:
        c.sock.close()
print(json.dumps(stats), flush=True)
