"""Hardware-fitting vocabulary shared by the scheduler, the compute's resource tracker and
the virt drivers: NUMA topologies, what a request asks of them and how it fits, and PCI
device pools. Pure values and functions, so every layer can use them without importing a
service package.
"""
