"""The compute service: one per hypervisor host; builds and deletes through a virt driver."""
