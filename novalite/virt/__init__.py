"""Virt drivers: how a compute service runs instances on its hypervisor."""
