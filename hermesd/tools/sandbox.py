"""Least privilege for tool workers: no capabilities, no_new_privs, locked securebits, Landlock, mount namespaces.

Standard library only: the fork server and its workers import this module, the daemon
imports it for :func:`system_rules` and :func:`landlock_abi` (what ``hermesctl tools``
and ``admin.status`` show is what a worker applies).

What a worker holds, in the order the fork server's child sets it up:

1. **Capabilities** (capabilities(7), prctl(2)): the ambient set cleared
   (``PR_CAP_AMBIENT_CLEAR_ALL``), every capability dropped from the bounding set
   (``PR_CAPBSET_DROP``, needs ``CAP_SETPCAP``), securebits set and locked
   (``SECBIT_NOROOT``, ``SECBIT_NO_SETUID_FIXUP``, ``SECBIT_KEEP_CAPS`` off and
   ``SECBIT_NO_CAP_AMBIENT_RAISE``, each with its ``_LOCKED`` bit), then
   setgroups/setresgid/setresuid to the worker user and capset(2) with empty
   effective, permitted and inheritable sets; ``PR_SET_NO_NEW_PRIVS`` so execve
   never grants anything back (setuid bits and file capabilities are ignored,
   ``Documentation/userspace-api/no_new_privs.rst``); ``PR_SET_DUMPABLE`` 0 so a
   process of the same uid cannot ptrace it or open its ``/proc/<pid>/mem``.
   :func:`drop_privileges` verifies the result in ``/proc/self/status``.
2. **Landlock** (``Documentation/userspace-api/landlock.rst``,
   ``include/uapi/linux/landlock.h``; landlock(7), landlock_create_ruleset(2),
   landlock_add_rule(2), landlock_restrict_self(2)): a ruleset handling every
   filesystem right the running ABI knows (v1: 13 rights, v2 ``REFER``, v3
   ``TRUNCATE``, v5 ``IOCTL_DEV``), TCP ``BIND``/``CONNECT`` from v4 and the
   ``ABSTRACT_UNIX_SOCKET``/``SIGNAL`` scopes from v6; one ``PATH_BENEATH`` rule
   per allowed path. A Landlocked process can no longer ptrace a process outside
   its domain, and each worker builds its own domain, so workers cannot reach
   each other either. Not covered by Landlock up to ABI 7: stat(2), chmod(2),
   chown(2), statfs(2) and connect(2) to a *path* UNIX socket (the kernel
   documentation lists them); the first four change nothing without write
   permission, the last is why the server refuses peers from the tool pool.
3. **Mount namespace** (mount_namespaces(7), pivot_root(2)), two uses: where a
   folder on the way to the Python installation is closed to the worker user
   (a pyenv under a 0700 home), :func:`unveil_paths` mounts a tmpfs over it that
   shows only the needed sub-paths; where Landlock is missing,
   :func:`private_root` pivots into a tmpfs root holding bind mounts of exactly
   the allowed paths (read-only ones remounted ``MS_RDONLY|MS_NOSUID|MS_NODEV``).

4. **seccomp** (seccomp(2), ``Documentation/userspace-api/seccomp_filter.rst``): the
   syscalls that change file metadata — chmod, chown and (set/remove)xattr families,
   ``file_setattr`` — return EPERM. Landlock cannot restrict them, and a worker that
   shares the daemon's uid (a daemon that is not root) could otherwise make the
   daemon's files world-readable or give them an ACL without opening them.

Rules are ``[path, kind]`` pairs, kind one of ``rx`` (read and execute), ``ro``,
``rw`` and ``dev`` (read and write a device file, no ioctl). Syscall numbers are
the same on x86_64 and aarch64 (444-446, from ``asm/unistd_64.h`` and
``asm-generic/unistd.h``).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import stat
import sys

__all__ = ["FORK_SERVERS", "LANDLOCK_ABI_NET", "PrivilegeError", "SandboxError", "apply_landlock",
           "deny_metadata_changes", "drop_privileges", "landlock_abi", "private_root", "reachable", "system_rules",
           "tool_process", "unreachable_roots", "unveil_paths"]

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41}.get(platform.machine(), -1)

LANDLOCK_CREATE_RULESET_VERSION = 1 << 0
LANDLOCK_RULE_PATH_BENEATH = 1
LANDLOCK_RULE_NET_PORT = 2
LANDLOCK_ABI_NET = 4

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1

#: rights a rule on a regular file may carry (the rest only make sense on a directory)
_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
_READ = FS_READ_FILE | FS_READ_DIR
_WRITE = (FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_DIR | FS_MAKE_REG | FS_MAKE_SOCK
          | FS_MAKE_FIFO | FS_MAKE_SYM | FS_REFER | FS_TRUNCATE)
KINDS = {"rx": _READ | FS_EXECUTE, "ro": _READ, "rw": _READ | _WRITE, "dev": FS_READ_FILE | FS_WRITE_FILE}

PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_GET_SECUREBITS = 27
PR_SET_SECUREBITS = 28
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECBIT_NOROOT = 1 << 0
SECBIT_NOROOT_LOCKED = 1 << 1
SECBIT_NO_SETUID_FIXUP = 1 << 2
SECBIT_NO_SETUID_FIXUP_LOCKED = 1 << 3
SECBIT_KEEP_CAPS_LOCKED = 1 << 5
SECBIT_NO_CAP_AMBIENT_RAISE = 1 << 6
SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED = 1 << 7
#: every securebit that matters for a process that must never regain a capability, locked
SECUREBITS_LOCKED = (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED
                     | SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
CAP_SETPCAP = 8

CLONE_NEWNS = 0x00020000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
_ST_FLAGS_KEPT = {os.ST_RDONLY: MS_RDONLY, os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC}

#: the parts of /etc a Python program and the tools' programs read (libc, NSS, resolver, TLS,
#: time zone); never shadow, gshadow, sudoers, ssh keys or /etc/hermesd
ETC_READ = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone",
            "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/hosts", "/etc/host.conf", "/etc/resolv.conf",
            "/etc/gai.conf", "/etc/services", "/etc/protocols", "/etc/os-release", "/etc/machine-id",
            "/etc/mime.types", "/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/ca-certificates",
            "/etc/pki/tls/certs", "/etc/crypto-policies", "/etc/alternatives", "/etc/systemd/journald.conf")
SYSTEM_RX = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
DEVICES = (("/dev/null", "dev"), ("/dev/zero", "ro"), ("/dev/full", "dev"), ("/dev/random", "ro"),
           ("/dev/urandom", "ro"))


class SandboxError(OSError):
    """A sandbox step failed (the worker must not run tool code)."""


class PrivilegeError(SandboxError):
    """Privileges were not dropped as asked (the check in ``/proc/self/status`` disagreed)."""


def _err(what: str) -> SandboxError:
    e = ctypes.get_errno()
    return SandboxError(e, f"{what}: {os.strerror(e)}")


def _prctl(option: int, arg2: int = 0, arg3: int = 0) -> int:
    res = _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(arg3), ctypes.c_ulong(0),
                      ctypes.c_ulong(0))
    if res < 0:
        raise _err(f"prctl({option})")
    return res


# ---- Landlock --------------------------------------------------------------------------------


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in the UAPI header: 12 bytes, no trailing padding
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def landlock_abi() -> int:
    """The running kernel's Landlock ABI version, 0 when it has none (or Landlock is disabled at boot).

    ``landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)`` returns the highest
    supported ABI; ENOSYS means a kernel before 5.13, EOPNOTSUPP Landlock left out of ``lsm=``.
    """
    res = _libc.syscall(ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET), None, ctypes.c_size_t(0),
                        ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    return int(res) if res > 0 else 0


def _fs_handled(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: EXECUTE .. MAKE_SYM
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def apply_landlock(rules: list[tuple[str, str]], *, abi: int, connect_ports: list[int] | None,
                   restrict_net: bool = True) -> dict:
    """Enforce ``rules`` on the calling process for the rest of its life (and its children's).

    :param rules: ``(path, kind)``; a path that does not exist is skipped (and reported).
    :param connect_ports: TCP ports the process may connect to; ``None`` leaves connect(2)
        unrestricted (a grant with ``*`` as the port). bind(2) is always denied from ABI 4 on.
    :return: ``{"abi", "rules", "skipped", "net": "enforced" | "connect any port" | "not available",
        "scoped": [...]}``.
    :raises SandboxError: a syscall failed; the caller must not run tool code then.

    no_new_privs must already be set (landlock_restrict_self(2) requires it without CAP_SYS_ADMIN).
    """
    handled_fs = _fs_handled(abi)
    handled_net = 0
    net = "not available (Landlock ABI < 4)"
    if abi >= LANDLOCK_ABI_NET and restrict_net:
        handled_net = NET_BIND_TCP
        if connect_ports is not None:
            handled_net |= NET_CONNECT_TCP
            net = "enforced"
        else:
            net = "connect to any port"
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    attr = _RulesetAttr(handled_fs, handled_net, scoped)
    # an older kernel rejects a bigger struct with E2BIG unless the extra fields are zero: pass only what it knows
    size = 8 if abi < 4 else (16 if abi < 6 else ctypes.sizeof(_RulesetAttr))
    fd = _libc.syscall(ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size),
                       ctypes.c_uint32(0))
    if fd < 0:
        raise _err("landlock_create_ruleset")
    added, skipped = [], []
    try:
        for path, kind in rules:
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError as exc:
                skipped.append(f"{path}: {exc.strerror}")
                continue
            try:
                access = KINDS[kind] & handled_fs
                if not stat.S_ISDIR(os.fstat(pfd).st_mode):
                    access &= _FILE_RIGHTS
                rule = _PathBeneathAttr(access, pfd)
                if _libc.syscall(ctypes.c_long(SYS_LANDLOCK_ADD_RULE), ctypes.c_int(fd),
                                 ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
                    raise _err(f"landlock_add_rule {path}")
                added.append(f"{path}:{kind}")
            finally:
                os.close(pfd)
        if handled_net & NET_CONNECT_TCP:
            for port in connect_ports or ():
                rule = _NetPortAttr(NET_CONNECT_TCP, port)
                if _libc.syscall(ctypes.c_long(SYS_LANDLOCK_ADD_RULE), ctypes.c_int(fd),
                                 ctypes.c_int(LANDLOCK_RULE_NET_PORT), ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
                    raise _err(f"landlock_add_rule port {port}")
        if _libc.syscall(ctypes.c_long(SYS_LANDLOCK_RESTRICT_SELF), ctypes.c_int(fd), ctypes.c_uint32(0)) < 0:
            raise _err("landlock_restrict_self")
    finally:
        os.close(fd)
    return {"abi": abi, "rules": added, "skipped": skipped, "net": net,
            "scoped": (["abstract_unix_socket", "signal"] if scoped else [])}


def system_rules(tool_folder: str | None = None, tmp_dir: str | None = None) -> list[tuple[str, str]]:
    """What every worker may reach: the system read-only, the Python installation, a few devices,
    its own ``/proc/<pid>``, its tool's folder (read) and its private temp folder (read-write).

    The Python installation is ``sys.base_prefix``, ``sys.prefix`` (the venv) and every
    ``sys.path`` folder of the interpreter; ``/proc/self`` resolves when the rule is made, i.e.
    to the worker's own pid (children a tool runs get no ``/proc`` unless the tool declares it).
    """
    rules: list[tuple[str, str]] = [(p, "rx") for p in SYSTEM_RX]
    rules += [(p, "ro") for p in ETC_READ]
    seen = {p for p, _ in rules}
    for p in (sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix, *sys.path):
        if p and os.path.isabs(p) and p not in seen and not any(p.startswith(s + "/") for s in SYSTEM_RX):
            seen.add(p)
            rules.append((p, "rx"))
    rules += list(DEVICES)
    rules += [("/proc/self", "ro"), ("/sys/devices/system/cpu", "ro")]
    if tool_folder:
        rules.append((tool_folder, "ro"))
    if tmp_dir:
        rules.append((tmp_dir, "rw"))
    return rules


# ---- who is a tool ----------------------------------------------------------------------------

#: pids of the fork servers this process runs (filled by the pool); every process below one runs tool code
FORK_SERVERS: set[int] = set()
_MAX_DEPTH = 256


def tool_process(pid: int) -> bool | None:
    """Whether process ``pid`` descends from one of :data:`FORK_SERVERS` (a worker, or anything a
    tool started: the fork server is their subreaper, so orphans stay below it).

    :return: True or False, or None when it cannot be told (the process is gone, or hidden by
        ``hidepid``). The server refuses None from its own uid: a tool could connect from a
        child that exits at once and keep the socket.
    """
    if pid <= 0:
        return None
    for _ in range(_MAX_DEPTH):
        if pid in FORK_SERVERS:
            return True
        if pid <= 1:
            return False
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                pid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return None
    return None


# ---- seccomp ----------------------------------------------------------------------------------

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7, "arm64": 0xC00000B7}.get(platform.machine())
#: chmod, chown and xattr syscalls by architecture (asm/unistd_64.h, asm-generic/unistd.h); the
#: numbers from 452 on (fchmodat2, setxattrat, removexattrat, file_setattr) are the same everywhere
METADATA_SYSCALLS = {
    0xC000003E: (90, 91, 92, 93, 94, 188, 189, 190, 197, 198, 199, 260, 268, 452, 463, 466, 469),
    0xC00000B7: (5, 6, 7, 14, 15, 16, 52, 53, 54, 55, 452, 463, 466, 469),
}
_X32_SYSCALL_BIT = 0x40000000
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


#: kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_open: the first argument names the target
SIGNAL_SYSCALLS = {0xC000003E: (62, 200, 234, 129, 297, 434), 0xC00000B7: (129, 130, 131, 138, 240, 434)}
PIDFD_SEND_SIGNAL = 424  # its target is a descriptor a filter cannot see


def deny_metadata_changes(protect_pids: list[int] = ()) -> str:
    """Install a seccomp filter that makes the chmod/chown/xattr syscalls fail with EPERM, and,
    given ``protect_pids``, signals to those processes (or to their groups, ``-pid``, or to
    ``-1``) and ``pidfd_send_signal`` too — for sandboxes without Landlock's signal scope (ABI 6),
    where a worker sharing the daemon's uid could otherwise kill it.

    Syscalls of another ABI (i386 or x32 on x86_64) fail too, so the filter cannot be
    stepped around. Needs no_new_privs (or CAP_SYS_ADMIN). :return: what was installed.
    """
    if AUDIT_ARCH is None:
        return f"not installed: no syscall table for {platform.machine()}"
    ld_abs, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JGE|K, RET|K
    deny = _SECCOMP_RET_ERRNO | errno.EPERM
    # (code, jump-if-true label or None, k); labels resolved below ("deny", "allow", "check")
    prog: list[tuple[int, str | None, int]] = [
        (ld_abs, None, 4), (jeq, "+1", AUDIT_ARCH), (ret, None, deny), (ld_abs, None, 0),
        (jge, "deny", _X32_SYSCALL_BIT)]
    prog += [(jeq, "deny", nr) for nr in METADATA_SYSCALLS[AUDIT_ARCH]]
    values = sorted({v & 0xFFFFFFFF for p in protect_pids if p > 0 for v in (p, -p)} | {0xFFFFFFFF})
    if protect_pids:
        prog += [(jeq, "check", nr) for nr in SIGNAL_SYSCALLS[AUDIT_ARCH]]
        prog.append((jeq, "deny", PIDFD_SEND_SIGNAL))
    prog.append((ret, "allow", _SECCOMP_RET_ALLOW))
    if protect_pids:
        prog.append((ld_abs, "check", 16))  # seccomp_data.args[0], low word (pid_t is an int)
        prog += [(jeq, "deny", v) for v in values]
        prog.append((ret, None, _SECCOMP_RET_ALLOW))
    prog.append((ret, "deny", deny))
    # an instruction carrying a label that is not a jump defines it: ("allow", "check", "deny")
    where = {lab: i for i, (code, lab, _) in enumerate(prog) if lab and code != jeq and code != jge}
    filters = []
    for i, (code, lab, k) in enumerate(prog):
        jt = 0
        if code in (jeq, jge):
            target = i + 1 + int(lab[1:]) if lab.startswith("+") else where[lab]
            jt = target - (i + 1)
            if not 0 <= jt <= 255:
                raise SandboxError(errno.E2BIG, "seccomp program too long for a jump")
        filters.append(_SockFilter(code, jt, 0, k))
    arr = (_SockFilter * len(filters))(*filters)
    fprog = _SockFprog(len(filters), arr)
    if _libc.prctl(ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog),
                   ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        raise _err("prctl(PR_SET_SECCOMP)")
    return "chmod, chown, xattr: EPERM" + (f"; signals to pids {sorted(set(protect_pids))}: EPERM"
                                           if protect_pids else "")


# ---- capabilities and identity ---------------------------------------------------------------


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _cap_last() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as fh:
            return int(fh.read())
    except (OSError, ValueError):
        return 40  # CAP_CHECKPOINT_RESTORE, Linux 5.9


def _status() -> dict[str, str]:
    with open("/proc/self/status") as fh:
        return dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)


def _has_setpcap() -> bool:
    return bool(int(_status().get("CapEff", "0"), 16) & (1 << CAP_SETPCAP))


def drop_privileges(uid: int | None, gid: int | None, groups: list[int] = ()) -> dict:
    """Give up every capability for good, become ``uid``/``gid`` with ``groups``, set no_new_privs.

    :param uid: the worker user; ``None`` keeps the current uid (a daemon that is not root).
    :return: what was done: ``{"uid", "gid", "groups", "bounding": "dropped" | "kept: …",
        "securebits": int | "not set: …", "no_new_privs": True}``.
    :raises PrivilegeError: any capability set is not empty afterwards, or the ids differ.

    Without ``CAP_SETPCAP`` (a non-root daemon outside a user namespace) the bounding set and
    securebits cannot be changed; no_new_privs and empty permitted/inheritable/ambient sets
    make them unreachable anyway (capabilities(7), "Capabilities and execution of programs").
    """
    report: dict = {}
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    if _has_setpcap():
        for cap in range(_cap_last() + 1):
            try:
                _prctl(PR_CAPBSET_DROP, cap)
            except SandboxError as exc:
                if exc.errno != errno.EINVAL:  # EINVAL: a capability this kernel does not know
                    raise
        report["bounding"] = "dropped"
        _prctl(PR_SET_SECUREBITS, SECUREBITS_LOCKED)
        report["securebits"] = _prctl(PR_GET_SECUREBITS)
    else:
        report["bounding"] = "kept: no CAP_SETPCAP (no_new_privs and empty sets make it unreachable)"
        report["securebits"] = "not set: no CAP_SETPCAP"
    if uid is not None:
        assert gid is not None
        os.setgroups(list(groups))
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if _libc.capset(ctypes.byref(header), data) != 0:
        raise _err("capset")
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _prctl(PR_SET_DUMPABLE, 0)
    st = _status()
    for field in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        if int(st.get(field, "0"), 16):
            raise PrivilegeError(errno.EPERM, f"{field} is {st[field]} after dropping capabilities")
    if report["bounding"] == "dropped" and int(st.get("CapBnd", "0"), 16):
        raise PrivilegeError(errno.EPERM, f"CapBnd is {st['CapBnd']} after dropping it")
    if st.get("NoNewPrivs", "1").strip() != "1":
        raise PrivilegeError(errno.EPERM, "no_new_privs is not set")
    ruid, euid, suid = os.getresuid()
    if uid is not None and (ruid, euid, suid) != (uid, uid, uid):
        raise PrivilegeError(errno.EPERM, f"uids are {ruid}/{euid}/{suid}, not {uid}")
    report.update(uid=euid, gid=os.getegid(), groups=sorted(os.getgroups()), no_new_privs=True,
                  capabilities="none")
    return report


# ---- reachability and mount namespaces -------------------------------------------------------


def _may(st: os.stat_result, uid: int, gids: set[int], bit: int) -> bool:
    if uid == 0:
        return True
    if st.st_uid == uid:
        return bool(st.st_mode & (bit << 6))
    if st.st_gid in gids:
        return bool(st.st_mode & (bit << 3))
    return bool(st.st_mode & bit)


def reachable(path: str, uid: int, gids: set[int]) -> str | None:
    """``None`` when ``uid``/``gids`` may search every folder down to ``path`` (ACLs not read),
    else the first folder that stops them."""
    parts = os.path.realpath(path).split("/")
    for i in range(1, len(parts)):
        folder = "/".join(parts[:i]) or "/"
        try:
            st = os.stat(folder)
        except OSError:
            return None  # a missing path is not ours to judge; the rule is skipped later
        if not _may(st, uid, gids, 1):
            return folder
    return None


def unreachable_roots(paths: list[str], uid: int, gids: set[int]) -> dict[str, list[str]]:
    """Group the ``paths`` the worker user cannot reach under the topmost folder that stops it:
    ``{"/root": ["/root/.pyenv/versions/3.11.7", ...]}`` (what :func:`unveil_paths` takes)."""
    out: dict[str, list[str]] = {}
    for p in paths:
        stop = reachable(p, uid, gids)
        if stop is not None:
            real = os.path.realpath(p)
            out.setdefault(stop, [])
            if real not in out[stop]:
                out[stop].append(real)
    # a stop inside another stop's tree is covered by the outer one
    for inner in [s for s in out if any(s != o and s.startswith(o + "/") for o in out)]:
        outer = next(o for o in out if inner != o and inner.startswith(o + "/"))
        out[outer] += [p for p in out.pop(inner) if p not in out[outer]]
    return out


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    if _libc.mount(source.encode() if source else None, target.encode(), fstype.encode() if fstype else None,
                   ctypes.c_ulong(flags), data.encode() if data else None) != 0:
        raise _err(f"mount {source or ''} on {target}")


def _remount_ro(target: str, executable: bool) -> None:
    # a bind remount must keep the flags the source mount has locked (mount_namespaces(7))
    kept = 0
    f = os.statvfs(target).f_flag
    for st_bit, ms_bit in _ST_FLAGS_KEPT.items():
        if f & st_bit:
            kept |= ms_bit
    flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | kept
    if not executable:
        flags |= MS_NOEXEC
    _mount(None, target, None, flags)


def _private_mounts() -> None:
    if _libc.unshare(ctypes.c_int(CLONE_NEWNS)) != 0:
        raise _err("unshare(CLONE_NEWNS)")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)


def _bind(fd: int, target: str, kind: str, is_dir: bool) -> None:
    if is_dir:
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
    _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
    if kind != "rw" and kind != "dev":
        _remount_ro(target, executable=kind == "rx")


def unveil_paths(roots: dict[str, list[str]]) -> None:
    """In a private mount namespace, cover each folder of ``roots`` with a small tmpfs that holds only
    bind mounts (read-only, executable) of the listed paths under it; needs CAP_SYS_ADMIN.

    Used when the interpreter lives under a folder the worker user may not search: the worker
    then sees the interpreter and nothing else of that folder.
    """
    if not roots:
        return
    _private_mounts()
    umask = os.umask(0o022)  # the daemon's umask (077) would close the folders made on the way
    try:
        for root, paths in roots.items():
            fds = [(p, os.open(p, os.O_PATH | os.O_CLOEXEC)) for p in paths if os.path.exists(p)]
            try:
                _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k")
                for p, fd in fds:
                    _bind(fd, p, "rx", stat.S_ISDIR(os.fstat(fd).st_mode))
            finally:
                for _, fd in fds:
                    os.close(fd)
    finally:
        os.umask(umask)


def private_root(rules: list[tuple[str, str]], scratch: str) -> list[str]:
    """Pivot into a new root made of bind mounts of ``rules`` only (the fallback without Landlock).

    :param scratch: an empty folder to build the root in (it is covered by a tmpfs first).
    :return: the rules' paths that did not exist (skipped).
    :raises SandboxError: unshare, mount or pivot_root failed (no CAP_SYS_ADMIN, no user namespace).

    ``/proc`` is bound whole (read-only): without a PID namespace of its own the worker cannot
    mount a fresh one. Device rules become bind mounts of the device files.
    """
    if SYS_PIVOT_ROOT < 0:
        raise SandboxError(errno.ENOSYS, f"pivot_root: unknown architecture {platform.machine()}")
    _private_mounts()
    fds, skipped = [], []
    for path, kind in list(rules) + [("/proc", "ro")]:
        if path.startswith("/proc/"):
            continue
        try:  # opened in the new namespace: a bind source from another one is EINVAL
            fds.append((path, kind, os.open(path, os.O_PATH | os.O_CLOEXEC)))
        except OSError as exc:
            skipped.append(f"{path}: {exc.strerror}")
    umask = os.umask(0o022)
    try:
        _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
        for path, kind, fd in fds:
            real = os.path.realpath(path)
            _bind(fd, scratch + real, kind, stat.S_ISDIR(os.fstat(fd).st_mode))
            if real != path and os.path.islink(path) and not os.path.lexists(scratch + path):
                os.makedirs(os.path.dirname(scratch + path), exist_ok=True)
                os.symlink(os.readlink(path), scratch + path)  # /bin -> usr/bin, /etc/resolv.conf -> ...
    finally:
        os.umask(umask)
        for _, _, fd in fds:
            os.close(fd)
    old = scratch + "/.old-root"
    os.mkdir(old, 0o700)
    if _libc.syscall(ctypes.c_long(SYS_PIVOT_ROOT), scratch.encode(), old.encode()) != 0:
        raise _err("pivot_root")
    os.chdir("/")
    if _libc.umount2(b"/.old-root", ctypes.c_int(MNT_DETACH)) != 0:
        raise _err("umount2 old root")
    os.rmdir("/.old-root")
    _mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    return skipped
