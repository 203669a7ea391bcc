#!/usr/bin/env python3
"""Misbehaving NBD clients for the server-limits tests (tests/e2e/nbd_limits.sh).

usage:
  nbd_limits_client.py idle SOCKET COUNT HOLD_S
      Opens COUNT connections that never send a byte, holds them HOLD_S
      seconds, and prints how many the server closed meanwhile.
  nbd_limits_client.py unread SOCKET COUNT READS SIZE HOLD_S
      Opens COUNT connections, negotiates (NBD_OPT_GO), sends READS reads of
      SIZE bytes on each and never reads a reply; holds them HOLD_S seconds,
      prints how many the server closed meanwhile, then hangs up.
  nbd_limits_client.py probe SOCKET TIMEOUT_S
      Negotiates and reads 4 KiB; exit 0 if served within TIMEOUT_S, else 1
      (printing where it stopped).

Each connection is a plain blocking Unix socket; nothing here retries.
"""

import socket
import struct
import sys
import time

OPT_MAGIC = 0x49484156454F5054  # "IHAVEOPT"
OPT_REPLY_MAGIC = 0x3E889045565A9
REQUEST_MAGIC = 0x25609513
OPT_GO = 7
REP_ACK = 1
CMD_READ = 0
CLIENT_FLAGS = 3  # FIXED_NEWSTYLE | NO_ZEROES


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("server closed the connection")
        buf += chunk
    return buf


def negotiate(s):
    greeting = recv_exact(s, 18)
    if greeting[:8] != b"NBDMAGIC":
        raise ValueError("bad greeting")
    s.sendall(struct.pack(">I", CLIENT_FLAGS))
    data = struct.pack(">I", 0) + struct.pack(">H", 0)  # default export, no infos
    s.sendall(struct.pack(">QII", OPT_MAGIC, OPT_GO, len(data)) + data)
    while True:
        magic, _opt, rtype, length = struct.unpack(">QIII", recv_exact(s, 20))
        if magic != OPT_REPLY_MAGIC:
            raise ValueError("bad option reply magic")
        recv_exact(s, length)
        if rtype == REP_ACK:
            return
        if rtype & 0x80000000:
            raise ValueError("NBD_OPT_GO refused: 0x%x" % rtype)


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def closed_by_server(s):
    """True if the server closed `s` (EOF or reset); never blocks."""
    s.setblocking(False)
    try:
        while True:
            data = s.recv(1 << 16)
            if not data:
                return True
    except BlockingIOError:
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True
    finally:
        s.setblocking(True)


def hold(conns, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.1)
    closed = sum(1 for s in conns if closed_by_server(s))
    for s in conns:
        s.close()
    return closed


def cmd_idle(path, count, hold_s):
    conns = [connect(path) for _ in range(count)]
    print("opened %d, closed by the server: %d" % (count, hold(conns, hold_s)))


def cmd_unread(path, count, reads, size, hold_s):
    conns = []
    for _ in range(count):
        s = connect(path)
        negotiate(s)
        req = b"".join(
            struct.pack(">IHHQQI", REQUEST_MAGIC, 0, CMD_READ, i, 0, size) for i in range(reads))
        s.sendall(req)
        conns.append(s)
    print("opened %d with %d unread reads of %d bytes, closed by the server: %d" %
          (count, reads, size, hold(conns, hold_s)))


def cmd_probe(path, timeout_s):
    stage = "connect"
    try:
        s = connect(path)
        s.settimeout(timeout_s)
        stage = "negotiate"
        negotiate(s)
        stage = "read"
        s.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, 0, CMD_READ, 1, 0, 4096))
        head = recv_exact(s, 16)
        magic, error, cookie = struct.unpack(">IIQ", head)
        if magic != 0x67446698 or error != 0 or cookie != 1:
            raise ValueError("bad reply %x %d %d" % (magic, error, cookie))
        recv_exact(s, 4096)
        s.close()
    except Exception as e:  # noqa: BLE001 - any failure is the answer
        print("probe failed at %s: %s" % (stage, e))
        return 1
    print("probe served")
    return 0


def main(argv):
    if len(argv) >= 5 and argv[1] == "idle":
        cmd_idle(argv[2], int(argv[3]), float(argv[4]))
        return 0
    if len(argv) >= 7 and argv[1] == "unread":
        cmd_unread(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), float(argv[6]))
        return 0
    if len(argv) >= 4 and argv[1] == "probe":
        return cmd_probe(argv[2], float(argv[3]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
