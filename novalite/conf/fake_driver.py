"""[fake_driver]: the simulated hypervisor's size, and how many the all-in-one runs."""

from oslo_config import cfg

group = cfg.OptGroup("fake_driver", title="Fake (simulated) virt driver")

opts = [
    cfg.IntOpt("vcpus", default=16, min=1, help="Physical CPUs each simulated host has."),
    cfg.IntOpt("memory_mb", default=65536, min=1, help="RAM (MiB) of each simulated host."),
    cfg.IntOpt("local_gb", default=1024, min=1, help="Disk (GiB) of each simulated host."),
    cfg.FloatOpt(
        "spawn_seconds",
        default=0.0,
        min=0.0,
        help="Simulated time a spawn takes, to make builds observable.",
    ),
    cfg.FloatOpt(
        "migration_seconds",
        default=0.0,
        min=0.0,
        help="Simulated time a resize's or cold migration's disk copy takes (the server "
        "shows task_state resize_migrating meanwhile).",
    ),
    cfg.FloatOpt(
        "live_migration_seconds",
        default=0.0,
        min=0.0,
        help="Simulated time a live migration's copy takes; while it runs the migration "
        "can be watched, aborted or forced to complete.",
    ),
    cfg.IntOpt(
        "numa_nodes",
        default=0,
        min=0,
        help="NUMA nodes each simulated host reports, its CPUs and RAM split evenly "
        "among them; 0: the host reports no NUMA topology.",
    ),
    cfg.IntOpt(
        "threads_per_core",
        default=1,
        min=1,
        help="Hardware threads per core (thread siblings) in the reported NUMA topology.",
    ),
    cfg.MultiStrOpt(
        "pci_devices",
        default=[],
        help="A pool of PCI devices each simulated host reports, as JSON, e.g. "
        "{\"vendor_id\": \"8086\", \"product_id\": \"1520\", \"count\": 2, "
        "\"numa_node\": 0, \"dev_type\": \"type-PCI\", \"physical_network\": \"net1\"} "
        "(keys other than count are the pool's tags). Repeat for more pools.",
    ),
    cfg.DictOpt(
        "metrics",
        default={},
        help="Metrics each simulated host reports, as name:value pairs "
        "(e.g. cpu.percent:20,cpu.frequency:2400).",
    ),
    cfg.BoolOpt(
        "persist_guests",
        default=True,
        help="Keep each simulated host's guests (power state and console log) in "
        "$state_path/fake-guests/<host>/<instance uuid>.json, so that they outlive the "
        "compute service as a real hypervisor's guests do: after a restart they are as "
        "they were.",
    ),
    cfg.IntOpt(
        "hosts",
        default=4,
        min=0,
        help="Number of simulated compute hosts the all-in-one starts (host1 ... hostN).",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> dict:
    return {group: opts}
