#!/usr/bin/python3
# A host that lies, for the tests of what a client takes from another host (test/slow/remote-hostile.test.ts).
# It is the forced command of an ssh key (sshd.ts addForcedCommandAlias): it reads what was asked in
# SSH_ORIGINAL_COMMAND and answers as ~/hostile_mode says, whatever the real fleetcom would.
#   hosts add's probe: probe-hang (never ends), probe-hugehome (a home of 2 MB), probe-longhome (of
#                      5,000 bytes), probe-flood (GBs of output)
#   the bridge:        bigframe (announces a 200 MiB frame and sends it), badwelcome (a crash notice
#                      without its remedy), escapes (text full of terminal controls), silent (never answers)
#   any other command: silent (never answers, as a hung fleetcom there would not: status, sessions, --kill)
#   restore-worktrees: restore-hang (never ends; its bridge answers every request with an error)
# Anything else runs as asked.
import json, os, struct, sys, time

mode = open(os.path.expanduser("~/hostile_mode")).read().strip()
asked = os.environ.get("SSH_ORIGINAL_COMMAND", "")
out = sys.stdout.buffer
ESCAPES = "\x1b]52;c;SE9TVElMRQ==\x07\x1b]0;HOSTILE-TITLE\x07\x1b[2J\x9b31m\u202e\x9d0;C1-TITLE\x07"


def flood(prefix: bytes, total: int) -> None:
    out.write(prefix)
    chunk = b" " * (1 << 20)
    try:
        for _ in range(total // len(chunk)):
            out.write(chunk)
        out.flush()
    except BrokenPipeError:
        pass
    time.sleep(30)
    sys.exit(0)


def frame(message) -> None:
    payload = json.dumps(message).encode()
    out.write(struct.pack(">IB", len(payload), 1) + payload)
    out.flush()


def read_frame():
    head = sys.stdin.buffer.read(5)
    if len(head) < 5:
        sys.exit(0)
    length, kind = struct.unpack(">IB", head)
    return kind, sys.stdin.buffer.read(length)


def task(i: int) -> dict:
    return {"id": i, "run": 1, "command": "cmd", "typed": "cmd", "name": "hostile", "group": None, "cwd": "/",
            "tagged": False, "state": "running", "idle": False, "exitCode": None, "signal": None, "pid": 1,
            "startedAt": "2026-01-01T00:00:00Z", "endedAt": None, "lastOutputAt": None, "preview": "",
            "agent": None, "conversation": None, "attention": None, "worktree": None, "cols": 80, "rows": 24}


def bridge() -> None:
    read_frame()
    if mode == "silent":
        time.sleep(3600)
    if mode == "bigframe":
        flood(struct.pack(">IB", 200 * 1024 * 1024, 1), 200 * 1024 * 1024)
    welcome = {"type": "welcome", "protocol": 2, "version": "0.1.0", "pid": 1, "socket": "/nonexistent/hostile.sock", "instance": "hostile"}
    if mode == "badwelcome":
        welcome["notices"] = {"crash": {"snapshot": "snap", "tasks": 3}, "config": []}
    frame(welcome)
    while True:
        kind, payload = read_frame()
        if kind != 1:
            continue
        message = json.loads(payload)
        if message.get("type") != "request":
            continue
        op = message.get("op")
        if op == "ls":
            frame({"type": "reply", "id": message["id"], "ok": True, "result": [task(1)]})
        elif op == "peek":
            text = f"before{ESCAPES}after\nsecond {ESCAPES} line"
            frame({"type": "reply", "id": message["id"], "ok": True, "result": {"text": text, "info": task(1)}})
        elif op == "log":
            text = f"before{ESCAPES}after\nsecond {ESCAPES} line\n"
            frame({"type": "reply", "id": message["id"], "ok": True, "result": {"text": text, "kept": True, "next": None, "info": task(1)}})
        else:
            frame({"type": "reply", "id": message["id"], "ok": False, "error": "not here"})


if "uname -sm" in asked:
    if mode == "probe-hang":
        time.sleep(3600)
    if mode in ("probe-hugehome", "probe-longhome"):
        length = 2_000_000 if mode == "probe-hugehome" else 5_000
        out.write(b"Linux x86_64\n/" + b"a" * length + b"\nlinger=no\nservice=no\ninstalled=0.1.0\n")
        sys.exit(0)
    if mode == "probe-flood":
        flood(b"Linux x86_64\n/home/hostile\n", 3 * 1024 * 1024 * 1024)
elif asked.endswith(" bridge"):
    bridge()
elif "restore-worktrees" in asked and mode == "restore-hang":
    time.sleep(3600)
elif mode == "silent":
    time.sleep(3600)
os.execv("/bin/sh", ["sh", "-c", asked])
