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
        "instance_build_timeout",
        default=0,
        min=0,
        help="Seconds an instance may stay in BUILD on this compute host before the host "
        "puts it in ERROR with a fault and frees its claim (0: never, as Nova; the "
        "conductors' [conductor] build_watchdog_timeout still applies).",
    ),
    cfg.IntOpt(
        "block_device_allocate_retries",
        default=60,
        min=0,
        help="Times a build checks whether a volume it asked for (a volume-backed "
        "server's from its image, snapshot or nothing) is made before it fails.",
    ),
    cfg.IntOpt(
        "block_device_allocate_retries_interval",
        default=3,
        min=0,
        help="Seconds between those checks at most: the first come sooner (from 50 ms, "
        "doubling), as a small volume is made in well under a second.",
    ),
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
    cfg.StrOpt(
        "internal_service_availability_zone",
        default="internal",
        help="Availability zone of the services that are not computes (conductor, "
             "scheduler); shown by os-availability-zone/detail, hidden from the list.",
    ),
    cfg.StrOpt(
        "default_schedule_zone",
        help="Availability zone given to servers created without one; unset, they may go "
             "to any zone.",
    ),
    cfg.StrOpt("my_ip", default="127.0.0.1", help="IP address of this host."),
    cfg.BoolOpt(
        "force_config_drive",
        default=False,
        help="Give every server a config drive, asked for or not (Nova's option).",
    ),
    cfg.StrOpt(
        "mkisofs_cmd",
        default="genisoimage",
        help="The program that writes a config drive's ISO 9660 image (Nova's option; "
        "Debian's genisoimage).",
    ),
    cfg.IntOpt(
        "sync_power_state_interval",
        default=600,
        help="Seconds between syncs of the instances' power states with the hypervisor "
        "(the hypervisor is right; an instance found shut down is stopped); 0: the "
        "default periodic interval of 60; negative: never.",
    ),
    cfg.IntOpt(
        "shutdown_timeout",
        default=60,
        min=0,
        help="Seconds a guest is given to shut down cleanly on stop before it is powered "
        "off; 0: power off at once.",
    ),
    cfg.IntOpt(
        "shelved_offload_time",
        default=0,
        min=-1,
        help="Seconds a shelved server keeps its host (its guest powered off) before it "
        "is offloaded: its guest destroyed, its resources and host given back. 0: "
        "offload at once; -1: never (an admin's shelveOffload still does).",
    ),
    cfg.IntOpt(
        "shelved_poll_interval",
        default=3600,
        help="Seconds between a compute's looks for shelved servers past "
        "shelved_offload_time; 0 or less: never look.",
    ),
    cfg.StrOpt(
        "running_deleted_instance_action",
        default="reap",
        choices=[("reap", "Destroy the guest and what it holds on the host (taps, "
                  "files)."),
                 ("log", "Log a warning for each such guest."),
                 ("shutdown", "Power the guest off, keeping it for analysis."),
                 ("noop", "Do nothing.")],
        help="What a compute does with a guest it still runs whose server is deleted "
        "(deleted while this compute was down, as the API then deletes the record "
        "itself). Checked on start and every running_deleted_instance_poll_interval.",
    ),
    cfg.IntOpt(
        "running_deleted_instance_poll_interval",
        default=1800,
        help="Seconds between a compute's looks for guests of deleted servers (one look "
        "at start); 0: never look.",
    ),
    cfg.IntOpt(
        "running_deleted_instance_timeout",
        default=0,
        help="Seconds a server must have been deleted before its guest is acted on.",
    ),
    cfg.IntOpt(
        "reclaim_instance_interval",
        default=0,
        help="More than 0: a delete is deferred (soft): the guest is powered off and "
        "the server kept, restorable, in SOFT_DELETED; its compute reclaims it (deletes "
        "it for good) once it has been so this many seconds, looking as often. 0 or "
        "less: a delete is immediate.",
    ),
    cfg.BoolOpt(
        "resume_guests_state_on_host_boot",
        default=False,
        help="On compute service start, bring back the guests of instances that were "
        "running before the host rebooted but whose guest is now gone or shut down.",
    ),
]


# [compute]: options Nova keeps in its compute group.
compute_group = cfg.OptGroup("compute", title="Compute service options")

compute_opts = [
    cfg.IntOpt(
        "consecutive_build_service_disable_threshold",
        default=10,
        min=0,
        help="Nonzero: count this host's failed builds (reset by a successful one) and "
        "report them as the node stat 'failed_builds', which the scheduler's "
        "BuildFailureWeigher weighs. 0: do not count.",
    ),
    cfg.IntOpt(
        "shutdown_retry_interval",
        default=10,
        min=1,
        help="Seconds between requests to a guest to shut down, within shutdown_timeout.",
    ),
    cfg.BoolOpt(
        "packing_host_numa_cells_allocation_strategy",
        default=False,
        help="Placing a guest's NUMA nodes: True fills the host NUMA cells already in use "
        "first; False (the default) tries the cells with the most free resources first.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts)
    conf.register_group(compute_group)
    conf.register_opts(compute_opts, group=compute_group)


def list_opts() -> dict:
    return {"DEFAULT": opts, compute_group: compute_opts}
