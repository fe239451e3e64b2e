"""A classic-BPF seccomp program that denies new namespaces (for ``bwrap --seccomp``).

Why not ``bwrap --disable-userns``: it needs ``--unshare-user``, and bwrap run
as root then maps the sandbox's user to uid 0 outside. Such a process owns
every root-owned file it can see and is exempt from RLIMIT_NPROC (the kernel
skips the check for the root user), so a fork bomb is no longer bounded.
qare runs bwrap without a user namespace and its runner drops to the real
``nobody``; this filter is what stops that ``nobody`` from creating a user
namespace (unprivileged user namespaces are enabled on Debian 12) and from
there a mount or network namespace of its own.

Denied with EPERM: ``unshare`` and ``clone`` whose flags ask for any new
namespace, ``setns``, the kernel keyring calls (keyrings are not
namespaced), ``bpf``, ``userfaultfd``, ``perf_event_open``. ``clone3`` gets
ENOSYS: its flags sit in a struct a BPF filter cannot read, and glibc falls
back to ``clone`` on ENOSYS. Another architecture's system calls (x32, i386
on x86_64) kill the process. Built for x86_64 and aarch64; elsewhere
:func:`namespace_filter` returns ``None`` and the sandbox refuses to run.
"""

from __future__ import annotations

import errno
import platform
import struct

_LD_W_ABS = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_RET = 0x06
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_ERRNO = 0x00050000
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME
_NS_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080

#: machine → (AUDIT_ARCH, {name: syscall number}, x32 bit or 0), from the
#: kernel's ``asm/unistd*.h`` of each architecture.
_ARCHES = {
    "x86_64": (0xC000003E, {"unshare": 272, "clone": 56, "clone3": 435, "setns": 308, "keyctl": 250,
                            "add_key": 248, "request_key": 249, "bpf": 321, "userfaultfd": 323,
                            "perf_event_open": 298}, 0x40000000),
    "aarch64": (0xC00000B7, {"unshare": 97, "clone": 220, "clone3": 435, "setns": 268, "keyctl": 219,
                             "add_key": 217, "request_key": 218, "bpf": 280, "userfaultfd": 282,
                             "perf_event_open": 241}, 0),
}
_DENIED = ("setns", "keyctl", "add_key", "request_key", "bpf", "userfaultfd", "perf_event_open")


def _assemble(program) -> bytes:
    """``(code, jt, jf, k)`` with jump targets as label names → ``sock_filter[]`` bytes."""
    labels = {}
    body = []
    for item in program:
        if isinstance(item, str):
            labels[item] = len(body)
        else:
            body.append(item)
    out = bytearray()
    for i, (code, jt, jf, k) in enumerate(body):
        def rel(target):
            if isinstance(target, int):
                return target
            off = labels[target] - i - 1
            if not 0 <= off <= 255:
                raise ValueError("seccomp jump out of range")
            return off
        out += struct.pack("<HBBI", code, rel(jt), rel(jf), k)
    return bytes(out)


def namespace_filter(machine: str | None = None) -> bytes | None:
    """The filter for *machine* (default: this one), or ``None`` when unsupported.

    Returns
    -------
    bytes or None
        ``struct sock_filter`` array, 8 bytes per instruction, as ``bwrap
        --seccomp FD`` reads it.
    """
    spec = _ARCHES.get(machine or platform.machine())
    if spec is None:
        return None
    arch, nr, x32 = spec
    prog: list = [
        (_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (_JEQ, 0, "kill", arch),
        (_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if x32:
        prog.append((_JGE, "kill", 0, x32))
    prog += [(_JEQ, "flags", 0, nr["unshare"]), (_JEQ, "flags", 0, nr["clone"]), (_JEQ, "enosys", 0, nr["clone3"])]
    prog += [(_JEQ, "eperm", 0, nr[name]) for name in _DENIED]
    prog += [
        (_RET, 0, 0, _ALLOW),
        "flags",
        (_LD_W_ABS, 0, 0, 16),  # low 32 bits of args[0]: the flags of unshare and clone
        (_JSET, "eperm", 0, _NS_FLAGS),
        (_RET, 0, 0, _ALLOW),
        "eperm",
        (_RET, 0, 0, _ERRNO | errno.EPERM),
        "enosys",
        (_RET, 0, 0, _ERRNO | errno.ENOSYS),
        "kill",
        (_RET, 0, 0, _KILL_PROCESS),
    ]
    return _assemble(prog)
