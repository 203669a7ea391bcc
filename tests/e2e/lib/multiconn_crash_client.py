#!/usr/bin/env python3
"""Crash client over several NBD connections (the second crash client).

Written apart from crash_client.py (it shares only the command line) so that
a mistake in one client's bookkeeping is not repeated in the other. It keeps
its own NBD framing, its own model of what was acknowledged and flushed, and
a different workload:

  * W writer connections and one more connection that sends only FLUSH:
    the export advertises NBD_FLAG_CAN_MULTI_CONN, so a flush on one
    connection covers every write whose reply the client had received, on
    any connection, before it sent the flush -- exactly that, and no more,
    is counted as flushed. (Without the flag, flushes go to the writer
    connections and cover that connection's writes only.)
  * writes of 1 to 16 blocks of 4 KiB, some with FUA (durable once
    acknowledged); TRIM and WRITE_ZEROES of whole blocks, some with FUA;
    live reads, which must return the newest acknowledged content;
  * SIGKILL of the server at a random moment, `tierlab check` (exit 0
    required), restart, and a read of every block of the export.

Model (per 4 KiB block, the line size of a volume): the client never has two
requests on one block in flight, so the versions sent to a block are ordered.
A version becomes *durable* when its FUA write is acknowledged, or when a
flush that covers its acknowledged write completes. After a crash a block
must read as its newest durable version or any version sent after it
(acknowledged or not); TRIM counts as writing zeros (see DURABILITY.md).
Anything else is reported: an older version (a lost flushed write), zeros
that were never written or trimmed, another block's data, a mix of versions
inside one block, or bytes the client never wrote.

usage: multiconn_crash_client.py TIERLAB TARGET ITERATIONS SEED [options]
  TARGET   a volume directory (tierlab create), or, for the negative
           control, a layout JSON file served with --data-dir (no persistent
           cache metadata: the client must report loss).
Exit: 0 no problem found, 1 data loss or corruption, a failing `check` or
a server that died by itself, 2 harness error (bad arguments, no server).
"""

import argparse
import hashlib
import os
import random
import selectors
import socket
import struct
import subprocess
import sys
import tempfile
import time

BLOCK = 4096
SECTOR = 512
MAGIC = b"TLMCBLK2"
ZERO_BLOCK = bytes(BLOCK)

# NBD protocol constants (https://github.com/NetworkBlockDevice/nbd/blob/master/doc/proto.md).
NBDMAGIC = 0x4E42444D41474943
IHAVEOPT = 0x49484156454F5054
OPT_REPLY_MAGIC = 0x3E889045565A9
REQUEST_MAGIC = 0x25609513
SIMPLE_REPLY_MAGIC = 0x67446698
FLAG_FIXED_NEWSTYLE = 1
FLAG_NO_ZEROES = 2
OPT_GO = 7
REP_ACK = 1
REP_INFO = 3
INFO_EXPORT = 0
TX_READ_ONLY = 1 << 1
TX_SEND_FLUSH = 1 << 2
TX_SEND_FUA = 1 << 3
TX_SEND_TRIM = 1 << 5
TX_SEND_WRITE_ZEROES = 1 << 6
TX_CAN_MULTI_CONN = 1 << 8
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH, CMD_TRIM, CMD_WRITE_ZEROES = 0, 1, 2, 3, 4, 6
CMD_FLAG_FUA = 1
CMD_NAMES = {CMD_READ: "read", CMD_WRITE: "write", CMD_FLUSH: "flush", CMD_TRIM: "trim",
             CMD_WRITE_ZEROES: "write_zeroes"}


class HarnessError(Exception):
    """The test could not run (exit 2)."""


class Failure(Exception):
    """tierlab did something wrong (exit 1)."""


# ---- Block contents -------------------------------------------------------

