"""The qemu virt driver: guests are QEMU processes driven over QMP."""
