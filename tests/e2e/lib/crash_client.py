#!/usr/bin/env python3
"""Crash-consistency driver for `tierlab serve` on a persistent volume.

Each iteration: start the server, drive verified writes over NBD (batches of
pipelined 4 KiB writes, some with FUA, a FLUSH every few batches, reads that
must return the newest acknowledged data), SIGKILL the server at a random
moment (usually with writes in flight), run `tierlab check` on the crashed
volume, restart the server and read every block back:

  * a block holds the version durable at the last completed FLUSH (or FUA
    write), or a version written after it (acknowledged or in flight);
  * never an older version, never data that was never written to that
    block (each block's content encodes its block number and version and is
    compared byte for byte), never a torn mix.

The observed contents become the next iteration's durable state.

usage: crash_client.py TIERLAB_BIN VOLUME_DIR ITERATIONS SEED
"""

import hashlib
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

BS = 4096
BLOCKS = 6144  # 24 MiB: three times the 8 MiB cache, so destage and eviction run
MAGIC = 0x544C43524153480A  # "TLCRASH\n"

NBD_REQUEST_MAGIC = 0x25609513
NBD_SIMPLE_REPLY_MAGIC = 0x67446698
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH = 0, 1, 2, 3
CMD_FLAG_FUA = 1


def content(block, version):
    head = struct.pack("<QQQ", MAGIC, block, version)
    fill = hashlib.blake2b(b"%d:%d" % (block, version), digest_size=64).digest()
    return head + (fill * 64)[: BS - len(head)]


def decode(data):
    if data == bytes(BS):
        return None  # zeros: never written
    magic, block, version = struct.unpack_from("<QQQ", data)
    if magic != MAGIC or content(block, version) != data:
        return ("garbage", block, version)
    return (block, version)


