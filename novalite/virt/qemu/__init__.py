"""The qemu virt driver: each instance is a QEMU process, driven over QMP."""