class Contents:
    """Version v of block b: eight 512-byte sectors, each starting with
    (magic, b, v, sector) and filled from a hash of (run tag, b, v), so a
    block names the write it came from and a mix of writes is visible."""

    def __init__(self, tag):
        self.tag = tag

    def make(self, block, version):
        if version == 0:
            return ZERO_BLOCK
        fill = hashlib.blake2b(struct.pack("<QQQ", self.tag, block, version),
                               digest_size=64).digest() * 8
        return b"".join(struct.pack("<8sQQQ", MAGIC, block, version, s) + fill[:SECTOR - 32]
                        for s in range(BLOCK // SECTOR))

    def identify(self, block, data):
        """('ok', version) or (kind, description)."""
        if data == ZERO_BLOCK:
            return "ok", 0
        magic, b, v, _ = struct.unpack_from("<8sQQQ", data, 0)
        if magic != MAGIC:
            return "garbage", "bytes this client never wrote"
        if b != block:
            return "foreign", "the data of block %d (version %d)" % (b, v)
        if data != self.make(block, v):
            parts = []
            for s in range(BLOCK // SECTOR):
                sec = data[s * SECTOR:(s + 1) * SECTOR]
                if sec == bytes(SECTOR):
                    parts.append("0")
                elif sec[:8] == MAGIC:
                    parts.append(str(struct.unpack_from("<Q", sec, 16)[0]))
                else:
                    parts.append("?")
            return "torn", "a mix of versions by sector: " + ",".join(parts)
        return "ok", v


# ---- NBD connection -------------------------------------------------------

class Op:
    __slots__ = ("cmd", "first", "count", "fua", "cookie", "conn", "index", "covers")

    def __init__(self, cmd, first=0, count=0, fua=False):
        self.cmd, self.first, self.count, self.fua = cmd, first, count, fua
        self.cookie = 0
        self.conn = None
        self.index = None   # per block: its position in the block's history
        self.covers = None  # flush: (acknowledgement log, entries it covers)


class Connection:
    """One NBD connection: a blocking handshake (NBD_OPT_GO), then
    non-blocking transmission with simple replies, driven by Loop."""

    _cookies = 0

    def __init__(self, path, name, timeout=10.0):
        self.name = name
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.size, self.tx_flags = self._handshake()
        self.sock.setblocking(False)
        self.out = bytearray()
        self.inbuf = bytearray()
        self.pending = {}
        self.closed = False
        self.log = []  # acknowledged writes not yet covered by a flush (per connection)
        self.log_base = 0

    def _recv_exact(self, n):
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = self.sock.recv_into(view[got:])
            if k == 0:
                raise HarnessError("%s: the server closed the connection in the handshake"
                                   % self.name)
            got += k
        return bytes(buf)

    def _handshake(self):
        magic, opt, hflags = struct.unpack(">QQH", self._recv_exact(18))
        if magic != NBDMAGIC or opt != IHAVEOPT or not hflags & FLAG_FIXED_NEWSTYLE:
            raise HarnessError("%s: not a fixed-newstyle NBD server" % self.name)
        self.sock.sendall(struct.pack(">I", FLAG_FIXED_NEWSTYLE | (hflags & FLAG_NO_ZEROES)))
        payload = struct.pack(">I", 0) + struct.pack(">H", 0)  # default export, no info requests
        self.sock.sendall(struct.pack(">QII", IHAVEOPT, OPT_GO, len(payload)) + payload)
        size = flags = None
        while True:
            rmagic, ropt, rtype, rlen = struct.unpack(">QIII", self._recv_exact(20))
            data = self._recv_exact(rlen)
            if rmagic != OPT_REPLY_MAGIC or ropt != OPT_GO:
                raise HarnessError("%s: bad option reply" % self.name)
            if rtype & 0x80000000:
                raise HarnessError("%s: NBD_OPT_GO refused (%#x)" % (self.name, rtype))
            if rtype == REP_INFO and len(data) >= 12 and struct.unpack_from(">H", data)[0] == INFO_EXPORT:
                size, flags = struct.unpack_from(">QH", data, 2)
            if rtype == REP_ACK:
                break
        if size is None:
            raise HarnessError("%s: no NBD_INFO_EXPORT in the reply to NBD_OPT_GO" % self.name)
        return size, flags

    def submit(self, op, payload=b""):
        Connection._cookies += 1
        op.cookie = Connection._cookies
        op.conn = self
        length = 0 if op.cmd == CMD_FLUSH else op.count * BLOCK
        flags = CMD_FLAG_FUA if op.fua else 0
        self.out += struct.pack(">IHHQQI", REQUEST_MAGIC, flags, op.cmd, op.cookie,
                                op.first * BLOCK, length)
        self.out += payload
        self.pending[op.cookie] = op

    def send_some(self):
        try:
            n = self.sock.send(self.out)
            del self.out[:n]
        except BlockingIOError:
            pass
        except OSError:
            self.closed = True

    def receive(self):
        """Completed (op, error, data) tuples; sets closed at EOF."""
        done = []
        try:
            chunk = self.sock.recv(1 << 20)
        except BlockingIOError:
            return done
        except OSError:
            chunk = b""
        if not chunk:
            self.closed = True
            return done
        self.inbuf += chunk
        while len(self.inbuf) >= 16:
            magic, err, cookie = struct.unpack_from(">IIQ", self.inbuf)
            if magic != SIMPLE_REPLY_MAGIC or cookie not in self.pending:
                raise Failure("%s: malformed reply (magic %#x, cookie %d)" % (self.name, magic, cookie))
            op = self.pending[cookie]
            need = 16 + (op.count * BLOCK if op.cmd == CMD_READ and err == 0 else 0)
            if len(self.inbuf) < need:
                break
            data = bytes(self.inbuf[16:need])
            del self.inbuf[:need]
            del self.pending[cookie]
            done.append((op, err, data))
        return done

    def close(self):
        if not self.closed:
            try:
                self.sock.setblocking(True)
                self.sock.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, 0, CMD_DISC, 0, 0, 0))
            except OSError:
                pass
        self.sock.close()
        self.closed = True


class Loop:
    """Runs connections until a condition holds or every one has closed."""

    def __init__(self, conns):
        self.conns = conns
        self.sel = selectors.DefaultSelector()
        for c in conns:
            self.sel.register(c.sock, selectors.EVENT_READ, c)

    def step(self, timeout):
        for c in self.conns:
            if not c.closed:
                want = selectors.EVENT_READ | (selectors.EVENT_WRITE if c.out else 0)
                self.sel.modify(c.sock, want, c)
        done = []
        for key, events in self.sel.select(timeout):
            c = key.data
            if c.closed:
                continue
            if events & selectors.EVENT_WRITE:
                c.send_some()
            if events & selectors.EVENT_READ:
                done.extend(c.receive())
            if c.closed:
                self.sel.unregister(c.sock)
        return done

    def all_closed(self):
        return all(c.closed for c in self.conns)

    def close(self):
        self.sel.close()


# ---- What the volume must hold --------------------------------------------

class Model:
    """Per block: the versions sent, in order (0: zeros), and the index of the
    newest durable one. Versions are unique over the whole run."""

    def __init__(self, blocks):
        self.history = [[0] for _ in range(blocks)]
        self.durable = [0] * blocks
        self.busy = bytearray(blocks)
        self.next_version = 1
        self.global_log = []  # acknowledged, not yet covered (CAN_MULTI_CONN)
        self.global_base = 0

    def start(self, op, zeros):
        """Records the versions a write, trim or write-zeroes sends."""
        op.index = []
        versions = []
        for b in range(op.first, op.first + op.count):
            v = 0 if zeros else self.next_version
            if not zeros:
                self.next_version += 1
            self.history[b].append(v)
            op.index.append(len(self.history[b]) - 1)
            versions.append(v)
        return versions

    def make_durable(self, op):
        for k, i in enumerate(op.index):
            b = op.first + k
            if i > self.durable[b]:
                self.durable[b] = i

    def acceptable(self, b):
        return self.history[b][self.durable[b]:]

    def rebase(self, observed):
        """After a verified restart and a completed flush: what was read is
        the durable state."""
        for b, v in enumerate(observed):
            self.history[b] = [v]
            self.durable[b] = 0
        # Writes acknowledged before the crash and never covered by a flush
        # were decided by the verification.
        self.global_base += len(self.global_log)
        self.global_log = []


# ---- The server process ---------------------------------------------------

class Server:
    def __init__(self, tierlab, target, data_dir, sock, log_path):
        self.cmd = [tierlab, "serve", target, "--nbd", "unix:" + sock]
        if data_dir:
            self.cmd += ["--dir", data_dir]
        self.sock = sock
        self.log_path = log_path
        self.proc = None

    def start(self):
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.cmd, stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise Failure("serve exited with %d at startup:\n%s" % (self.proc.returncode, self.log_tail()))
            try:
                return Connection(self.sock, "verify")
            except (FileNotFoundError, ConnectionRefusedError):
                time.sleep(0.02)
        raise HarnessError("serve did not listen on %s within 30 s" % self.sock)

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()

    def reap_killed(self):
        rc = self.proc.wait()
        if rc != -9:
            raise Failure("serve exited with %d before the client killed it:\n%s" % (rc, self.log_tail()))
        self.proc = None

    def stop(self):
        self.proc.send_signal(2)
        rc = self.proc.wait(timeout=120)
        self.proc = None
        if rc != 0:
            raise Failure("serve exited with %d after SIGINT:\n%s" % (rc, self.log_tail()))

    def log_tail(self, n=20):
        try:
            with open(self.log_path, "rb") as f:
                return b"".join(f.readlines()[-n:]).decode(errors="replace")
        except OSError:
            return ""


# ---- Workload, crash, verification ----------------------------------------

class Stats:
    def __init__(self):
        self.counts = dict.fromkeys(
            ["iterations", "write_ops", "write_blocks", "fua", "trims", "zeroes", "flushes",
             "reads", "unacked_at_kill", "check_warnings", "verified_blocks"], 0)

    def add(self, key, n=1):
        self.counts[key] += n

    def line(self):
        return " ".join("%s=%d" % kv for kv in self.counts.items())


class CrashTest:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.contents = Contents(args.seed)
        self.stats = Stats()
        self.layout_mode = os.path.isfile(args.target)
        if self.layout_mode and not args.data_dir:
            raise HarnessError("a layout target needs --data-dir")
        self.work = tempfile.mkdtemp(prefix="tierlab-mc-")
        sock = os.path.join(self.work, "nbd.sock")
        log = args.log or os.path.join(self.work, "serve.log")
        self.server = Server(args.tierlab, args.target, args.data_dir, sock, log)
        self.model = None
        self.multi_conn = None

    # -- verification --

    def read_all(self, conn):
        """Reads every block of the export through `conn`; returns the data."""
        blocks = conn.size // BLOCK
        chunk = 64
        data = [None] * blocks
        loop = Loop([conn])
        nxt = 0
        while nxt < blocks or conn.pending:
            while nxt < blocks and len(conn.pending) < 8:
                op = Op(CMD_READ, nxt, min(chunk, blocks - nxt))
                conn.submit(op)
                nxt += op.count
            for op, err, payload in loop.step(1.0):
                if err != 0:
                    raise Failure("verify: read of blocks %d+%d failed with error %d" % (op.first, op.count, err))
                for k in range(op.count):
                    data[op.first + k] = payload[k * BLOCK:(k + 1) * BLOCK]
            if conn.closed:
                raise Failure("verify: the server closed the connection")
        loop.close()
        return data

    def verify(self, conn, what):
        """Every block against the model; returns the versions read."""
        data = self.read_all(conn)
        observed = []
        problems = []
        for b, d in enumerate(data):
            kind, v = self.contents.identify(b, d)
            if kind != "ok":
                problems.append("block %d (offset %d): %s, %s" % (b, b * BLOCK, kind, v))
                observed.append(None)
                continue
            observed.append(v)
            if self.model is None:
                continue
            ok = self.model.acceptable(b)
            if v in ok:
                continue
            hist = self.model.history[b]
            if v in hist:
                problems.append("block %d (offset %d): version %s is older than its last flushed version %s"
                                % (b, b * BLOCK, v or "zeros", ok[0] or "zeros"))
            else:
                problems.append("block %d (offset %d): version %s was never written to it (expected one of %s)"
                                % (b, b * BLOCK, v or "zeros", ok[:6]))
        self.stats.add("verified_blocks", len(data))
        if problems:
            raise Failure("%s: %d bad block(s):\n  %s" % (what, len(problems), "\n  ".join(problems[:12])))
        return observed

    def flush_and_wait(self, conn):
        op = Op(CMD_FLUSH)
        conn.submit(op)
        loop = Loop([conn])
        while conn.pending:
            for _, err, _ in loop.step(1.0):
                if err != 0:
                    raise Failure("flush failed with error %d" % err)
            if conn.closed:
                raise Failure("the server closed the connection during a flush")
        loop.close()

    # -- one workload run, ended by SIGKILL --

    def pick_range(self, max_blocks, blocks):
        m = self.model
        r = self.rng.random()
        count = 1 if r < 0.5 else self.rng.randint(2, 4) if r < 0.8 else self.rng.randint(5, max_blocks)
        count = min(count, blocks)
        for _ in range(4):
            if self.rng.random() < 0.5:  # a hot region: rewrites of dirty lines
                first = self.rng.randrange(0, min(blocks, self.args.hot_blocks))
            else:
                first = self.rng.randrange(0, blocks)
            count_here = min(count, blocks - first)
            if not any(m.busy[first:first + count_here]):
                return first, count_here
        return None

    def next_op(self, tx):
        r = self.rng.random()
        fua = (self.rng.random() < self.args.fua) and bool(tx & TX_SEND_FUA)
        if r < 0.08:
            cmd = CMD_READ
        elif r < 0.14 and tx & TX_SEND_TRIM:
            cmd = CMD_TRIM
        elif r < 0.18 and tx & TX_SEND_WRITE_ZEROES:
            cmd = CMD_WRITE_ZEROES
        else:
            cmd = CMD_WRITE
        rng = self.pick_range(16, self.model_blocks)
        if rng is None:
            return None, b""
        op = Op(cmd, rng[0], rng[1], fua and cmd != CMD_READ)
        for b in range(op.first, op.first + op.count):
            self.model.busy[b] = 1
        payload = b""
        if cmd == CMD_READ:
            return op, payload
        versions = self.model.start(op, zeros=cmd != CMD_WRITE)
        if cmd == CMD_WRITE:
            payload = b"".join(self.contents.make(op.first + k, v) for k, v in enumerate(versions))
        return op, payload

    def append_ack(self, op):
        """An acknowledged write waits for a flush that covers it."""
        if self.multi_conn:
            self.model.global_log.append(op)
        else:
            op.conn.log.append(op)

    def flush_covering(self, conn):
        """A flush on `conn` covering what it may: every acknowledged write
        (CAN_MULTI_CONN), or those of `conn`."""
        op = Op(CMD_FLUSH)
        if self.multi_conn:
            op.covers = ("global", self.model.global_base + len(self.model.global_log))
        else:
            op.covers = ("conn", conn.log_base + len(conn.log))
        conn.submit(op)
        self.stats.add("flushes")

    def flush_done(self, op):
        kind, end = op.covers
        if kind == "global":
            m = self.model
            n = end - m.global_base
            if n <= 0:
                return
            for w in m.global_log[:n]:
                m.make_durable(w)
            del m.global_log[:n]
            m.global_base = end
        else:
            c = op.conn
            n = end - c.log_base
            if n <= 0:
                return
            for w in c.log[:n]:
                self.model.make_durable(w)
            del c.log[:n]
            c.log_base = end

    def complete(self, op, err, data, killed):
        m = self.model
        if err != 0:
            raise Failure("%s of blocks %d+%d failed with error %d" % (CMD_NAMES[op.cmd], op.first, op.count, err))
        if op.cmd == CMD_FLUSH:
            self.flush_done(op)
            self.flushes_done += 1
            return
        for b in range(op.first, op.first + op.count):
            m.busy[b] = 0
        if op.cmd == CMD_READ:
            self.stats.add("reads")
            # Coherence: the newest acknowledged version (nothing else is in
            # flight on these blocks).
            for k in range(op.count):
                b = op.first + k
                want = m.history[b][-1]
                kind, got = self.contents.identify(b, data[k * BLOCK:(k + 1) * BLOCK])
                if kind != "ok" or got != want:
                    raise Failure("live read of block %d returned %s %s, not the newest acknowledged version %s"
                                  % (b, kind, got, want or "zeros"))
            return
        self.acked_writes += 1
        if op.fua:
            m.make_durable(op)
        self.append_ack(op)
        if not killed and self.rng.random() < self.args.flush_rate:
            self.want_flush = True

    def workload(self, writers, flusher, run_s):
        m = self.model
        tx = writers[0].tx_flags
        conns = writers + ([flusher] if flusher else [])
        loop = Loop(conns)
        kill_at = time.monotonic() + self.rng.uniform(0.02, run_s)
        killed = False
        self.acked_writes = 0
        self.flushes_done = 0
        self.want_flush = False
        while True:
            now = time.monotonic()
            if not killed and now >= kill_at and (not self.layout_mode or self.flushes_done > 0):
                self.server.kill()
                killed = True
            if not killed:
                for c in writers:
                    while len(c.pending) < self.args.qd:
                        op, payload = self.next_op(tx)
                        if op is None:
                            break
                        c.submit(op, payload)
                        if op.cmd == CMD_WRITE:
                            self.stats.add("write_ops")
                            self.stats.add("write_blocks", op.count)
                        elif op.cmd == CMD_TRIM:
                            self.stats.add("trims")
                        elif op.cmd == CMD_WRITE_ZEROES:
                            self.stats.add("zeroes")
                        if op.fua:
                            self.stats.add("fua")
                if self.want_flush:
                    target = flusher if flusher else self.rng.choice(writers)
                    if len(target.pending) < 2:
                        self.flush_covering(target)
                        self.want_flush = False
            for op, err, data in loop.step(0.005):
                self.complete(op, err, data, killed)
            if killed and loop.all_closed():
                break
            if not killed and any(c.closed for c in conns):
                raise Failure("the server closed a connection before it was killed:\n" + self.server.log_tail())
        loop.close()
        unacked = sum(len(c.pending) for c in conns)
        self.stats.add("unacked_at_kill", unacked)
        for c in conns:
            c.close()
        for b in range(len(m.busy)):
            m.busy[b] = 0
        self.server.reap_killed()

    def check_volume(self):
        r = subprocess.run([self.args.tierlab, "check", self.args.target], capture_output=True,
                           text=True, timeout=300)
        if r.returncode != 0:
            raise Failure("tierlab check exited %d after a crash:\n%s%s" % (r.returncode, r.stdout, r.stderr))
        self.stats.add("check_warnings", sum(1 for l in r.stdout.splitlines() if l.startswith("warning:")))

    def run(self):
        conn = self.server.start()
        self.multi_conn = bool(conn.tx_flags & TX_CAN_MULTI_CONN) and not self.args.per_connection_flush
        if conn.tx_flags & TX_READ_ONLY or not conn.tx_flags & TX_SEND_FLUSH:
            raise HarnessError("the export is read-only or takes no flush")
        self.model_blocks = conn.size // BLOCK
        observed = self.verify(conn, "initial read")
        self.model = Model(self.model_blocks)
        self.model.rebase(observed)
        self.model.next_version = max(observed) + 1
        self.flush_and_wait(conn)
        conn.close()
        print("export %d bytes, tx flags %#x, can_multi_conn=%s, flushes %s"
              % (self.model_blocks * BLOCK, conn.tx_flags, "yes" if conn.tx_flags & TX_CAN_MULTI_CONN else "no",
                 "on their own connection" if self.multi_conn else "on the writers' connections"))
        sys.stdout.flush()
        for it in range(1, self.args.iterations + 1):
            writers = [Connection(self.server.sock, "writer%d" % i) for i in range(self.args.writers)]
            flusher = Connection(self.server.sock, "flusher") if self.multi_conn else None
            self.workload(writers, flusher, self.args.run_seconds)
            if not self.layout_mode:
                self.check_volume()
            conn = self.server.start()
            observed = self.verify(conn, "iteration %d after SIGKILL" % it)
            self.flush_and_wait(conn)
            self.model.rebase(observed)
            conn.close()
            self.stats.add("iterations")
            if it % 10 == 0 or it == self.args.iterations:
                print("iteration %d: %s" % (it, self.stats.line()))
                sys.stdout.flush()
        self.server.stop()
        if not self.layout_mode:
            self.check_volume()

    def cleanup(self):
        self.server.kill()
        if self.server.proc is not None:
            self.server.proc.wait()
        for f in os.listdir(self.work):
            os.unlink(os.path.join(self.work, f))
        os.rmdir(self.work)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("tierlab")
    p.add_argument("target")
    p.add_argument("iterations", type=int)
    p.add_argument("seed", type=int)
    p.add_argument("--data-dir", help="layout target: where serve keeps the device files")
    p.add_argument("--writers", type=int, default=3, help="writer connections")
    p.add_argument("--qd", type=int, default=8, help="requests in flight per writer connection")
    p.add_argument("--run-seconds", type=float, default=1.0, help="the kill comes within this time")
    p.add_argument("--fua", type=float, default=0.06, help="share of writes and trims with FUA")
    p.add_argument("--flush-rate", type=float, default=0.08, help="flushes per acknowledged write")
    p.add_argument("--hot-blocks", type=int, default=1024, help="half the requests start here")
    p.add_argument("--per-connection-flush", action="store_true",
                   help="flush each writer connection, as if CAN_MULTI_CONN were not advertised")
    p.add_argument("--log", help="append serve's output here")
    args = p.parse_args()
    test = None
    t0 = time.monotonic()
    try:
        test = CrashTest(args)
        test.run()
        print("PASS seed=%d %s seconds=%.1f" % (args.seed, test.stats.line(), time.monotonic() - t0))
        return 0
    except Failure as e:
        print("FAIL seed=%d: %s" % (args.seed, e))
        if test:
            print("after: " + test.stats.line())
        return 1
    except HarnessError as e:
        print("ERROR: %s" % e)
        return 2
    finally:
        if test:
            test.cleanup()


if __name__ == "__main__":
    sys.exit(main())