class Nbd:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        hello = self.recv(18)
        assert hello[:16] == b"NBDMAGICIHAVEOPT", hello
        (sflags,) = struct.unpack(">H", hello[16:18])
        no_zeroes = sflags & 2
        self.s.sendall(struct.pack(">I", 1 | no_zeroes))
        self.s.sendall(b"IHAVEOPT" + struct.pack(">II", 1, 0))  # NBD_OPT_EXPORT_NAME ""
        reply = self.recv(10 if no_zeroes else 134)
        self.size, self.tflags = struct.unpack(">QH", reply[:10])
        self.handle = 0

    def recv(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("server closed the connection")
            buf += chunk
        return bytes(buf)

    def send(self, cmd, offset=0, length=0, data=b"", flags=0):
        self.handle += 1
        self.s.sendall(
            struct.pack(">IHHQQI", NBD_REQUEST_MAGIC, flags, cmd, self.handle, offset, length) + data
        )
        return self.handle

    def reply(self, read_len=0):
        magic, err, handle = struct.unpack(">IIQ", self.recv(16))
        assert magic == NBD_SIMPLE_REPLY_MAGIC, hex(magic)
        data = self.recv(read_len) if read_len and err == 0 else b""
        return handle, err, data

    def read(self, block, count=1):
        self.send(CMD_READ, block * BS, count * BS)
        _, err, data = self.reply(count * BS)
        if err:
            raise RuntimeError("read error %d" % err)
        return data

    def close(self):
        try:
            self.send(CMD_DISC)
        except OSError:
            pass
        self.s.close()


class Model:
    def __init__(self):
        self.durable = {}  # block -> version durable (flush or FUA)
        self.since = {}  # block -> versions written after durable[block]
        self.acked = {}  # block -> newest acknowledged version
        self.version = 0

    def allowed(self, b):
        a = set(self.since.get(b, ()))
        a.add(self.durable.get(b))  # None: zeros (never durably written)
        return a


def start_server(tierlab, vol):
    sock = os.path.join(vol, "nbd.sock")
    err = open(os.path.join(vol, "..", "serve.err"), "ab")
    p = subprocess.Popen([tierlab, "serve", vol, "--nbd", "unix:" + sock], stdout=subprocess.DEVNULL, stderr=err)
    for _ in range(400):
        if os.path.exists(sock):
            try:
                return p, Nbd(sock)
            except OSError:
                pass
        if p.poll() is not None:
            raise SystemExit("serve exited at startup with %d" % p.returncode)
        time.sleep(0.01)
    raise SystemExit("serve did not listen")


def workload(nbd, m, rng, stop):
    """Runs until the connection breaks (the server was killed)."""
    batches = 0
    try:
        while not stop.is_set():
            batch = []
            used = set()
            for _ in range(rng.randint(1, 16)):
                b = rng.randrange(BLOCKS)
                if b in used:
                    continue  # in-flight writes to one block are not ordered
                used.add(b)
                m.version += 1
                v = m.version
                fua = rng.random() < 0.05
                m.since.setdefault(b, []).append(v)  # possible from the moment it is sent
                h = nbd.send(CMD_WRITE, b * BS, BS, content(b, v), CMD_FLAG_FUA if fua else 0)
                batch.append((h, b, v, fua))
            # Replies come in completion order (a FUA write is slower): match
            # them to their requests by handle.
            by_handle = {h: (b, v, fua) for h, b, v, fua in batch}
            for _ in batch:
                h, err, _ = nbd.reply()
                if err:
                    raise SystemExit("write error %d" % err)
                b, v, fua = by_handle.pop(h)
                m.acked[b] = v
                if fua:
                    m.durable[b] = v
                    m.since[b] = [x for x in m.since[b] if x > v]
            batches += 1
            if batches % 4 == 0:
                # Everything acknowledged so far is covered by this flush.
                snapshot = dict(m.acked)
                nbd.send(CMD_FLUSH)
                _, err, _ = nbd.reply()
                if err:
                    raise SystemExit("flush error %d" % err)
                for b, v in snapshot.items():
                    if m.durable.get(b) is None or m.durable[b] < v:
                        m.durable[b] = v
                        m.since[b] = [x for x in m.since.get(b, []) if x > v]
            if batches % 8 == 0:
                b = rng.randrange(BLOCKS)
                got = decode(nbd.read(b))
                want = m.acked.get(b)
                if (got is None and want is not None) or (got is not None and got != (b, want)):
                    raise SystemExit("live read of block %d: got %r, newest acknowledged %r" % (b, got, want))
    except (ConnectionError, BrokenPipeError, ConnectionResetError, OSError):
        pass
    return batches


def verify_all(nbd, m):
    bad = []
    chunk = 256
    for first in range(0, BLOCKS, chunk):
        data = nbd.read(first, chunk)
        for i in range(chunk):
            b = first + i
            got = decode(data[i * BS : (i + 1) * BS])
            allowed = m.allowed(b)
            if got is None:
                ok = None in allowed
                v = None
            else:
                ok = got[0] == b and got[1] in allowed
                v = got[1] if got[0] == b else None
            if not ok:
                bad.append((b, got, sorted(x for x in allowed if x is not None), None in allowed))
                continue
            # What is there now is durable from here on (it was read back after recovery).
            m.durable[b] = v
            m.since[b] = []
            m.acked[b] = v
    return bad


def main():
    tierlab, vol, iterations, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    m = Model()
    t0 = time.time()
    total_batches = 0
    for it in range(iterations):
        proc, nbd = start_server(tierlab, vol)
        stop = threading.Event()
        delay = rng.uniform(0.02, 0.4)

        def kill(p=proc):
            os.kill(p.pid, signal.SIGKILL)

        timer = threading.Timer(delay, kill)
        timer.start()
        total_batches += workload(nbd, m, rng, stop)
        timer.join()
        proc.wait()
        nbd.s.close()
        chk = subprocess.run([tierlab, "check", vol], capture_output=True, text=True)
        if chk.returncode != 0:
            print(chk.stdout, chk.stderr)
            raise SystemExit("iteration %d: tierlab check failed after the crash" % it)
        proc, nbd = start_server(tierlab, vol)
        bad = verify_all(nbd, m)
        nbd.close()
        proc.send_signal(signal.SIGINT)
        if proc.wait() != 0:
            raise SystemExit("iteration %d: serve exited with %d" % (it, proc.returncode))
        if bad:
            for b in bad[:10]:
                print("block %d: got %r, allowed versions %r (zeros allowed: %r)" % b)
            raise SystemExit("iteration %d: %d blocks hold data that must not be there" % (it, len(bad)))
        if (it + 1) % 100 == 0:
            print("progress: %d iterations, %d writes, %.0f s" % (it + 1, m.version, time.time() - t0), flush=True)
    print(
        "crash iterations: %d, write batches: %d, writes: %d, %.1f s, no lost or foreign data"
        % (iterations, total_batches, m.version, time.time() - t0)
    )


if __name__ == "__main__":
    main()
