"""Tool runtime: descriptors, schema checks, circuit breakers and the sandbox pool.

Deliberately empty: ``python -I -m hermesd.tools.forkserver`` imports this
package first and must stay lean (standard library only), so nothing is
re-exported here. Import ``hermesd.subsystems.tools`` for the subsystem.
"""
