"""network_check: interfaces (psutil), default route (/proc/net/route), resolvers (/etc/resolv.conf).

A resolver counts as reachable when a TCP connection to its port 53 opens
within the timeout; only the configured resolvers are contacted, never an
outside host.
"""

import ipaddress
import socket
import struct

import psutil


def _default_route() -> dict | None:
    try:
        with open("/proc/net/route") as fh:
            next(fh)
            for line in fh:
                f = line.split()
                if f[1] == "00000000" and int(f[3], 16) & 2:
                    return {"interface": f[0], "gateway": socket.inet_ntoa(struct.pack("<L", int(f[2], 16)))}
    except (OSError, StopIteration):
        pass
    return None


def _resolvers() -> list[str]:
    out = []
    try:
        with open("/etc/resolv.conf") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 2 and parts[0] == "nameserver":
                    try:
                        out.append(str(ipaddress.ip_address(parts[1].split("%")[0])))
                    except ValueError:
                        pass
    except OSError:
        pass
    return out[:3]


def _reachable(ip: str, timeout_s: float) -> bool:
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(timeout_s)
        try:
            s.connect((ip, 53))
            return True
        except OSError:
            return False


def handle(input: dict) -> dict:
    stats = psutil.net_if_stats()
    interfaces = []
    for name, addrs in psutil.net_if_addrs().items():
        st = stats.get(name)
        interfaces.append({"name": name, "up": bool(st and st.isup),
                           "addresses": [a.address for a in addrs if a.family in (socket.AF_INET, socket.AF_INET6)]})
    route = _default_route()
    resolvers = [{"address": ip, "reachable": _reachable(ip, input["timeout_ms"] / 1000)
                  if input["probe_resolvers"] else None} for ip in _resolvers()]
    online = route is not None and (not input["probe_resolvers"] or any(r["reachable"] for r in resolvers))
    return {"interfaces": interfaces, "default_route": route, "resolvers": resolvers, "online": online}
