"""Faults during a boot storm on the distributed cloud (real processes over RabbitMQ and
PostgreSQL or MariaDB). After the fault and the restart of what died, every accepted
server ends ACTIVE or ERROR with a fault within a bounded time, and placement holds
exactly the flavors of the live servers. Loopback only; the harness is
tests.fault_storm. The faults are in several files so that they run side by side."""
