"""Compute service options ([DEFAULT]), with Nova's names and defaults."""

from oslo_config import cfg

opts = [
    cfg.StrOpt(
        "compute_driver",
        default="fake",
        help="Virt driver, by entry-point name in 'novalite.virt.drivers' (e.g. fake).",
    ),
    cfg.FloatOpt(
        "cpu_allocation_ratio",
        min=0.0,
        help="Virtual CPUs per physical CPU. Unset: initial_cpu_allocation_ratio.",
    ),
    cfg.FloatOpt(
        "ram_allocation_ratio",
        min=0.0,
        help="Virtual RAM per physical RAM. Unset: initial_ram_allocation_ratio.",
    ),
    cfg.FloatOpt(
        "disk_allocation_ratio",
        min=0.0,
        help="Virtual disk per physical disk. Unset: initial_disk_allocation_ratio.",
    ),
    cfg.FloatOpt("initial_cpu_allocation_ratio", default=4.0, min=0.0),
    cfg.FloatOpt("initial_ram_allocation_ratio", default=1.0, min=0.0),
    cfg.FloatOpt("initial_disk_allocation_ratio", default=1.0, min=0.0),
    cfg.IntOpt("reserved_host_memory_mb", default=512, min=0, help="RAM kept for the host."),
    cfg.IntOpt("reserved_host_disk_mb", default=0, min=0, help="Disk kept for the host."),
    cfg.IntOpt("reserved_host_cpus", default=0, min=0, help="CPUs kept for the host."),
    cfg.IntOpt(
        "max_concurrent_builds",
        default=10,
        min=0,
        help="Builds a compute service runs at once (0: unlimited).",
    ),
    cfg.IntOpt(
        "scheduler_instance_sync_interval",
        default=120,
        help="Seconds between the list of this host's instances sent to the schedulers "
        "(with [filter_scheduler] track_instance_changes); 0 or less: never.",
    ),
    cfg.IntOpt(
        "update_resources_interval",
        default=0,
        help="Seconds between resource reports; 0 means the default of 60.",
    ),
    cfg.StrOpt(
        "default_availability_zone",
        default="nova",
        help="Availability zone of compute hosts that are in no zone aggregate.",
    ),
    cfg.StrOpt("my_ip", default="127.0.0.1", help="IP address of this host."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts)


def list_opts() -> dict:
    return {"DEFAULT": opts}
