"""system_status: a snapshot of CPU, memory, root disk, temperatures, uptime and load (psutil)."""

import os
import time

import psutil


def handle(input: dict) -> dict:
    vm = psutil.virtual_memory()
    du = psutil.disk_usage("/")
    temps: dict = {}
    try:
        for chip, sensors in (psutil.sensors_temperatures() or {}).items():
            for i, s in enumerate(sensors):
                temps[f"{chip}/{s.label or i}"] = round(s.current, 1)
    except (AttributeError, OSError):
        pass  # no sensors exposed (VMs, containers)
    return {
        "cpu_percent": psutil.cpu_percent(interval=0.05),
        "cpu_count": psutil.cpu_count() or 1,
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "memory": {"total_mb": vm.total >> 20, "available_mb": vm.available >> 20, "percent": vm.percent},
        "disk": {"path": "/", "total_mb": du.total >> 20, "free_mb": du.free >> 20, "percent": du.percent},
        "temperatures_c": temps,
        "uptime_s": round(time.time() - psutil.boot_time(), 1),
    }
