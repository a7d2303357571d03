#!/usr/bin/env python3
"""Time from starting b2bx to its first frame on a terminal (BENCHMARKS.md).

    make build && .ci/scripts/bench-app-start.py [RUNS]      # default 20 runs

Runs the binary in a pseudo-terminal of 120x36 and measures, per run, the
time from spawning the process until the terminal output holds the first
full frame (its status bar), and until it shows what the background work
brings (the profiles; the demo's two tabs). Two cases:

  app   b2bx with 10 profiles while the keyring hangs: the session bus
        address points at a socket that accepts and never answers, so
        every keyring call would wait for its timeout. The first frame
        must not wait for it (the key states are resolved afterwards).
  demo  b2bx demo: the simulator starts (seeding the demo data) while the
        first frame is already on screen.
  view  b2bx view FILE (when $VIEW_FILE names one, e.g. the 16 MiB bench
        file: EDI_BENCH_FILE=/tmp/o.edi go test ./edi -run TestWriteBenchFile):
        open, map, parse and draw the first frame of the segment viewer.

Prints min / median / max in milliseconds. Needs only Python 3 (pty).
Nothing outside a temp dir is read or written; the keyring is never used.
"""
import os
import pty
import select
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import time

BIN = os.environ.get("B2BX", "bin/b2bx")
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
COLS, ROWS = 120, 36


def first_frame_ms(args, env, frame, ready):
    """Milliseconds until the output holds frame (the first full frame),
    then until it holds ready (the content the Cmds brought)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
                            start_new_session=True)
    os.close(slave)
    seen = b""
    elapsed = None
    frame_at = None
    deadline = start + 10
    while time.perf_counter() < deadline:
        r, _, _ = select.select([master], [], [], 0.05)
        if master in r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            seen += chunk
            if frame_at is None and frame in seen:
                frame_at = (time.perf_counter() - start) * 1000
            if frame_at is not None and ready in seen:
                elapsed = (time.perf_counter() - start) * 1000
                break
    os.write(master, b"\x03")  # ctrl+c: quit at once
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    os.close(master)
    if elapsed is None:
        raise SystemExit(f"no first frame within 10 s from {args}; output was:\n{seen[-2000:]!r}")
    return frame_at, elapsed


def main():
    if not os.access(BIN, os.X_OK):
        raise SystemExit(f"{BIN} not found; run 'make build' first or set B2BX=/path/to/b2bx")
    with tempfile.TemporaryDirectory(prefix="b2bx-bench-start-") as tmp:
        cfg = os.path.join(tmp, "profiles.toml")
        with open(cfg, "w") as f:
            for i in range(10):
                f.write(f'[profile.conn-{i:02d}]\nurl = "https://api.example.com"\nconnection = "c-{i}"\n'
                        f'inbox_key_id = "k-in"\nmailbox_key_id = "k-mb"\n\n')
        os.chmod(cfg, 0o600)
        # A session bus that accepts connections and never answers.
        bus_path = os.path.join(tmp, "bus")
        bus = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        bus.bind(bus_path)
        bus.listen(64)
        base = {"PATH": os.environ.get("PATH", ""), "HOME": os.path.join(tmp, "home"), "TERM": "xterm-256color",
                "LANG": "C.UTF-8", "TMPDIR": tmp, "B2BX_DATA_DIR": os.path.join(tmp, "data")}
        # (args, env, first frame: the status bar, ready: what the Cmds bring)
        cases = {
            "app, 10 profiles, keyring hangs": ([BIN], dict(base, B2BX_CONFIG=cfg,
                                                            DBUS_SESSION_BUS_ADDRESS="unix:path=" + bus_path),
                                                b"profile(s)", b"conn-09"),
            "demo": ([BIN, "demo"], dict(base, DBUS_SESSION_BUS_ADDRESS="disabled:"),
                     "DEMO │".encode(), b"2 acme-at"),
        }
        view = os.environ.get("VIEW_FILE")
        if view:
            # The frame's last line but one ("segment 0 of N"), uncoloured.
            cases["view " + os.path.basename(view)] = ([BIN, "view", view], dict(base, DBUS_SESSION_BUS_ADDRESS="disabled:", NO_COLOR="1"),
                                                       b"segment 0 of", b"segment 0 of")
        for name, (args, env, frame, ready) in cases.items():
            runs = [first_frame_ms(args, env, frame, ready) for _ in range(RUNS)]
            for what, times in (("first frame", sorted(r[0] for r in runs)), ("list/tabs shown", sorted(r[1] for r in runs))):
                print(f"{name:32s} {what:16s} min {times[0]:6.1f} ms  median {statistics.median(times):6.1f} ms"
                      f"  max {times[-1]:6.1f} ms  ({RUNS} runs)")
        bus.close()


if __name__ == "__main__":
    main()
