"""The network API (Neutron v2.0) at /networking: see routes.py."""
